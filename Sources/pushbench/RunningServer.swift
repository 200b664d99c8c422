import MockAPNs
import Synchronization

/// The mock server once it has started, for a signal handler that may run before it has.
final class RunningServer: Sendable {
    private let state = Mutex<(server: MockAPNsServer?, stopRequested: Bool)>((nil, false))

    /// Records the started server, and stops it at once if a stop came first.
    func started(_ server: MockAPNsServer) {
        let stopNow = state.withLock { state in
            state.server = server
            return state.stopRequested
        }
        if stopNow { server.shutdown() }
    }

    /// Stops the server, or has it stopped as soon as it starts.
    func shutdown() {
        let server = state.withLock { state in
            state.stopRequested = true
            return state.server
        }
        server?.shutdown()
    }
}
