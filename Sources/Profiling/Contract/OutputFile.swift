import ArrivalMatching
import Foundation
import Workload

#if canImport(Glibc)
import Glibc
#endif

/// A file written in large blocks through one descriptor: the events file of a million pushes
/// goes out at disk speed with a flat memory footprint, and a full disk is an error that names
/// the file.
struct OutputFile {
    let path: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    /// Bytes written so far, buffered ones included.
    private(set) var bytes = 0
    private static let blockBytes = 1 << 20

    /// Creates (or truncates) `path` with `mode`.
    init(path: String, mode: mode_t = 0o644) throws(ProfileError) {
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw ProfileError.failure("cannot create \(path)") }
        self.path = path
        buffer.reserveCapacity(Self.blockBytes + 4096)
    }

    /// Appends `bytes`, writing a block when one is full.
    mutating func append<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(ProfileError) {
        buffer.append(contentsOf: bytes)
        self.bytes += bytes.count
        if buffer.count >= Self.blockBytes { try flush() }
    }

    /// Writes what is buffered and closes the file.
    mutating func close() throws(ProfileError) {
        defer {
            if descriptor >= 0 { Glibc.close(descriptor) }
            descriptor = -1
        }
        try flush()
    }

    private mutating func flush() throws(ProfileError) {
        if let reason = buffer.withUnsafeBytes({ FileWrite.all($0, to: descriptor) }) {
            throw ProfileError.systemCall("cannot write \(path): \(reason)")
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
