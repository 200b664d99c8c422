import Yams

/// What a service sends by itself, and when, from what it was told: a lifecycle file's
/// `service_sends`. A scheduler starts a class at the time its start call gave and ends each
/// activity at the countdown target its device reported; such pushes are owed at those moments
/// and judged against them, not against a call that never comes.
///
/// ```yaml
/// service_sends:
///   start: "{{timestamp}}"       # a start push to each activity, owed at the time its start call gave
///   end: "{{activity_end}}"      # an end push to each activity, owed at the time its token report gave
///   update: own                  # updates on its own schedule (polling an upstream), owed by no call
/// ```
public struct ServiceSends: Sendable, Equatable {
    /// A moment the service was told: one of the request's times, shifted by an offset
    /// (`{{activity_end+10s}}`).
    public struct OwedTime: Sendable, Equatable {
        /// `timestamp` (the start call's time), `activity_start` or `activity_end`.
        public var base: Placeholder
        public var offsetSeconds: Double

        /// `base` shifted by `offsetSeconds`.
        public init(base: Placeholder, offsetSeconds: Double) {
            self.base = base
            self.offsetSeconds = offsetSeconds
        }

    }

    /// When each start push is owed, from the start call; when each end push is owed, from the
    /// token report. `nil`: the operator's calls say it (or, for ends, an end call).
    public var start: OwedTime?
    public var end: OwedTime?
    /// Whether the service updates on its own schedule (`update: own`), as one that polls an
    /// upstream does: each of the scenario's updates is a change it must follow, owed from the
    /// change's moment to the activities whose tokens it knew, and sent by no call. A push
    /// answers the latest change of its activity by then, the ones before it superseded.
    public var ownUpdates = false

    /// The times a start call tells, and those a token report tells.
    static let startTimes: Set<Placeholder> = [.timestamp, .activityStart, .activityEnd]
    static let reportTimes: Set<Placeholder> = [.activityStart, .activityEnd]

    /// Reads `node`, a mapping of `start` and `end` to one time each.
    /// - Throws: `APIFileError` naming the line.
    init(_ node: Node, file: String, environment: [String: String]) throws(APIFileError) {
        guard case .mapping(let mapping) = node else {
            throw APIFileError(file: file, node: node, "service_sends: a mapping of start and end to a time each")
        }
        for (key, value) in mapping {
            switch key.scalar?.string {
            case "start": start = try Self.owedTime(value, "start", Self.startTimes, file: file)
            case "end": end = try Self.owedTime(value, "end", Self.reportTimes, file: file)
            case "update":
                guard value.scalar?.string == "own" else {
                    throw APIFileError(
                        file: file,
                        node: value,
                        "service_sends.update: own (the service updates on its own schedule), or leave it out"
                    )
                }
                ownUpdates = true
            case let other:
                throw APIFileError(
                    file: file,
                    node: key,
                    "service_sends.\(other ?? "?"): unknown key; the service may send start, update and end on its own clock"
                )
            }
        }
    }

    /// The one time `node` says, of those in `allowed`.
    private static func owedTime(
        _ node: Node,
        _ name: String,
        _ allowed: Set<Placeholder>,
        file: String
    ) throws(APIFileError) -> OwedTime {
        let known = Placeholder.allCases.filter(allowed.contains).map { "{{\($0.rawValue)}}" }
        let why = "service_sends.\(name): one time of what the service was told, such as \"{{activity_end+10s}}\"; "
        guard let text = node.scalar?.string else { throw APIFileError(file: file, node: node, why + "not a mapping") }
        let template: TextTemplate
        do {
            template = try TextTemplate(parsing: text, environment: [:])
        } catch {
            throw APIFileError(file: file, node: node, "service_sends.\(name): \(error.message)")
        }
        let owed: OwedTime? =
            switch template.pieces.count == 1 ? template.pieces[0] : .literal(text) {
            case .placeholder(let base): OwedTime(base: base, offsetSeconds: 0)
            case .time(let base, let shape): OwedTime(base: base, offsetSeconds: shape.offsetSeconds)
            default: nil
            }
        guard let owed, allowed.contains(owed.base) else {
            throw APIFileError(
                file: file,
                node: node,
                why + "\(name == "start" ? "a start call" : "a token report") tells " + known.joined(separator: ", ")
            )
        }
        return owed
    }
}
