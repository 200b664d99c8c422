/// The built-in kinds of Live Activity, each a small timeline model.
public enum ActivityKind: String, Sendable, CaseIterable {
    /// A football match, fanned out to everyone following it.
    case football
    /// A food delivery.
    case delivery
    /// A ride-share pickup and trip.
    case rideshare
    /// A file upload.
    case upload
    /// A flash-sale countdown and stock.
    case flashSale = "flash-sale"

    /// One line about the kind, for `pushbench scenarios`.
    public var summary: String {
        switch self {
        case .football:
            "a match: kick-off, minute ticks, goals (Poisson, 2.7/match), cards, half-time, full-time end"
        case .delivery: "a food order: status changes and an ETA every minute until delivered"
        case .rideshare: "a ride: driver position every 5 s while approaching, every 10 s on the trip"
        case .upload: "a file upload: progress every second until done (at most 10 minutes)"
        case .flashSale: "a sale: countdown every minute for 30 minutes, then stock every 30 s until sold out"
        }
    }

    /// The `content-state` keys of the kind's `ContentState` values, in order.
    public var stateFields: [String] {
        switch self {
        case .football: ["homeScore", "awayScore", "minute", "period"]
        case .delivery: ["status", "etaMinutes", "distanceMeters"]
        case .rideshare: ["status", "etaSeconds", "distanceMeters"]
        case .upload: ["percent", "sentMegabytes", "totalMegabytes", "secondsLeft"]
        case .flashSale: ["secondsToOpen", "itemsLeft", "discountPercent", "open"]
        }
    }

    /// The `ActivityAttributes` type name an app of the kind declares: a start push must name it
    /// in `attributes-type`, or the device starts nothing.
    public var attributesType: String {
        switch self {
        case .football: "MatchAttributes"
        case .delivery: "DeliveryAttributes"
        case .rideshare: "RideAttributes"
        case .upload: "UploadAttributes"
        case .flashSale: "FlashSaleAttributes"
        }
    }

    /// The event kinds the kind's timeline produces, besides `start` and `limit`.
    public var eventKinds: [EventKind] {
        switch self {
        case .football: [.kickOff, .minute, .goal, .card, .halfTime, .fullTime]
        case .delivery: [.status, .eta, .finish]
        case .rideshare: [.status, .position, .finish]
        case .upload: [.progress, .complete]
        case .flashSale: [.countdown, .status, .stock, .finish]
        }
    }

    /// The events people wait for, as opposed to ticks: the match's whistles and goals, a
    /// status change, the end. Budget recommendations keep these quick to show.
    public var keyEventKinds: [EventKind] {
        switch self {
        case .football: [.kickOff, .goal, .halfTime, .fullTime]
        case .delivery, .rideshare: [.status, .finish]
        case .upload: [.complete]
        case .flashSale: [.status, .finish]
        }
    }

    /// The priorities a careful sender uses (Apple: 5 unless the user must see it now,
    /// `docs/apns.md` §3.6): 10 for starts, limit ends and key events, 5 for
    /// ticks.
    public var defaultPriorities: [EventKind: Int] {
        var priorities: [EventKind: Int] = [.start: 10, .limit: 10]
        for kind in eventKinds { priorities[kind] = keyEventKinds.contains(kind) ? 10 : 5 }
        return priorities
    }

    /// The state a `start` push shows.
    var initialState: ContentState {
        switch self {
        case .football: FootballTimeline.initialState
        case .delivery: DeliveryTimeline.initialState
        case .rideshare: RideshareTimeline.initialState
        case .upload: UploadTimeline.initialState
        case .flashSale: FlashSaleTimeline.initialState
        }
    }
}

/// One group's timeline, whichever its kind; an enum rather than a protocol so that stepping
/// it costs a switch, not an existential call.
enum ActivityTimeline: Sendable {
    case football(FootballTimeline)
    case delivery(DeliveryTimeline)
    case rideshare(RideshareTimeline)
    case upload(UploadTimeline)
    case flashSale(FlashSaleTimeline)

    init(_ kind: ActivityKind, random: inout SplitMix64) {
        switch kind {
        case .football: self = .football(FootballTimeline(random: &random))
        case .delivery: self = .delivery(DeliveryTimeline(random: &random))
        case .rideshare: self = .rideshare(RideshareTimeline(random: &random))
        case .upload: self = .upload(UploadTimeline(random: &random))
        case .flashSale: self = .flashSale(FlashSaleTimeline(random: &random))
        }
    }

    mutating func next(_ random: inout SplitMix64) -> TimelineStep? {
        switch self {
        case .football(var timeline):
            defer { self = .football(timeline) }
            return timeline.next(&random)
        case .delivery(var timeline):
            defer { self = .delivery(timeline) }
            return timeline.next(&random)
        case .rideshare(var timeline):
            defer { self = .rideshare(timeline) }
            return timeline.next(&random)
        case .upload(var timeline):
            defer { self = .upload(timeline) }
            return timeline.next(&random)
        case .flashSale(var timeline):
            defer { self = .flashSale(timeline) }
            return timeline.next(&random)
        }
    }
}
