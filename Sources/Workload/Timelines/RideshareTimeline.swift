/// A ride: driver assigned, approaching with a position and ETA every 5 seconds, arrived, on
/// the trip with a position every 10 seconds, dropped off.
///
/// Illustrative numbers, not sourced: pickup in 3–8 minutes, a 1–2 minute wait, a trip of
/// 8–25 minutes; ride apps refresh the driver's position every few seconds. State: `status`
/// (1 assigned, 2 arrived, 3 on trip, 4 dropped off), `etaSeconds`, `distanceMeters`.
struct RideshareTimeline: Sendable {
    private var status: Int32 = 0
    private var nowMs: Int64 = 0
    private var secondsLeft: Int
    private let tripSeconds: Int

    init(random: inout SplitMix64) {
        secondsLeft = random.nextInt(in: 3...8) * 60
        tripSeconds = random.nextInt(in: 8...25) * 60
    }

    static let initialState = ContentState(0, 300, 2000, 0)

    private func step(_ kind: EventKind, phase: LifecyclePhase = .update) -> TimelineStep {
        TimelineStep(
            offsetMs: nowMs,
            kind: kind,
            phase: phase,
            state: ContentState(status, Int32(secondsLeft), Int32(secondsLeft * 7), 0),
            alert: kind == .status || phase == .end
        )
    }

    mutating func next(_ random: inout SplitMix64) -> TimelineStep? {
        switch status {
        case 0:
            status = 1
            return step(.status)
        case 1 where secondsLeft > 0, 3 where secondsLeft > 0:
            let tick = status == 1 ? 5 : 10
            nowMs += Int64(min(tick, secondsLeft)) * 1000
            secondsLeft = max(0, secondsLeft - tick)
            return step(.position)
        case 1:
            status = 2
            return step(.status)
        case 2:
            status = 3
            nowMs += Int64(random.nextInt(in: 60...120)) * 1000
            secondsLeft = tripSeconds
            return step(.status)
        case 3:
            status = 4
            return step(.finish, phase: .end)
        default:
            return nil
        }
    }
}
