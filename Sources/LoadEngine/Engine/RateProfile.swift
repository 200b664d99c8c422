import Basics
import Transport

/// An offered rate that changes over a run: straight lines between points (seconds, pushes per
/// second), holding the last point's rate after it. A constant rate is one point; a ramp two;
/// steps put two points at the same second.
///
/// Push `k` (counting from 0) is intended at the moment the rate's integral reaches `k`, so the
/// pushes follow the shape exactly however it bends, and open-loop latency runs from there.
public struct RateProfile: Sendable, Equatable {
    /// The points, in non-decreasing time; the first is at 0.
    public let points: [(seconds: Double, perSecond: Double)]
    /// Pushes intended before each point.
    private let pushesBefore: [Double]

    /// Creates a profile from `points`.
    /// - Throws: `RateProfileError` when times go backwards, a rate is negative, or every rate is 0.
    public init(points: [(seconds: Double, perSecond: Double)]) throws(RateProfileError) {
        guard let first = points.first else { throw RateProfileError("a rate profile needs at least one point") }
        guard first.seconds == 0 else { throw RateProfileError("a rate profile starts at 0 s, not \(first.seconds) s") }
        for (earlier, later) in zip(points, points.dropFirst()) where later.seconds < earlier.seconds {
            throw RateProfileError("times must not go backwards: \(later.seconds) s after \(earlier.seconds) s")
        }
        guard points.allSatisfy({ $0.perSecond >= 0 && $0.perSecond.isFinite && $0.seconds.isFinite }) else {
            throw RateProfileError("rates must be finite and not negative")
        }
        guard points.contains(where: { $0.perSecond > 0 }) else { throw RateProfileError("every rate is 0") }
        self.points = points
        var before: [Double] = [0]
        for (earlier, later) in zip(points, points.dropFirst()) {
            before.append(before.last! + (earlier.perSecond + later.perSecond) / 2 * (later.seconds - earlier.seconds))
        }
        pushesBefore = before
    }

    /// A constant rate.
    public static func constant(_ perSecond: Double) throws(RateProfileError) -> RateProfile {
        try RateProfile(points: [(0, perSecond)])
    }

    /// Reads `t:rate,t:rate,...`, e.g. `0:100,60s:2000` (a one-minute ramp from 100/s to 2000/s),
    /// each time with its unit but 0, or a file's `seconds,rate` lines.
    public init(parsing text: String) throws(RateProfileError) {
        var points: [(Double, Double)] = []
        // `t:rate,t:rate` on a line, or a file's `t,rate` lines.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (number, line) in lines.enumerated() {
            for item in line.contains(":") ? line.split(separator: ",") : [line]
            where !item.allSatisfy(\.isWhitespace) {
                let fields = item.split(whereSeparator: { $0 == ":" || $0 == "," || $0 == " " || $0 == "\r" })
                    .map(String.init)
                if fields.count == 2, fields[0].lowercased() == "seconds" { continue }  // a file's header line
                let shown = String(item.filter { !$0.isNewline })
                // A point on the command line is a duration with its unit (`60s:2000`), as every
                // duration is; a file's `seconds,rate` column says its unit in its header.
                let seconds =
                    item.contains(":")
                    ? fields.first.flatMap { try? Duration(parsing: $0) }.map(\.inSeconds)
                    : fields.first.flatMap(Double.init)
                guard fields.count == 2, let seconds, let rate = Double(fields[1]) else {
                    if item.contains(":"), let time = fields.first, Double(time).map({ $0 != 0 }) == true {
                        throw RateProfileError(
                            "'\(shown)': a time needs a unit, such as \(time)s:\(fields.dropFirst().first ?? "RATE")",
                            line: lines.count > 1 ? number + 1 : nil
                        )
                    }
                    throw RateProfileError(
                        item.contains(":")
                            ? "'\(shown)' is not TIME:RATE, such as 60s:2000" : "'\(shown)' is not a SECONDS,RATE line",
                        line: lines.count > 1 ? number + 1 : nil
                    )
                }
                points.append((seconds, rate))
            }
        }
        try self.init(points: points)
    }

    /// The same shape at `factor` times the rate (a worker's share).
    public func scaled(by factor: Double) -> RateProfile {
        // The shape is already valid; scaling by a positive factor keeps it so.
        try! RateProfile(points: points.map { ($0.seconds, $0.perSecond * factor) })
    }

    /// Whether the rate never changes.
    public var isConstant: Bool { points.allSatisfy { $0.perSecond == points[0].perSecond } }

    /// Seconds from the start at which push `index` is intended; `nil` when the rate has fallen
    /// to 0 for good before it.
    public func seconds(ofPush index: Int) -> Double? {
        let target = Double(index)
        var segment = 0
        while segment + 1 < points.count && pushesBefore[segment + 1] <= target { segment += 1 }
        let start = points[segment]
        let remaining = target - pushesBefore[segment]
        guard segment + 1 < points.count else {
            return start.perSecond > 0 ? start.seconds + remaining / start.perSecond : nil
        }
        let end = points[segment + 1]
        let span = end.seconds - start.seconds
        let slope = (end.perSecond - start.perSecond) / span
        // remaining = r0·x + slope·x²/2, solved for x in [0, span).
        if abs(slope) < 1e-12 { return start.seconds + remaining / start.perSecond }
        let root = (start.perSecond * start.perSecond + 2 * slope * remaining).squareRoot()
        return start.seconds + (root - start.perSecond) / slope
    }

    /// How many pushes are intended at or before `seconds` from the start: the rate's integral
    /// up to then, rounded down, plus push 0 at the start (so at least 1).
    public func pushesDue(bySeconds seconds: Double) -> Int {
        var segment = 0
        while segment + 1 < points.count && points[segment + 1].seconds <= seconds { segment += 1 }
        let start = points[segment]
        let elapsed = max(0, seconds - start.seconds)
        var integral = pushesBefore[segment] + start.perSecond * elapsed
        if segment + 1 < points.count {
            let end = points[segment + 1]
            integral += (end.perSecond - start.perSecond) / (end.seconds - start.seconds) * elapsed * elapsed / 2
        }
        return Int(min(integral, Double(Int.max / 2)).rounded(.down)) + 1
    }

    /// How reports write it: `1000/s`, or `0 s 100/s → 60 s 2000/s`.
    public var label: String {
        if points.count == 1 { return "\(Self.number(points[0].perSecond))/s" }
        return points.map { "\(Self.number($0.seconds)) s \(Self.number($0.perSecond))/s" }.joined(separator: " → ")
    }

    /// A number as people write it: 60, 2.5.
    public static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    public static func == (lhs: RateProfile, rhs: RateProfile) -> Bool {
        lhs.points.elementsEqual(rhs.points) { $0.seconds == $1.seconds && $0.perSecond == $1.perSecond }
    }
}

/// A rate profile that cannot be used, in words.
public struct RateProfileError: Error, CustomStringConvertible {
    /// What is wrong.
    public let message: String
    /// The line of a multi-line profile (a file's) it is wrong on, from 1.
    public let line: Int?

    init(_ message: String, line: Int? = nil) {
        self.message = message
        self.line = line
    }

    public var description: String { line.map { "line \($0): \(message)" } ?? message }
}
