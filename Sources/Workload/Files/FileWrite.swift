#if canImport(Glibc)
import Glibc
#endif

/// The one loop that writes a block to a file descriptor: every byte, again after a signal
/// interrupts a write, for the console, the token files, the mock's recording and a profile's
/// events alike.
public enum FileWrite {
    /// Writes all of `bytes` to `descriptor`.
    /// - Returns: `nil` when everything was written, or why not: the system's reason (a full
    ///   disk), or "nothing written".
    public static func all(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> String? {
        var pending = bytes
        while !pending.isEmpty {
            let written = write(descriptor, pending.baseAddress, pending.count)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return written < 0 ? String(cString: strerror(errno)) : "nothing written" }
            pending = UnsafeRawBufferPointer(rebasing: pending[written...])
        }
        return nil
    }
}
