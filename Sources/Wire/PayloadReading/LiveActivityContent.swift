/// What a device would make of a Live Activity push that APNs accepts.
///
/// APNs checks headers, not the `aps` content of a Live Activity push: a payload the device
/// cannot use still gets 200 and is dropped on the device, silently. The mock counts those
/// (`live_activity_would_drop` in `/stats`) and, with `--strict-content`, rejects them instead
/// with its own reason, `MockRejectedLiveActivity`. The rules follow ActivityKit's push
/// documentation (`docs/apns.md` §3.2).
package enum LiveActivityContent {
    /// Why a device would drop the payload, or `nil` when it would use it.
    package static func problem(in body: [UInt8]) -> String? {
        assess(body).problem
    }

    /// Why a device would drop the payload, and how a payload it would use still differs from
    /// ActivityKit's documentation, from one scan of the payload: `timestamp_in_milliseconds`
    /// for an `aps.timestamp` of 12 digits or more (seconds reach 12 digits in the year 5138),
    /// a common bug that makes every update sent in seconds afterwards look stale to the device.
    /// A start that a device would use also says which broadcast channel it subscribes to. The
    /// members walked come back too, so that recording the push walks it no more.
    package static func assess(
        _ body: [UInt8]
    ) -> (problem: String?, irregularity: String?, subscribesTo: String?, aps: APSMembers?) {
        guard let aps = APSMembers(json: body) else { return ("NoApsObject", nil, nil, nil) }
        if let problem = problem(of: aps) { return (problem, nil, nil, aps) }
        return (
            nil, aps.timestampDigits >= 12 ? "timestamp_in_milliseconds" : nil,
            aps.event == "start" ? aps.inputPushChannel : nil, aps
        )
    }

    private static func problem(of aps: APSMembers) -> String? {
        guard aps.names.contains(.event) else { return "MissingEvent" }
        guard let event = aps.event, ["start", "update", "end"].contains(event) else { return "UnknownEvent" }
        guard aps.names.contains(.timestamp) else { return "MissingTimestamp" }
        guard aps.names.contains(.contentState) else { return "MissingContentState" }
        if event == "start" {
            guard aps.names.contains(.attributesType) else { return "StartWithoutAttributesType" }
            guard aps.names.contains(.attributes) else { return "StartWithoutAttributes" }
            guard aps.names.contains(.alert) else { return "StartWithoutAlert" }
        }
        if aps.names.contains(.dismissalDate) && event != "end" { return "DismissalDateWithoutEnd" }
        return nil
    }
}
