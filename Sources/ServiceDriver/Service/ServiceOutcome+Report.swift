import ArrivalMatching
import Histogram
import Reports
import RequestFiles

extension ServiceOutcome {
    /// The report's figures: both phases' answers, and each call's fan-out, with its cost when
    /// the service's CPU was `measured` (profile started it).
    public func figures(arrivals: ArrivalBook.Figures, measured: Bool) -> ServiceFigures {
        let lifecycle = lifecycle?.figures()
        return ServiceFigures(
            registrations: register.map {
                registration.phase(
                    request: $0,
                    per: nil,
                    concurrency: settings.registerConcurrency,
                    rateLimit: settings.registerRate
                )
            },
            api: file.event.map { events.phase(request: $0, per: file.perActivity ? "activity" : "group") }
                ?? .none,
            lifecycle: lifecycle,
            calls: calls.map { fanout in
                let call = workload.calls[fanout.call]
                var figures = ServiceFigures.Call(
                    kind: call.kind.rawValue,
                    group: call.group,
                    dueMicroseconds: call.dueMicroseconds,
                    fanout: fanout
                )
                figures.ownClock = call.ownClock
                return figures
            },
            extra: arrivals.extra,
            matchedByTag: arrivals.matchedByTag,
            // A lifecycle's updates are a phase of their own: the starts and the storm apart.
            eventsCPUUsPerPush: lifecycle.map { measured ? $0.serviceCPUUsPer?["update_push"] : nil }
                ?? eventsCPUSeconds.flatMap { seconds in
                    measured && arrivals.pushes > 0 ? seconds * 1e6 / Double(arrivals.pushes) : nil
                }
        )
    }
}

extension APIAnswers {
    /// The phase's figures, as `summary.json` writes them.
    func phase(
        request: APIFile.Request,
        per: String?,
        concurrency: Int? = nil,
        rateLimit: Double? = nil
    ) -> RunSummary.APIPhase {
        RunSummary.APIPhase(
            method: request.method,
            url: request.urlText,
            per: per,
            sent: sent,
            succeeded: succeeded,
            refused: refused,
            timedOut: timedOut,
            failed: failed,
            byStatus: byStatus,
            failedByClass: Dictionary(uniqueKeysWithValues: failedByClass.map { ($0.key.rawValue, $0.value) }),
            latencyMs: latency.millisecondPercentiles,
            durationS: seconds,
            httpVersions: httpVersions.sorted(),
            concurrency: concurrency,
            rateLimitPerS: rateLimit,
            client: connections.map {
                RunSummary.APIPhase.Client(
                    connections: $0,
                    peakInFlight: peakInFlight ?? 0,
                    waited: waited,
                    queuedUs: queued.microsecondPercentiles
                )
            }
        )
    }
}
