import ArrivalMatching
import Arrivals
import Foundation
import LoadEngine
import Workload

/// Writes `PUSHBENCH_EVENTS` and `PUSHBENCH_TOKENS`: a scenario's pushes as JSON lines, in
/// scenario order, and its device tokens, one hex token a line in order of first use.
///
/// Streamed: one event is made, encoded and appended at a time (the payload by the same
/// `ScenarioPushSource` PushBench's own sender uses), so a million pushes are written at disk
/// speed and memory holds only the schedule the lag is later measured against.
public enum EventsFile {
    /// What was written.
    public struct Written: Sendable {
        /// Each token's due times, for matching arrivals.
        public var schedule: PushSchedule
        /// Bytes of the events file.
        public var eventBytes: Int
    }

    /// The JSON members of one line, in the order written. `payload` comes last: it is the
    /// largest, and a reader looking at the file sees the schedule first.
    public static let members = [
        "at_s", "token", "push_type", "topic", "priority", "expiration", "activity", "event", "payload",
    ]

    /// Writes the first `requests` pushes (all when `nil`) of `scenario` to `eventsPath` and
    /// their tokens to `tokensPath`.
    ///
    /// - Parameters:
    ///   - startAt: UNIX seconds of `at_s` 0; payload timestamps are `startAt + at_s`, and
    ///     `apns-expiration` is an hour after `startAt`, as `pushbench run` sets it.
    ///   - shouldStop: asked every few thousand events; when it answers true (a signal), the
    ///     files written so far are removed.
    /// - Throws: `ProfileError.badInput` for a scenario that broadcasts (a profile's pushes go
    ///   to tokens), `.systemCall` when a file cannot be written, `.stoppedBeforeStart` when
    ///   `shouldStop` said so.
    public static func write(
        scenario: Scenario,
        requests: Int?,
        timing: EventTiming,
        bundleID: String,
        startAt: Double,
        eventsPath: String,
        tokensPath: String,
        shouldStop: () -> Bool = { false }
    ) throws -> Written {
        guard scenario.broadcastGroups(in: 0..<scenario.activities).isEmpty else {
            throw ProfileError.badInput(
                "the scenario broadcasts to channels; profile hands a sender pushes to tokens (use --delivery token)"
            )
        }
        var events = try OutputFile(path: eventsPath)
        var tokens = try OutputFile(path: tokensPath)
        var source = ScenarioPushSource(scenario: scenario, bundleID: bundleID)
        var schedule = PushSchedule()
        var line = EventLine(topic: "\(bundleID).push-type.liveactivity", expiration: Int64(startAt) + 3600)
        var path: [UInt8] = []
        for event in try pushes(of: scenario, requests: requests) {
            let due = timing.dueMicroseconds(index: schedule.events, event: event)
            let payload = try source.prepare(event, now: Int64(startAt + Double(due) / 1e6), path: &path)
            let token = path.dropFirst(Self.devicePathPrefix)
            let number = schedule.events
            if schedule.add(
                token: String(decoding: token, as: UTF8.self),
                dueMicroseconds: due,
                identity: number,
                phase: event.phase
            ) {
                try tokens.append(token)
                try tokens.append(CollectionOfOne(UInt8(ascii: "\n")))
            }
            line.encode(
                event,
                dueMicroseconds: due,
                token: token,
                payload: EventTag.tagged(payload, event: number)
            )
            try events.append(line.bytes)
            if number & 0xFFF == 0xFFF, shouldStop() {
                try? events.close()
                try? tokens.close()
                for path in [eventsPath, tokensPath] { try? FileManager.default.removeItem(atPath: path) }
                throw ProfileError.stoppedBeforeStart(
                    "stopped while writing the sender's events (\(number + 1) written, now removed); the sender was not started"
                )
            }
        }
        try events.close()
        try tokens.close()
        return Written(schedule: schedule, eventBytes: events.bytes)
    }

    /// The pushes a profile hands its sender, in scenario order: the events the scenario's sender
    /// sends, the first `requests` of them.
    /// - Throws: `WorkloadError` when the scenario is invalid.
    public static func pushes(of scenario: Scenario, requests: Int?) throws -> some Sequence<WorkloadEvent> {
        try ScenarioStream(scenario).lazy.filter(\.sentHere).prefix(requests ?? .max)
    }

    /// `/3/device/`'s length: what precedes the token in a push's path.
    private static let devicePathPrefix = "/3/device/".utf8.count
}

/// One line of the events file, encoded into a buffer reused from line to line.
private struct EventLine {
    let topic: String
    let expiration: Int64
    private(set) var bytes: [UInt8] = []

    init(topic: String, expiration: Int64) {
        self.topic = topic
        self.expiration = expiration
    }

    mutating func encode(_ event: WorkloadEvent, dueMicroseconds due: Int64, token: ArraySlice<UInt8>, payload: [UInt8])
    {
        bytes.removeAll(keepingCapacity: true)
        append("{\"at_s\":")
        appendInteger(due / 1_000_000)
        append(".")
        let fraction = due % 1_000_000
        var digits = 100_000 as Int64
        while digits > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(fraction / digits % 10))
            digits /= 10
        }
        append(",\"token\":\"")
        bytes.append(contentsOf: token)
        append("\",\"push_type\":\"liveactivity\",\"topic\":\"")
        append(topic)
        append("\",\"priority\":")
        appendInteger(Int64(event.priority))
        append(",\"expiration\":")
        appendInteger(expiration)
        append(",\"activity\":")
        appendInteger(Int64(event.activity))
        append(",\"event\":\"")
        append(event.kind.rawValue)
        append("\",\"payload\":")
        bytes.append(contentsOf: payload)
        append("}\n")
    }

    private mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    private mutating func appendInteger(_ value: Int64) {
        append(String(value))
    }
}
