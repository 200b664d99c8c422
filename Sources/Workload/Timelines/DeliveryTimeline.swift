/// A food delivery: confirmed, preparing (with an ETA every minute), picked up, on the way
/// (ETA every minute), arriving, delivered.
///
/// The durations are illustrative, not sourced: preparation 8–20 minutes and travel 10–30
/// minutes, the range food-delivery apps quote; override them by choosing another kind or
/// priorities in a scenario file. State: `status` (1 confirmed, 2 preparing, 3 on the way,
/// 4 arriving, 5 delivered),
/// `etaMinutes`, `distanceMeters`.
struct DeliveryTimeline: Sendable {
    private var status: Int32 = 0
    private var nowMs: Int64 = 0
    private var preparingLeft: Int
    private var travelLeft: Int
    private let travelMinutes: Int

    init(random: inout SplitMix64) {
        preparingLeft = random.nextInt(in: 8...20)
        travelMinutes = random.nextInt(in: 10...30)
        travelLeft = travelMinutes
    }

    static let initialState = ContentState(0, 45, 0, 0)

    private var eta: Int32 { Int32(preparingLeft + travelLeft) }
    private var distance: Int32 { Int32(travelLeft * 400) }

    private func step(_ kind: EventKind, phase: LifecyclePhase = .update) -> TimelineStep {
        TimelineStep(
            offsetMs: nowMs,
            kind: kind,
            phase: phase,
            state: ContentState(status, eta, distance, 0),
            alert: kind == .status || phase == .end
        )
    }

    mutating func next(_ random: inout SplitMix64) -> TimelineStep? {
        switch status {
        case 0, 1:
            status += 1
            nowMs += status == 1 ? 30_000 : 60_000
            return step(.status)
        case 2 where preparingLeft > 0:
            nowMs += 60_000
            preparingLeft -= 1
            return preparingLeft == 0 ? next(&random) : step(.eta)
        case 2:
            status = 3
            return step(.status)
        case 3 where travelLeft > 2:
            nowMs += 60_000
            travelLeft -= 1
            return step(.eta)
        case 3:
            status = 4
            nowMs += 60_000
            return step(.status)
        case 4:
            status = 5
            nowMs += 2 * 60_000
            travelLeft = 0
            return step(.finish, phase: .end)
        default:
            return nil
        }
    }
}
