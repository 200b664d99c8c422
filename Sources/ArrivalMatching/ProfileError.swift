#if canImport(Glibc)
import Glibc
#endif

/// Why a profile could not be set up or measured.
public enum ProfileError: Error, CustomStringConvertible, Equatable {
    /// The user's input cannot be profiled: a command that does not exist, a scenario that
    /// broadcasts.
    case badInput(String)
    /// A system call failed; the message ends with the system's reason.
    case systemCall(String)
    /// A stop (Ctrl-C, SIGTERM) came before the sender started: what had been prepared is gone.
    case stoppedBeforeStart(String)

    /// `message` with `errno`'s text appended, for a call that just failed.
    public static func failure(_ message: String, errno code: Int32 = errno) -> ProfileError {
        .systemCall("\(message): \(String(cString: strerror(code)))")
    }

    public var description: String {
        switch self {
        case .badInput(let message), .systemCall(let message), .stoppedBeforeStart(let message): message
        }
    }
}
