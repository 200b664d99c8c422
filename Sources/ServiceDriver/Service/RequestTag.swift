import DeviceEmulation

/// What a request to the service is, carried through `ServiceClient` as its integer tag so that
/// its answer finds it again: a registration, an operator's call, or a device's own request.
/// The one place that integer is written and read: its low three bits are the kind, the rest
/// the number of the registration, the call or the device.
enum RequestTag: Equatable, Sendable {
    /// The registration of activity (or push-to-start device) `n`.
    case registration(Int)
    /// The operator's event call `n` (`ServiceWorkload.calls`).
    case call(Int)
    /// The operator's start call `n` (`ServiceWorkload.starts`).
    case start(Int)
    /// A device's request.
    case device(DeviceFleet.DeviceRequest)

    /// The kinds, as the tag's low bits hold them.
    private enum Kind: Int {
        case registration, call, start, tokenReport, rotatedTokenReport, close, startToken, reissuedStartToken
    }

    private static let kindBits = 3

    /// The integer `ServiceClient` carries.
    var rawValue: Int {
        let (kind, number): (Kind, Int) =
            switch self {
            case .registration(let number): (.registration, number)
            case .call(let number): (.call, number)
            case .start(let number): (.start, number)
            case .device(.tokenReport(let activity, let rotated)):
                (rotated ? .rotatedTokenReport : .tokenReport, activity)
            case .device(.close(let activity)): (.close, activity)
            case .device(.startToken(let activity, let reissued)):
                (reissued ? .reissuedStartToken : .startToken, activity)
            }
        return number << Self.kindBits | kind.rawValue
    }

    /// The request a tag names.
    init(rawValue: Int) {
        let number = rawValue >> Self.kindBits
        switch Kind(rawValue: rawValue & (1 << Self.kindBits - 1))! {
        case .registration: self = .registration(number)
        case .call: self = .call(number)
        case .start: self = .start(number)
        case .tokenReport: self = .device(.tokenReport(activity: number, rotated: false))
        case .rotatedTokenReport: self = .device(.tokenReport(activity: number, rotated: true))
        case .close: self = .device(.close(activity: number))
        case .startToken: self = .device(.startToken(activity: number, reissued: false))
        case .reissuedStartToken: self = .device(.startToken(activity: number, reissued: true))
        }
    }
}
