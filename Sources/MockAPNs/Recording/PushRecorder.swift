import Arrivals
import Encodings
import Foundation
import Synchronization
import Wire
import Workload

#if canImport(Glibc)
import Glibc
#endif

/// Appends every push the mock answers to a traffic file, one `TrafficRecord` line each (what
/// arrived, on which connection, and the answer), so a team can point its own sender at the
/// mock, see what it really sent, and run `pushbench budget --traffic` over the accepted pushes.
///
/// Lines are buffered and written in 64 KiB blocks; `close` writes the rest. A failed write
/// (a full disk) stops the recording, keeps the mock serving, and is reported by `close`.
public final class PushRecorder: Sendable {
    private struct State {
        var descriptor: Int32
        var buffer: [UInt8] = []
        var recorded = 0
        var failure: String?
    }

    /// Called with each push as it is recorded, decoded once as an `Arrival` (when it arrived on
    /// the monotonic clock, its answer, event, tag and digest), on the thread that answered it:
    /// `pushbench profile` matches arrivals to its schedule live, on its one clock, at a finer
    /// resolution than the file's milliseconds, and by a tag the body may carry.
    public typealias Observer = @Sendable (Arrival) -> Void

    /// The file being written.
    public let path: String
    private let state: Mutex<State>
    private let observer: Observer?
    private static let blockBytes = 64 * 1024

    /// Creates (or truncates) `path` and writes the header line; `observer` sees every push.
    /// - Throws: `MockAPNsStartError.unusableRecording` with the system's reason.
    public init(path: String, observer: Observer? = nil) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw MockAPNsStartError.unusableRecording("\(path): \(String(cString: strerror(errno)))")
        }
        self.path = path
        self.observer = observer
        state = Mutex(State(descriptor: descriptor, buffer: Array((TrafficRecord.header + "\n").utf8)))
    }

    /// Pushes recorded so far.
    public var recorded: Int { state.withLock { $0.recorded } }

    /// Records an answered push: its headers, size, the answer, and the Live Activity fields
    /// of its payload's `aps` (`walked`, when the content checks walked them already); with
    /// digests of its provider token and body, never the token.
    func record(
        _ push: InboundPush,
        status: Int,
        reason: APNsReason?,
        issuedAt: Int64? = nil,
        retryAfterSeconds: Int? = nil,
        walked: APSMembers? = nil
    ) {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let receivedMs = Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
        // Walked, not parsed: a full JSON parse was most of a recorded push's cost to the mock.
        let aps = walked ?? APSMembers(json: push.body)
        let event = aps?.event.flatMap(LifecyclePhase.init(rawValue:))
        let deviceToken = push.path.hasPrefix("/3/device/") ? String(push.path.dropFirst("/3/device/".count)) : ""
        let priority = push.priority.flatMap { Int($0) } ?? 10
        let arrival =
            observer == nil
            ? nil
            : Arrival(
                receivedNs: Self.monotonicNs(),
                deviceToken: deviceToken,
                status: status,
                reason: reason,
                event: event,
                priority: priority,
                body: push.body
            )
        let digest = arrival?.payloadDigest ?? FNV1a.hash(push.body)
        let record = TrafficRecord(
            receivedMs: receivedMs,
            connection: push.connection,
            deviceToken: deviceToken,
            pushType: push.pushType ?? "",
            topic: push.topic ?? "",
            priority: priority,
            expiration: push.expiration ?? "",
            collapseID: push.collapseID ?? "",
            payloadBytes: push.bodyLength,
            status: status,
            reason: reason?.rawValue ?? "",
            event: event,
            timestampSeconds: aps?.timestamp,
            staleDateSeconds: aps?.staleDate,
            dismissalDateSeconds: aps?.dismissalDate,
            providerToken: push.authorization.map { FNV1a.hex($0.utf8) } ?? "",
            issuedAtSeconds: issuedAt,
            streamsOpen: push.streamsOpen,
            apnsID: push.apnsID ?? "",
            payloadDigest: push.body.isEmpty ? "" : FNV1a.hex(digest: digest),
            retryAfterSeconds: retryAfterSeconds
        )
        append(record)
        if let observer, let arrival { observer(arrival) }
    }

    /// Appends `record`'s line to the buffer, writing the buffer out once it holds a block.
    private func append(_ record: TrafficRecord) {
        state.withLock { state in
            guard state.failure == nil else { return }
            record.appendCSVLine(to: &state.buffer)
            state.buffer.append(UInt8(ascii: "\n"))
            state.recorded += 1
            if state.buffer.count >= Self.blockBytes { Self.flush(&state) }
        }
    }

    /// Now on the monotonic clock, in nanoseconds: the profile's one clock.
    private static func monotonicNs() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    /// Writes what is buffered and closes the file.
    /// - Returns: how many pushes were recorded.
    /// - Throws: `MockAPNsStartError.unusableRecording` if a write failed; the file then holds
    ///   the pushes before the failure.
    @discardableResult
    public func close() throws -> Int {
        let (recorded, failure) = state.withLock { state -> (Int, String?) in
            if state.descriptor >= 0 {
                Self.flush(&state)
                Glibc.close(state.descriptor)
                state.descriptor = -1
            }
            return (state.recorded, state.failure)
        }
        if let failure { throw MockAPNsStartError.unusableRecording(failure) }
        return recorded
    }

    private static func flush(_ state: inout State) {
        guard state.failure == nil, state.descriptor >= 0 else { return }
        let descriptor = state.descriptor
        if let reason = state.buffer.withUnsafeBytes({ FileWrite.all($0, to: descriptor) }) {
            state.failure = "recording stopped after \(state.recorded) pushes: \(reason)"
        }
        state.buffer.removeAll(keepingCapacity: true)
    }
}
