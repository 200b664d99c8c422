import CProcess
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Why a sealed network could not be made, in one line a user can act on.
public enum SealError: Error, Equatable, CustomStringConvertible {
    /// A `--reach` that is not `HOST:PORT`.
    case badReach(String, String)
    /// A `--host NAME=ADDRESS` that names no usable stub.
    case badHost(String, String)
    /// The kernel lets this user make no user namespace, so no network of its own either.
    case noUserNamespaces(cause: String, remedy: String)
    /// A step of the setup failed with this errno.
    case setupFailed(step: String, errorNumber: Int32)
    /// The listening sockets never came back from inside.
    case noListeners(String)
    /// The files the inside sees could not be written.
    case files(String)

    public var description: String {
        switch self {
        case .badReach(let text, let problem): "--reach \(text): \(problem)"
        case .badHost(let text, let problem): "--host \(text): \(problem)"
        case .noUserNamespaces(let cause, let remedy):
            "--as-apple needs a network of its own, and \(cause), so a user that is not root cannot make one: \(remedy)"
        case .setupFailed(let step, let errorNumber):
            "--as-apple: cannot \(step): \(String(cString: strerror(errorNumber)))"
        case .noListeners(let detail): "--as-apple: the sealed network's listeners did not arrive: \(detail)"
        case .files(let detail): "--as-apple: \(detail)"
        }
    }

    /// What a failed step of `pb_seal_network` means: for `unshare` as a user that is not root,
    /// which of the kernel's settings forbids user namespaces, and how to allow them.
    static func failed(step: pb_seal_step, errorNumber: Int32, asRoot: Bool) -> SealError {
        switch step {
        case PB_SEAL_UNSHARE where !asRoot: return restriction(errorNumber: errorNumber)
        case PB_SEAL_UNSHARE: return .setupFailed(step: "make a network namespace", errorNumber: errorNumber)
        case PB_SEAL_ID_MAPS:
            return .setupFailed(step: "map this user to root in its namespace", errorNumber: errorNumber)
        case PB_SEAL_LOOPBACK: return .setupFailed(step: "bring its loopback up", errorNumber: errorNumber)
        case PB_SEAL_MOUNTS:
            return .setupFailed(step: "show it its own /etc/hosts and CA bundle", errorNumber: errorNumber)
        case PB_SEAL_LISTEN: return .setupFailed(step: "listen at Apple's names inside", errorNumber: errorNumber)
        default: return .setupFailed(step: "hand its listeners out", errorNumber: errorNumber)
        }
    }

    /// Which setting keeps a user that is not root from a user namespace, read from `/proc/sys`.
    private static func restriction(errorNumber: Int32) -> SealError {
        let settings: [(path: String, forbidding: String, name: String, remedy: String)] = [
            (
                "/proc/sys/kernel/unprivileged_userns_clone", "0", "kernel.unprivileged_userns_clone is 0",
                "sudo sysctl -w kernel.unprivileged_userns_clone=1"
            ),
            (
                "/proc/sys/user/max_user_namespaces", "0", "user.max_user_namespaces is 0",
                "sudo sysctl -w user.max_user_namespaces=15000"
            ),
            (
                "/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1",
                "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns is 1)",
                "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile for pushbench that allows userns"
            ),
        ]
        for setting in settings where Self.read(setting.path) == setting.forbidding {
            return .noUserNamespaces(cause: setting.name, remedy: "run profile as root, or \(setting.remedy)")
        }
        return .noUserNamespaces(
            cause: "the kernel refused one (\(String(cString: strerror(errorNumber))): in a container, its seccomp "
                + "profile or missing CAP_SYS_ADMIN)",
            remedy: "run profile as root, or run the container with user namespaces allowed (Docker: --security-opt "
                + "seccomp=unconfined, or --privileged)"
        )
    }

    /// The first line of a small file, or `nil`.
    private static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 64)
        guard fgets(&line, Int32(line.count), file) != nil else { return nil }
        return String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
