import CProcess
import CSockets
import Dispatch
import Foundation
import HeapModule
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One thread serving sockets: an epoll loop over listening sockets and the connections it
/// accepted, with timers (the mock's held answers, handshake deadlines, GOAWAY's close) and a way
/// for other threads to hand it work. Everything it owns is touched only on its thread.
///
/// The mock runs one a thread, and a run's metrics port one of its own: a C server's shape, so
/// that neither pays for a general-purpose runtime.
package final class EventLoop: @unchecked Sendable {
    /// The loop's position among its server's, which names its thread.
    package let index: Int
    /// What each read lands in: one buffer a loop, since a connection consumes its input whole
    /// before the next read.
    package var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    private let epoll: Int32
    private let wake: Int32
    private var connections: [UInt64: any LoopClient] = [:]
    private var listeners: [UInt64: (descriptor: Int32, accept: (EventLoop, Int32) -> Void)] = [:]
    private var timers = Heap<Timer>()
    private var timerSequence: UInt64 = 0
    private var nextTag: UInt64 = 1
    private let inbox = Mutex<[@Sendable () -> Void]>([])
    private let stopping = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)

    /// The tag of the wake-up eventfd; connections count up from 1, listeners down from here.
    private static let wakeTag = UInt64.max

    /// A loop not yet running; `start` runs it on a thread of its own.
    /// - Throws: `ListenerError.unusable` when the system has no epoll or eventfd to give.
    package init(index: Int) throws(ListenerError) {
        self.index = index
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        wake = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard epoll >= 0, wake >= 0 else { throw ListenerError.unusable("epoll: \(errnoWords())") }
        _ = pb_epoll_control(epoll, EPOLL_CTL_ADD, wake, EPOLLIN.rawValue, Self.wakeTag)
    }

    /// Runs the loop on a new thread named `prefix` and its index, which first runs `prepare`
    /// (the mock claims its counters' lane there).
    package func start(namePrefix prefix: String, prepare: @escaping @Sendable (Int) -> Void = { _ in }) {
        let thread = Thread { [self] in
            _ = pb_set_thread_name("\(prefix)\(index)")
            prepare(index)
            run()
            finished.signal()
        }
        thread.start()
    }

    /// Stops the loop from any thread: every connection is closed, and this returns once the
    /// thread has finished.
    package func stop() {
        stopping.store(true, ordering: .releasing)
        signalWake()
        finished.wait()
    }

    /// Runs `task` on the loop's thread at its next turn; callable from any thread.
    package func execute(_ task: @escaping @Sendable () -> Void) {
        inbox.withLock { $0.append(task) }
        signalWake()
    }

    /// Runs `action` on this thread `nanos` from now (at the loop's next turn for 0).
    package func schedule(afterNanos nanos: UInt64, _ action: @escaping () -> Void) {
        timerSequence += 1
        timers.insert(Timer(deadline: Self.now() &+ nanos, sequence: timerSequence, action: action))
    }

    /// Accepts on `descriptor` (non-blocking, shared by every loop with EPOLLEXCLUSIVE) with
    /// `accept` when a client waits.
    package func listen(on descriptor: Int32, accept: @escaping (EventLoop, Int32) -> Void) {
        let tag = Self.wakeTag - 1 - UInt64(listeners.count)
        listeners[tag] = (descriptor, accept)
        _ = pb_epoll_control(epoll, EPOLL_CTL_ADD, descriptor, EPOLLIN.rawValue | EPOLLEXCLUSIVE.rawValue, tag)
    }

    /// Watches `connection`'s socket for `events` from now on; returns its tag.
    package func watch(_ connection: any LoopClient, descriptor: Int32, events: UInt32) -> UInt64 {
        let tag = nextTag
        nextTag += 1
        connections[tag] = connection
        _ = pb_epoll_control(epoll, EPOLL_CTL_ADD, descriptor, events, tag)
        return tag
    }

    /// Changes what the connection `tag` is watched for.
    package func rewatch(_ tag: UInt64, descriptor: Int32, events: UInt32) {
        _ = pb_epoll_control(epoll, EPOLL_CTL_MOD, descriptor, events, tag)
    }

    /// Forgets the connection `tag`, whose socket is about to close.
    package func forget(_ tag: UInt64, descriptor: Int32) {
        _ = pb_epoll_control(epoll, EPOLL_CTL_DEL, descriptor, 0, tag)
        connections[tag] = nil
    }

    /// Monotonic nanoseconds, the clock timers run on.
    package static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    private func run() {
        var tags = [UInt64](repeating: 0, count: 256)
        var masks = [UInt32](repeating: 0, count: 256)
        while !stopping.load(ordering: .acquiring) {
            let count = pb_epoll_wait(epoll, &tags, &masks, 256, waitMillis())
            for index in 0..<max(0, Int(count)) {
                let tag = tags[index]
                if tag == Self.wakeTag {
                    drainInbox()
                } else if let listener = listeners[tag] {
                    listener.accept(self, listener.descriptor)
                } else {
                    connections[tag]?.handle(events: masks[index])
                }
            }
            runDueTimers()
        }
        for connection in Array(connections.values) { connection.close() }
        // Every timer still runs once, after its connection has closed, so that an answer held
        // for later is counted as never written rather than lost with the heap.
        while !timers.isEmpty { timers.removeMin().action() }
        Glibc.close(epoll)
        Glibc.close(wake)
    }

    /// Milliseconds until the next timer (rounded up), or -1 to wait for sockets alone.
    private func waitMillis() -> Int32 {
        guard let next = timers.min else { return -1 }
        let now = Self.now()
        guard next.deadline > now else { return 0 }
        return Int32(min((next.deadline - now + 999_999) / 1_000_000, 60_000))
    }

    private func runDueTimers() {
        let now = Self.now()
        while let next = timers.min, next.deadline <= now {
            timers.removeMin().action()
        }
    }

    private func drainInbox() {
        var counter: UInt64 = 0
        _ = read(wake, &counter, 8)
        for task in inbox.withLock({ tasks in
            defer { tasks.removeAll() }
            return tasks
        }) { task() }
    }

    private func signalWake() {
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
    }

    /// Work due at a moment, ordered by it (and by scheduling, at the same nanosecond).
    private struct Timer: Comparable {
        let deadline: UInt64
        let sequence: UInt64
        let action: () -> Void

        static func < (left: Timer, right: Timer) -> Bool {
            (left.deadline, left.sequence) < (right.deadline, right.sequence)
        }

        static func == (left: Timer, right: Timer) -> Bool {
            left.deadline == right.deadline && left.sequence == right.sequence
        }
    }
}

/// What an event loop watches: a socket whose readiness it hands over, closed when the loop stops.
package protocol LoopClient: AnyObject {
    /// What epoll saw on the socket (`EPOLLIN`, `EPOLLOUT`, `EPOLLHUP`, `EPOLLERR`).
    func handle(events: UInt32)
    /// Closes the socket and forgets it on the loop.
    func close()
}

/// The words for `errno`.
package func errnoWords() -> String { String(cString: strerror(errno)) }
