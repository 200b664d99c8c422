/// A file upload: progress every second until done.
///
/// Illustrative numbers, not sourced: files of 20–2000 MB at 5–50 MB/s, at most 10 minutes.
/// State: `percent`, `sentMegabytes`, `totalMegabytes`, `secondsLeft`.
struct UploadTimeline: Sendable {
    private var second = 0
    private let seconds: Int
    private let totalMegabytes: Int

    init(random: inout SplitMix64) {
        let size = random.nextInt(in: 20...2000)
        let rate = random.nextInt(in: 5...50)
        totalMegabytes = size
        seconds = min(600, max(2, size / rate))
    }

    static let initialState = ContentState(0, 0, 0, 0)

    mutating func next(_ random: inout SplitMix64) -> TimelineStep? {
        guard second < seconds else { return nil }
        second += 1
        let done = second == seconds
        return TimelineStep(
            offsetMs: Int64(second) * 1000,
            kind: done ? .complete : .progress,
            phase: done ? .end : .update,
            state: ContentState(
                Int32(second * 100 / seconds),
                Int32(totalMegabytes * second / seconds),
                Int32(totalMegabytes),
                Int32(seconds - second)
            ),
            alert: done
        )
    }
}
