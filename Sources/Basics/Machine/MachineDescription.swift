import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The machine a figure was measured on: cores, memory, kernel, architecture, host and the
/// libcurl it loaded. Every summary file records it (`machine`), so a figure compared with
/// another says whether the two came from the same kind of machine. It lives beside
/// `BuildDescription`, at the bottom, so that the run reports and the budget reports record it
/// the same way without either depending on the transports.
public struct MachineDescription: Codable, Sendable, Equatable {
    public var cores: Int
    public var memoryBytes: UInt64
    public var kernel: String
    public var arch: String
    public var hostname: String
    public var libcurl: String

    enum CodingKeys: String, CodingKey {
        case cores
        case memoryBytes = "memory_bytes"
        case kernel, arch, hostname, libcurl
    }

    /// Creates the description.
    public init(cores: Int, memoryBytes: UInt64, kernel: String, arch: String, hostname: String, libcurl: String) {
        self.cores = cores
        self.memoryBytes = memoryBytes
        self.kernel = kernel
        self.arch = arch
        self.hostname = hostname
        self.libcurl = libcurl
    }

    /// This machine, now.
    public static var current: MachineDescription {
        var system = utsname()
        uname(&system)
        func text<T>(_ field: inout T) -> String {
            withUnsafeBytes(of: &field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        return MachineDescription(
            cores: ProcessInfo.processInfo.activeProcessorCount,
            memoryBytes: ProcessInfo.processInfo.physicalMemory,
            kernel: text(&system.sysname) + " " + text(&system.release),
            arch: text(&system.machine),
            hostname: ProcessInfo.processInfo.hostName,
            libcurl: LinkedLibraries.curlVersion
        )
    }

    /// This machine as a JSON object, for a file written without a Codable type (`hotpath --json`).
    public static var currentJSONObject: [String: Any] {
        let data = (try? JSONEncoder().encode(current)) ?? Data()
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }
}
