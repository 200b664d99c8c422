import ArrivalMatching
import Reports

extension ServiceFigures.Call {
    /// The figures of a call of `kind` to `group`, due `dueMicroseconds` after the clock's 0,
    /// from the book's `fanout` of it: an update call's or a start call's alike.
    init(kind: String, group: Int, dueMicroseconds: Int64, fanout: ArrivalBook.CallFanout) {
        self.init(
            kind: kind,
            group: group,
            dueS: Double(dueMicroseconds) / 1e6,
            expected: fanout.expected,
            arrived: fanout.arrived,
            firstMs: fanout.milestones.firstMs,
            halfMs: fanout.milestones.halfMs,
            p99Ms: fanout.milestones.p99Ms,
            lastMs: fanout.milestones.lastMs
        )
        superseded = fanout.superseded
    }
}
