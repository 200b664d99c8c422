import ArrivalMatching
import CProcess
import Foundation

/// The private key a profile makes for its sender, written where the sender can read it and
/// nowhere a report's reader would look: a folder of its own under the system's temporary
/// folder, mode 0700, never the report folder (which CI jobs keep as artifacts). A watchdog
/// process removes it when PushBench is gone, even by SIGKILL; `remove()` does it at once.
final class ThrowawayKeyFile {
    /// The key file's path, handed to the sender.
    let path: String
    private let folder: String
    /// The write end of the watchdog's pipe: closing it, or dying, sets the watchdog off.
    private var watchdogPipe: Int32 = -1

    /// Writes `pem` as `name` in a new private folder and starts its watchdog.
    /// - Throws: `ProfileError.systemCall` when the folder, the file or the watchdog cannot be made.
    init(pem: [UInt8], name: String) throws {
        var template = Array(
            (NSTemporaryDirectory() as NSString).appendingPathComponent("pushbench-key-XXXXXX").utf8CString
        )
        guard let made = mkdtemp(&template) else { throw ProfileError.failure("cannot make a folder for the key") }
        folder = String(cString: made)
        path = (folder as NSString).appendingPathComponent(name)
        do {
            var file = try OutputFile(path: path, mode: 0o600)
            try file.append(pem)
            try file.close()
        } catch {
            rmdir(folder)
            throw error
        }
        guard pb_spawn_removal_watchdog(path, folder, &watchdogPipe) > 0 else {
            let failure = ProfileError.failure("cannot start the key's watchdog")
            unlink(path)
            rmdir(folder)
            throw failure
        }
    }

    /// Removes the key and its folder now, and lets the watchdog go.
    func remove() {
        unlink(path)
        rmdir(folder)
        if watchdogPipe >= 0 {
            close(watchdogPipe)
            watchdogPipe = -1
        }
    }

    deinit {
        remove()
    }
}
