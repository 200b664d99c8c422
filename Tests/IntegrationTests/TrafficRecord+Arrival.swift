import Workload

extension TrafficRecord {
    /// A Live Activity push to `token` as the mock records it, answered `status`: what the
    /// arrival book and the device fleet are handed.
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
}
