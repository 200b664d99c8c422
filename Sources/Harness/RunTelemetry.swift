import Histogram
import LoadEngine
import Telemetry

/// A run's `/metrics`: its live figures (`LiveMetrics`) in Prometheus' text format, read when
/// the scrape arrives, so that a dashboard follows a run, or the shards of one, while it lasts.
///
/// Every series carries `run` and `shard`; `pushbench_run_info` carries the rest of the run's
/// description. Names, labels and bucket bounds are documented in `docs/telemetry.md`, and the
/// Grafana dashboard in `deploy/grafana/` queries them.
public struct RunTelemetry: Sendable {
    /// Upper bounds of the latency histogram's buckets, seconds: from loopback (a mock answers
    /// in well under a millisecond) through APNs from a data centre (tens to hundreds of
    /// milliseconds) to a stalled target (seconds, up to the longest request timeout people set).
    public static let latencyBoundsSeconds: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
    ]
    /// Upper bounds of the schedule-lag histogram's buckets, seconds: a sender keeping up leaves
    /// within tens of microseconds of the intended time; one falling behind, by seconds.
    public static let scheduleLagBoundsSeconds: [Double] = [
        0.00005, 0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5,
    ]

    /// The run's id (shared by the shards of one run started at one instant) and its shard,
    /// which every series carries.
    public let run: String
    public let shard: Int
    /// The rest of the run's description (shards, scenario, pacing, ...), as `pushbench_run_info`'s
    /// labels.
    public let description: [(String, String)]
    public let live: LiveMetrics

    /// Serves `live`, labelled with `run`, `shard` and `description`.
    public init(run: String, shard: Int, description: [(String, String)], live: LiveMetrics) {
        self.run = run
        self.shard = shard
        self.description = description
        self.live = live
    }

    /// Starts the plain-HTTP `/metrics` listener on `host`:`port`.
    /// - Throws: `MetricsEndpointError` when the port is in use or cannot be bound.
    public func serve(host: String, port: Int) throws(MetricsEndpointError) -> MetricsEndpoint {
        try MetricsEndpoint.start(
            host: host,
            port: port,
            routes: ["/metrics": { [self] in (PrometheusText.contentType, Array(exposition(live.read()).utf8)) }]
        )
    }

    /// `snapshot` in Prometheus' text format.
    public func exposition(_ snapshot: LiveSnapshot) -> String {
        var text = PrometheusText(commonLabels: [("run", run), ("shard", String(shard))])
        text.gauge("pushbench_run_info", help: "The run's description; always 1.", [.init(description, 1)])
        Self.addPushes(snapshot, to: &text)
        Self.addFlow(snapshot, to: &text)
        Self.addTimesAndWorkers(snapshot, to: &text)
        return text.text
    }

    /// Pushes sent, ended by outcome and reason, and the warmup's.
    private static func addPushes(_ snapshot: LiveSnapshot, to text: inout PrometheusText) {
        let counts = snapshot.counts
        text.counter(
            "pushbench_run_pushes_sent_total",
            help: "Pushes handed to the transport after the warmup, retries included.",
            [.init(counts.sent)]
        )
        var ended: [PrometheusText.Sample] = [.init([("outcome", "succeeded"), ("reason", "")], counts.succeeded)]
        ended += snapshot.rejectedByReason.sorted { $0.key < $1.key }.map {
            .init([("outcome", "rejected"), ("reason", $0.key)], $0.value)
        }
        ended += snapshot.erroredByKind.sorted { $0.key < $1.key }.map {
            .init([("outcome", "errored"), ("reason", $0.key)], $0.value)
        }
        ended.append(.init([("outcome", "timed_out"), ("reason", "")], counts.timedOut))
        text.counter(
            "pushbench_run_pushes_total",
            help:
                "Pushes ended after the warmup, by outcome; the APNs reason of a rejection, the class of a transport failure.",
            ended
        )
        let warmup = snapshot.warmup
        text.counter(
            "pushbench_run_warmup_pushes_total",
            help:
                "Pushes meant to leave during the warmup, by outcome (sent, then how they ended); kept out of every other figure.",
            [
                .init([("outcome", "sent")], warmup.sent), .init([("outcome", "succeeded")], warmup.succeeded),
                .init([("outcome", "rejected")], warmup.rejected), .init([("outcome", "errored")], warmup.errored),
                .init([("outcome", "timed_out")], warmup.timedOut),
            ]
        )
    }

    /// What is in flight or behind, and the connections carrying it.
    private static func addFlow(_ snapshot: LiveSnapshot, to text: inout PrometheusText) {
        text.gauge(
            "pushbench_run_in_flight_pushes",
            help: "Requests handed to the transport and not yet ended.",
            [.init(snapshot.inFlight)]
        )
        if let backlog = snapshot.backlog {
            text.gauge(
                "pushbench_run_backlog_pushes",
                help: "Open loop: pushes whose intended send time has come and that have not been sent.",
                [.init(backlog)]
            )
        }
        text.gauge(
            "pushbench_run_behind_schedule_seconds",
            help: "Open loop: how late the next push to send already is (the largest over the workers).",
            [.init([], snapshot.behindScheduleSeconds)]
        )
        if let open = snapshot.connectionsOpen {
            text.gauge("pushbench_run_connections_open", help: "HTTP/2 connections up now.", [.init(open)])
        }
        text.counter(
            "pushbench_run_connection_attempts_total",
            help: "Connections the transport tried to open, whether or not they came up.",
            [.init(snapshot.connectionAttempts)]
        )
        if let reconnections = snapshot.reconnections {
            text.counter(
                "pushbench_run_reconnections_total",
                help: "Connections opened again after one failed, was reset or was told to go away.",
                [.init(reconnections)]
            )
        }
        text.counter(
            "pushbench_run_retries_sent_total",
            help: "Retry attempts sent (also in pushbench_run_pushes_sent_total).",
            [.init(snapshot.retriesSent)]
        )
    }

    /// Latency, schedule lag, and the workers' CPU and progress.
    private static func addTimesAndWorkers(_ snapshot: LiveSnapshot, to text: inout PrometheusText) {
        histogram(
            &text,
            "pushbench_run_push_latency_seconds",
            help:
                "From each push's intended send time to its answer (open loop: no coordinated omission), answered pushes after the warmup.",
            snapshot.latency,
            bounds: latencyBoundsSeconds
        )
        histogram(
            &text,
            "pushbench_run_schedule_lag_seconds",
            help: "How late each push left against its intended send time, after the warmup.",
            snapshot.scheduleLag,
            bounds: scheduleLagBoundsSeconds
        )
        text.counter(
            "pushbench_run_worker_cpu_seconds_total",
            help: "CPU time (user and system) of each worker thread since it started.",
            snapshot.workerCPUSeconds.enumerated().map { .init([("worker", String($0.offset))], $0.element) }
        )
        text.gauge("pushbench_run_workers", help: "Workers in the run (0 before it starts).", [.init(snapshot.workers)])
        text.gauge(
            "pushbench_run_workers_finished",
            help: "Workers done: all of them once the run has ended.",
            [.init(snapshot.workersFinished)]
        )
    }

    /// A latency histogram (microseconds, as the engine records them) as a Prometheus one in
    /// seconds. A bucket counts the values whose histogram bucket lies wholly at or below its
    /// bound, and the sum adds each bucket's highest value: both exact to the histogram's
    /// precision (every microsecond below 2.048 ms, then three significant digits).
    static func histogram(
        _ text: inout PrometheusText,
        _ name: String,
        help: String,
        _ histogram: Histogram<UInt64>,
        bounds: [Double]
    ) {
        let buckets = histogram.buckets
        var cumulative = [UInt64](repeating: 0, count: bounds.count)
        var sumUs: UInt64 = 0
        var index = 0
        var below: UInt64 = 0
        for bucket in buckets {
            while index < bounds.count, Double(bucket.valueUs) > bounds[index] * 1e6 {
                cumulative[index] = below
                index += 1
            }
            below += bucket.count
            sumUs += bucket.valueUs * bucket.count
        }
        while index < bounds.count {
            cumulative[index] = below
            index += 1
        }
        text.histogram(
            name,
            help: help,
            upperBounds: bounds,
            cumulativeCounts: cumulative,
            count: below,
            sum: Double(sumUs) / 1e6
        )
    }
}
