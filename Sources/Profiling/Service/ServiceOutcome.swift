/// What `profile --api` measured of a service beyond what every profile measures: its API's
/// answers in both phases, and each call's fan-out to the mock.
public struct ServiceOutcome: Sendable {
    /// The API file, and the work it was handed.
    public var file: APIFile
    public var workload: ServiceWorkload
    public var settings: ServiceSession.Settings
    public var registration: APIAnswers
    public var events: APIAnswers
    /// Each call's pushes, matched as they arrived, and the book that matched them.
    public var calls: [FanoutBook.CallFanout]
    public var book: FanoutBook
    /// Pushes no call explains, and pushes matched by the content state's `pushbench_event`.
    public var extra: Int
    public var tagged: Int
    /// UNIX seconds of the first call's intended time; `nil` when the clock never started.
    public var startAtUnix: Double?
    /// The service's CPU while the calls were sent and fanned out (from the clock's start to
    /// the end), seconds; registration's is the rest of the sender's.
    public var eventsCPUSeconds: Double
    /// Why driving the service failed (no registration succeeded), if it did.
    public var failure: String?
}
