import Workload

/// A push the target answered 200, handed to whoever models what the device does next (the
/// budget model): APNs accepting a push says nothing about whether the device shows it.
public struct AcceptedPush: Sendable {
    /// The worker that sent it; calls for one worker come from one thread, in answer order.
    public let worker: Int
    /// The scenario event it carried.
    public let event: WorkloadEvent
    /// The event's number among its worker's events, which the worker takes in scenario order.
    public let sequence: Int
    /// Every event of the worker numbered below this has ended, accepted or not: no call after
    /// this one brings any of them. Pushes held up to here can be modelled in scenario order.
    public let settledBelow: Int
    /// When its answer arrived, UNIX seconds: the budget model's `aps.timestamp`. It is never
    /// earlier than the timestamp the payload carried, and keeps its order.
    public let timestampSeconds: Int64
    /// When its answer arrived on the scenario's clock, milliseconds: the first event's time
    /// plus the run's elapsed time times the pacing's `simulatedSecondsPerSecond`.
    /// Non-decreasing from one call to the next of a worker.
    public let answeredAtSimulatedMs: Int64

    /// Creates an accepted push; the engine makes one per 200, and `pushbench profile` one per
    /// event a profiled sender got accepted.
    public init(
        worker: Int,
        event: WorkloadEvent,
        sequence: Int,
        settledBelow: Int,
        timestampSeconds: Int64,
        answeredAtSimulatedMs: Int64
    ) {
        self.worker = worker
        self.event = event
        self.sequence = sequence
        self.settledBelow = settledBelow
        self.timestampSeconds = timestampSeconds
        self.answeredAtSimulatedMs = answeredAtSimulatedMs
    }
}
