import Foundation

/// When a shard starts its schedule: `--start-at TIME`, or `PUSHBENCH_START_AT` (so one
/// Kubernetes Job manifest gives every pod the same instant), as RFC 3339 or UNIX seconds.
enum StartInstant {
    /// The variable a Job's pods read the instant from.
    static let variable = "PUSHBENCH_START_AT"
    /// The furthest ahead an instant may be: a day, so a typo in the date is not a silent wait.
    static let furthestAheadSeconds = 24.0 * 3600

    /// The instant `option` or the environment names (UNIX seconds), or `nil` for at once.
    /// - Throws: `CommandLineError` for a malformed time, one already past, or one more than a
    ///   day ahead of `now`.
    static func resolve(option: String?, environment: [String: String], now: Double) throws -> Double? {
        guard let text = option ?? environment[variable].flatMap({ $0.isEmpty ? nil : $0 }) else { return nil }
        let source = option != nil ? "--start-at" : variable
        guard let instant = parse(text) else {
            throw CommandLineError(
                "\(source) '\(text)': expected RFC 3339 (2026-11-25T18:00:00Z) or UNIX seconds (1795629600)"
            )
        }
        guard instant >= now else {
            throw CommandLineError(
                "\(source) \(text) is \(String(format: "%.1f", now - instant)) s in the past: give every shard a time ahead"
            )
        }
        guard instant - now <= furthestAheadSeconds else {
            throw CommandLineError("\(source) \(text) is more than 24 hours ahead: is the date right?")
        }
        return instant
    }

    /// `text` as UNIX seconds: a number, or an RFC 3339 date and time with a zone.
    static func parse(_ text: String) -> Double? {
        if let seconds = Double(text), seconds.isFinite { return seconds }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date.timeIntervalSince1970 }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)?.timeIntervalSince1970
    }
}
