import Workload

/// A worker's requests in flight, by tag (the number the transport hands back with each
/// answer): which event each one sends, which attempt it is, and whether it was meant for the
/// warmup. A tag is free again when its answer arrives.
struct InFlightRequests {
    /// One request in flight.
    struct Request {
        /// The scenario event it sends.
        var event: WorkloadEvent
        /// Its number among the worker's events (`SettledEvents`).
        var sequence: Int
        /// 0 for a first attempt, then 1, 2, … for retries.
        var attempt: Int
        /// Its `apns-id` and the time its payload was made, which a retry sends again.
        var identity: PushIdentity
        /// Whether it was meant to leave during the warmup, so its answer is counted apart.
        var inWarmup = false
    }

    private var requests: [Request?]
    private var freeTags: [Int]
    /// How many of them were meant for the warmup.
    private(set) var inWarmup = 0

    /// Room for `capacity` requests, one per stream of the worker's connections.
    init(capacity: Int) {
        requests = Array(repeating: nil, count: capacity)
        freeTags = Array((0..<capacity).reversed())
    }

    /// Takes a free tag for attempt `attempt` of `event`, number `sequence` of the worker's.
    mutating func add(_ event: WorkloadEvent, sequence: Int, attempt: Int, identity: PushIdentity) -> Int {
        let tag = freeTags.removeLast()
        requests[tag] = Request(event: event, sequence: sequence, attempt: attempt, identity: identity)
        return tag
    }

    /// Marks the request under `tag` as one of the warmup's.
    mutating func markWarmup(_ tag: Int) {
        requests[tag]!.inWarmup = true
        inWarmup += 1
    }

    /// How many of them are broadcasts meant for after the warmup: what a drain abandons of
    /// the broadcast books.
    var measuredBroadcasts: Int {
        requests.count { $0.map { !$0.inWarmup && $0.event.isBroadcast } ?? false }
    }

    /// The request under `tag`, whose answer has come; the tag is free again.
    mutating func remove(_ tag: Int) -> Request {
        let request = requests[tag]!
        requests[tag] = nil
        freeTags.append(tag)
        if request.inWarmup { inWarmup -= 1 }
        return request
    }
}

/// What makes a retry the same push as its first attempt: the same `apns-id` (so APNs and the
/// sender doctor can tell it is one) and the same payload, made at the same time.
struct PushIdentity {
    var apnsID: (high: UInt64, low: UInt64)
    /// UNIX seconds the payload's timestamps were made from.
    var preparedAt: Int64
}
