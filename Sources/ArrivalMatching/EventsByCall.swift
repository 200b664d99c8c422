/// A sealed schedule's events grouped by identity (a service's call number): the events whose
/// expected count a call's sending can change. 4 bytes an event, built only for a book whose
/// tokens are reported, so that the counts the progress line reads several times a second are
/// kept as calls go out rather than recounted over every event.
struct EventsByCall: Sendable {
    /// Where each call's events begin in `events`; one more entry than calls.
    private let first: [Int32]
    private let events: [Int32]

    init(_ schedule: SealedSchedule) {
        var first = [Int32](repeating: 0, count: schedule.identityCount + 1)
        for event in 0..<schedule.events { first[schedule.identity(ofEvent: event) + 1] += 1 }
        for call in 0..<schedule.identityCount { first[call + 1] += first[call] }
        var next = first
        var events = [Int32](repeating: 0, count: schedule.events)
        for event in 0..<schedule.events {
            let call = schedule.identity(ofEvent: event)
            events[Int(next[call])] = Int32(event)
            next[call] += 1
        }
        self.first = first
        self.events = events
    }

    /// Call `call`'s events, as indices among all the schedule's.
    func events(of call: Int) -> some Collection<Int> {
        events[Int(first[call])..<Int(first[call + 1])].lazy.map(Int.init)
    }
}
