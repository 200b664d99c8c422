import Basics
import Foundation
import Wire
import Workload

extension FaultPlan {
    private static let fields: Set<String> = [
        "name", "seed", "latency", "latency_by_push_type", "error_rates", "stall", "goaway_after", "reset_after",
        "token_rate_limit", "retry_after", "incidents",
    ]
    private static let incidentFields: Set<String> = ["kind", "at", "for", "reason", "share", "delay"]

    /// Reads a named fault scenario from a JSON file (`pushbench mock --faults storm.json`), so an
    /// outage can be replayed exactly, run after run:
    ///
    /// ```json
    /// {"name": "storm", "seed": 7, "latency": "lognormal:20ms,0.5",
    ///  "latency_by_push_type": {"liveactivity": "empirical:50=8ms,99=40ms,100=120ms"},
    ///  "error_rates": {"ServiceUnavailable": 0.01},
    ///  "token_rate_limit": {"pushes": 10, "window": "60s"},
    ///  "incidents": [
    ///    {"kind": "errors", "at": "10s", "for": "5s", "reason": "ServiceUnavailable", "share": 0.5},
    ///    {"kind": "stall", "at": "20s", "for": "2s"},
    ///    {"kind": "hang", "at": "30s", "for": "3s"},
    ///    {"kind": "goaway", "at": "40s"},
    ///    {"kind": "reset", "at": "50s"},
    ///    {"kind": "slow_tls_accept", "at": "60s", "for": "10s", "delay": "2s"}]}
    /// ```
    ///
    /// Every field is optional; unknown ones are errors, so a misspelt incident cannot silently
    /// vanish. Durations take `us`, `ms` or `s`; an incident without `for` lasts until the mock
    /// stops (`goaway` and `reset` happen once, to the connections open then).
    /// - Throws: `MockFaultError` naming the file, the field and what is wrong.
    public static func load(_ path: String) throws -> FaultPlan {
        let data: Data
        do {
            data = Data(try InputFile.bytes(path, what: "faults file"))
        } catch {
            throw MockFaultError(error.description)
        }
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw MockFaultError("\(path): expected a JSON object of faults")
        }
        do {
            return try plan(root)
        } catch let error as MockFaultError {
            throw MockFaultError("\(path): \(error)")
        }
    }

    private static func plan(_ root: [String: Any]) throws -> FaultPlan {
        try checkFields(root, known: fields, in: "the faults")
        var plan = FaultPlan(seed: try value(root["seed"], as: UInt64.self, "seed") ?? 1)
        plan.name = try value(root["name"], as: String.self, "name")
        plan.latency =
            try value(root["latency"], as: String.self, "latency").map(InjectedLatency.init(parsing:)) ?? .none
        for (type, text) in try value(root["latency_by_push_type"], as: [String: String].self, "latency_by_push_type")
            ?? [:]
        {
            guard let pushType = PushType(rawValue: type) else {
                throw MockFaultError("latency_by_push_type: '\(type)' is not a push type")
            }
            plan.latencyByPushType[pushType] = try InjectedLatency(parsing: text)
        }
        for (reason, share) in try value(root["error_rates"], as: [String: Double].self, "error_rates") ?? [:] {
            let (parsed, rate) = try errorRate(parsing: "\(reason)=\(share)")
            plan.errorRates[parsed] = rate
        }
        plan.stall = try value(root["stall"], as: String.self, "stall").map(stall(parsing:))
        plan.goAwayAfter = try positive(root["goaway_after"], "goaway_after")
        plan.resetAfter = try positive(root["reset_after"], "reset_after")
        plan.retryAfterSeconds = try seconds(root["retry_after"], "retry_after").map { Int($0.rounded(.up)) }
        if let limit = try value(root["token_rate_limit"], as: [String: Any].self, "token_rate_limit") {
            try checkFields(limit, known: ["pushes", "window"], in: "token_rate_limit")
            guard let pushes = try positive(limit["pushes"], "token_rate_limit.pushes"),
                let window = try seconds(limit["window"], "token_rate_limit.window"), window > 0
            else { throw MockFaultError("token_rate_limit needs pushes (at least 1) and a window, such as 60s") }
            plan.tokenRateLimit = TokenRateLimit(pushes: pushes, windowSeconds: window)
        }
        let incidents = try value(root["incidents"], as: [Any].self, "incidents") ?? []
        plan.incidents = try incidents.enumerated().map { index, entry in
            do {
                return try incident(entry)
            } catch let error as MockFaultError {
                throw MockFaultError("incident \(index + 1): \(error)")
            }
        }
        return plan
    }

    private static func incident(_ entry: Any) throws -> Incident {
        guard let entry = entry as? [String: Any] else { throw MockFaultError("not an object") }
        try checkFields(entry, known: incidentFields, in: "the incident")
        guard let at = try seconds(entry["at"], "at") else { throw MockFaultError("needs at, such as 10s") }
        let length = try seconds(entry["for"], "for")
        if let length, length <= 0 { throw MockFaultError("for must be positive") }
        let kind: Incident.Kind
        switch try value(entry["kind"], as: String.self, "kind") {
        case "errors":
            let name = try value(entry["reason"], as: String.self, "reason") ?? ""
            guard let reason = APNsReason(rawValue: name), injectableReasons.contains(reason) else {
                throw MockFaultError(
                    "errors needs a reason, one of " + injectableReasons.map(\.rawValue).joined(separator: ", ")
                )
            }
            let share = try value(entry["share"], as: Double.self, "share") ?? 1
            guard (0...1).contains(share) else { throw MockFaultError("share must be from 0 to 1") }
            kind = .errors(reason, share: share)
        case "stall": kind = .stall
        case "hang": kind = .hang
        case "goaway": kind = .goAway
        case "reset": kind = .reset
        case "slow_tls_accept":
            guard let delay = try seconds(entry["delay"], "delay"), delay > 0 else {
                throw MockFaultError("slow_tls_accept needs a delay, such as 2s")
            }
            kind = .slowTLSAccept(delaySeconds: delay)
        default:
            throw MockFaultError("kind must be errors, stall, hang, goaway, reset or slow_tls_accept")
        }
        return Incident(kind, atSeconds: at, forSeconds: length)
    }

    private static func checkFields(_ object: [String: Any], known: Set<String>, in place: String) throws {
        if let unknown = object.keys.filter({ !known.contains($0) }).sorted().first {
            throw MockFaultError(
                "unknown field '\(unknown)' in \(place) (known: \(known.sorted().joined(separator: ", ")))"
            )
        }
    }

    /// `raw` as a `T`, `nil` when absent.
    private static func value<T>(_ raw: Any?, as type: T.Type, _ field: String) throws -> T? {
        guard let raw else { return nil }
        if T.self == UInt64.self, let number = raw as? NSNumber, number.int64Value >= 0 {
            return UInt64(number.int64Value) as? T
        }
        guard let typed = raw as? T else { throw MockFaultError("\(field) has the wrong type") }
        return typed
    }

    private static func positive(_ raw: Any?, _ field: String) throws -> Int? {
        guard let count = try value(raw, as: Int.self, field) else { return nil }
        guard count >= 1 else { throw MockFaultError("\(field) must be at least 1") }
        return count
    }

    private static func seconds(_ raw: Any?, _ field: String) throws -> Double? {
        try value(raw, as: String.self, field).map { try InjectedLatency.micros($0) / 1e6 }
    }
}
