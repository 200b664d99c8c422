extension Sequence<TrafficRecord> {
    /// The records in the order the mock received them: by `receivedMs`, and within one
    /// millisecond in the order given (a recording's order, which is the answering order).
    public func inArrivalOrder() -> [TrafficRecord] {
        enumerated().sorted { ($0.element.receivedMs, $0.offset) < ($1.element.receivedMs, $1.offset) }.map(\.element)
    }
}
