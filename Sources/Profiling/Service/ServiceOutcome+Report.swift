import Reports

extension ServiceOutcome {
    /// The report's figures: both phases' answers, and each call's fan-out, with its cost when
    /// the service's CPU was `measured` (profile started it).
    func figures(arrivals: ArrivalBook.Figures, measured: Bool) -> ServiceFigures {
        ServiceFigures(
            registrations: Self.phase(
                registration,
                request: register,
                per: nil,
                concurrency: settings.registerConcurrency,
                rateLimit: settings.registerRate
            ),
            api: Self.phase(events, request: file.event, per: file.perActivity ? "activity" : "group"),
            calls: calls.map { fanout in
                let call = workload.calls[fanout.call]
                return ServiceFigures.Call(
                    kind: call.kind.rawValue,
                    group: call.group,
                    dueS: Double(call.dueMicroseconds) / 1e6,
                    expected: fanout.expected,
                    arrived: fanout.arrived,
                    firstMs: fanout.milestones.firstMs,
                    halfMs: fanout.milestones.halfMs,
                    p99Ms: fanout.milestones.p99Ms,
                    lastMs: fanout.milestones.lastMs
                )
            },
            extra: arrivals.extra,
            matchedByTag: arrivals.matchedByTag,
            eventsCPUUsPerPush: eventsCPUSeconds.flatMap { seconds in
                measured && arrivals.pushes > 0 ? seconds * 1e6 / Double(arrivals.pushes) : nil
            }
        )
    }

    private static func phase(
        _ answers: APIAnswers,
        request: APIFile.Request,
        per: String?,
        concurrency: Int? = nil,
        rateLimit: Double? = nil
    ) -> RunSummary.APIPhase {
        let latency = answers.latency
        return RunSummary.APIPhase(
            method: request.method,
            url: request.urlText,
            per: per,
            sent: answers.sent,
            succeeded: answers.succeeded,
            refused: answers.refused,
            timedOut: answers.timedOut,
            failed: answers.failed,
            byStatus: answers.byStatus,
            failedByClass: Dictionary(uniqueKeysWithValues: answers.failedByClass.map { ($0.key.rawValue, $0.value) }),
            latencyMs: latency.totalCount == 0
                ? nil
                : RunSummary.MillisecondPercentiles(
                    count: Int(latency.totalCount),
                    p50Us: latency.valueAtPercentile(50),
                    p90Us: latency.valueAtPercentile(90),
                    p99Us: latency.valueAtPercentile(99),
                    maxUs: latency.max
                ),
            durationS: answers.seconds,
            httpVersions: answers.httpVersions.sorted(),
            concurrency: concurrency,
            rateLimitPerS: rateLimit
        )
    }
}
