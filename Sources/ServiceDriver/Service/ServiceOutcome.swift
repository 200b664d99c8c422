import ArrivalMatching
import DeviceEmulation
import RequestFiles

/// What `profile --api` measured of a service beyond what every profile measures: its API's
/// answers in both phases, and each call's fan-out to the mock.
public struct ServiceOutcome: Sendable {
    /// The API file, and how the service was driven.
    public var file: APIFile
    /// The request each activity (or, for a lifecycle, each push-to-start device) was
    /// registered with before the clock, if any.
    public var register: APIFile.Request?
    public var settings: ServiceSession.Settings
    public var registration: APIAnswers
    public var events: APIAnswers
    /// The work the service was handed: its registrations and calls.
    public var workload: ServiceWorkload
    /// Each call's fan-out, as the arrival book matched its pushes.
    public var calls: [ArrivalBook.CallFanout]
    /// UNIX seconds of the first call's intended time; `nil` when the clock never started.
    public var startAtUnix: Double?
    /// The service's CPU while the calls were sent and fanned out (from the clock's start to
    /// the end), seconds; registration's is the rest of the sender's. `nil` when the clock never
    /// started.
    public var eventsCPUSeconds: Double?
    /// Why driving the service failed (no registration succeeded), if it did.
    public var failure: String?
    /// Why PushBench itself could not go on (the devices' client could not start), if so: not
    /// the service's failure, and the profile stops at once.
    public var pushbenchFailure: String?
    /// The devices' side, when PushBench played them.
    public var lifecycle: LifecycleOutcome?
}
