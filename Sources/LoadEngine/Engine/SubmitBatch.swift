import Basics
import Transport

/// In closed loop, how a worker refills its streams: in batches, not one push per answer.
///
/// A sender faster than its target gets its answers one or two at a time, and refilling the
/// streams they free at once costs a TLS record and a `write` for every push or two (91,000
/// writes for 200,000 pushes against nginx at 1×100, `perf stat`). Holding new pushes until an
/// eighth of the streams are free, for at most `holdNanos`, puts a batch into each write: 15,000
/// writes for the same run, with 5-7% more pushes a second and 3-4% less CPU per push
/// (`Benchmarks/h2load-compare.sh`; `Benchmarks/README.md` has the figures).
///
/// What it does not change: latency runs from the instant a push is handed over, so a held push
/// is not timed while it waits; answers are read as soon as they arrive; a retry that is due is
/// not held; open loop sends every push at its intended time; and a worker with fewer than 16
/// streams, or nothing in flight, refills at once. Against a distant target (tens of
/// milliseconds a round trip) the hold is under 1% of it.
struct SubmitBatch {
    /// The longest a free stream waits for others by default: 100 µs, a fraction of even a
    /// loopback round trip under load.
    static let defaultHold: Duration = .microseconds(100)

    /// Free streams that make a batch: an eighth of the worker's, or 1 (no batching).
    let size: Int
    /// The longest a free stream waits for others.
    let holdNanos: UInt64
    /// Since when new pushes have been held, if they are.
    private var heldSince: UInt64?

    /// Batches for a closed-loop worker with `streams` streams in all; none in open loop.
    init(streams: Int, closedLoop: Bool, holdNanos: UInt64 = defaultHold.inNanoseconds) {
        size = closedLoop ? max(1, streams / 8) : 1
        self.holdNanos = holdNanos
    }

    /// Whether new pushes wait now: some streams free but fewer than a batch (or than the
    /// `pushesLeft` to send), others in flight whose answers will free more, and the hold, which
    /// starts when the first of them is free, not yet over.
    mutating func holds(now: UInt64, idleSlots: Int, inFlight: Int, pushesLeft: Int) -> Bool {
        guard inFlight > 0, idleSlots > 0, idleSlots < min(size, pushesLeft) else {
            heldSince = nil
            return false
        }
        let since = heldSince ?? now
        guard now &- since < holdNanos else {
            heldSince = nil
            return false
        }
        heldSince = since
        return true
    }

    /// When the current hold ends, if new pushes are held.
    var holdEnds: UInt64? { heldSince.map { $0 &+ holdNanos } }
}
