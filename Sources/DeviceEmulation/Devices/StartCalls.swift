/// Which of the workload's start calls starts each activity: one `Int32` an activity (4 MB for
/// a million), with "its app starts it itself" behind `call(starting:)` rather than read as -1
/// wherever it is asked.
struct StartCalls: Sendable {
    private let calls: [Int32]

    /// The start call of each of `workload`'s activities.
    init(_ workload: ServiceWorkload) {
        var calls = [Int32](repeating: -1, count: workload.activities)
        for (index, start) in workload.starts.enumerated() {
            for activity in start.activities { calls[activity] = Int32(index) }
        }
        self.calls = calls
    }

    /// The start call (its place among the workload's starts) that starts `activity`; `nil`
    /// when its app starts it.
    func call(starting activity: Int) -> Int? {
        let call = calls[activity]
        return call < 0 ? nil : Int(call)
    }
}
