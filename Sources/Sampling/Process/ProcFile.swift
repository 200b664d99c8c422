#if canImport(Glibc)
import Glibc
#endif

/// A `/proc` file read whole into a reused buffer, and the listing of a `/proc` directory, as
/// bytes: a profile's watcher reads a few a tick for as long as the sender runs, so it builds no
/// String of a file's text and no Foundation path.
public struct ProcFile {
    /// The bytes of the last file read; `count` of them are valid.
    private(set) var bytes = [UInt8](repeating: 0, count: 4096)
    private(set) var count = 0

    /// An empty reader.
    public init() {}

    /// Reads the file at `path` whole (growing the buffer as needed); false if it cannot be opened
    /// (the process is gone, or the kernel has no such file).
    public mutating func read(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        count = 0
        while true {
            if count == bytes.count { bytes += [UInt8](repeating: 0, count: bytes.count) }
            let got = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(descriptor, buffer.baseAddress! + count, buffer.count - count)
            }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return got == 0 }
            count += got
        }
    }

    /// Whether the file last read begins with `prefix`.
    func starts(with prefix: String) -> Bool {
        var index = 0
        for byte in prefix.utf8 {
            guard index < count, bytes[index] == byte else { return false }
            index += 1
        }
        return true
    }

    /// The whitespace-separated integers of the file last read (a `children` file's PIDs).
    public var integers: [Int] {
        var values: [Int] = []
        var index = 0
        while let value = integer(from: &index) { values.append(value) }
        return values
    }

    /// The integer after `label` in the file last read (`VmHWM:` of a status file), if any.
    public func integer(after label: StaticString) -> Int? {
        let length = label.utf8CodeUnitCount
        guard count >= length else { return nil }
        return label.withUTF8Buffer { label -> Int? in
            var start = 0
            while start + length <= count {
                if bytes[start] == label[0], (0..<length).allSatisfy({ bytes[start + $0] == label[$0] }) {
                    var index = start + length
                    return integer(from: &index)
                }
                start += 1
            }
            return nil
        }
    }

    /// The next integer at or after `index` (spaces and tabs skipped, a `-` sign kept), with
    /// `index` moved past it; nil at a line's end or the file's.
    func integer(from index: inout Int) -> Int? {
        while index < count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A { index += 1 }
        guard index < count else { return nil }
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var value = 0
        var digits = 0
        while index < count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            value = value * 10 + Int(bytes[index] - 0x30)
            index += 1
            digits += 1
        }
        // A field that is not a number (a stat file's state letter) is skipped as one.
        if digits == 0 {
            while index < count, bytes[index] != 0x20, bytes[index] != 0x0A { index += 1 }
            return 0
        }
        return negative ? -value : value
    }

    /// The index just after the last `)` of the file last read (a stat file's command ends
    /// there, and may itself hold spaces and parentheses).
    var afterLastParenthesis: Int? {
        var index = count - 1
        while index >= 0 {
            if bytes[index] == UInt8(ascii: ")") { return index + 1 }
            index -= 1
        }
        return nil
    }

    /// The numeric names in directory `path` (a `/proc` or `task` listing's PIDs).
    public static func numericEntries(of path: String) -> [pid_t] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var entries: [pid_t] = []
        while let entry = readdir(directory) {
            let pid = withUnsafeBytes(of: entry.pointee.d_name) { name -> pid_t? in
                var value: pid_t = 0
                for byte in name {
                    if byte == 0 { break }
                    guard byte >= 0x30, byte <= 0x39 else { return nil }
                    value = value * 10 + pid_t(byte - 0x30)
                }
                return value > 0 ? value : nil
            }
            if let pid { entries.append(pid) }
        }
        return entries
    }
}
