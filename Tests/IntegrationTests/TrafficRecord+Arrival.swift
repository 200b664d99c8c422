import Arrivals
import Wire
import Workload

extension TrafficRecord {
    /// A Live Activity push to `token` as the mock records it, answered `status`.
    static func arrival(_ token: String, status: Int = 200, event: LifecyclePhase? = .update) -> TrafficRecord {
        TrafficRecord(
            receivedMs: 0,
            deviceToken: token,
            pushType: "liveactivity",
            priority: 10,
            status: status,
            event: event,
            timestampSeconds: nil
        )
    }

    /// This push as the mock hands it on, arriving at `receivedNs` with `body`: what the arrival
    /// book and the device fleet are handed.
    func arriving(at receivedNs: Int64, body: [UInt8]) -> Arrival {
        Arrival(
            receivedNs: receivedNs,
            deviceToken: deviceToken,
            status: status,
            reason: APNsReason(rawValue: reason),
            event: event,
            priority: priority,
            body: body
        )
    }
}
