import ArgumentParser
import Foundation
import Workload

#if canImport(Glibc)
import Glibc
#endif

/// `pushbench tokens`: synthetic tokens to a file or stdout, the same ones `run` sends to.
struct TokensCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "Write N synthetic tokens (hex lines, raw bytes or base64 lines) to a file or stdout.",
        discussion: """
            Token i is derived from (--seed, --kind, i) alone, so the same options always write the same bytes, \
            and `pushbench run --seed S` addresses the same devices. With --shard i/N only the i-th of N equal, \
            contiguous parts is written: the N shard files concatenated in order are the unsharded file, byte \
            for byte.

              pushbench tokens -n 10000000 -o tokens.txt
              pushbench tokens -n 1000 --kind channel --format base64
              pushbench tokens -n 10000000 --shard 2/8 --format binary -o part-2.bin
            """
    )

    @Option(name: [.customShort("n"), .customLong("count")], help: "Tokens in the whole population.")
    var count = 1_000_000

    @Option(help: "Token kind: device, push-to-start, update (per-activity) or channel (broadcast channel ids).")
    var kind: TokenKind = .device

    @Option(help: "Layout: hex (a line each), binary (raw bytes back to back) or base64 (a line each).")
    var format: TokenFormat = .hex

    @Option(help: "Raw token length in bytes (default: 32, or 16 for channel ids).")
    var bytes: Int?

    @Option(help: "Seed the tokens are derived from (as `pushbench run --seed`).")
    var seed: UInt64 = 1

    @Option(help: "Write only shard i of N (0-based), such as 0/4.")
    var shard = "0/1"

    @Option(name: [.customShort("o"), .customLong("output")], help: "File to write; - for stdout.")
    var output = "-"

    func validate() throws {
        guard count >= 0 else { throw ValidationError("-n must not be negative") }
        if let bytes, !(1...1024).contains(bytes) { throw ValidationError("--bytes must be 1 to 1024") }
        _ = try parsedShard()
    }

    private func parsedShard() throws -> Shard {
        do {
            return try Shard(parsing: shard)
        } catch {
            throw ValidationError("--shard: \(error)")
        }
    }

    func run() throws {
        let tokens = TokenSet(seed: seed, kind: kind, count: count, byteCount: bytes)
        let range = try parsedShard().range(in: count)
        let toStdout = output == "-"
        let descriptor = toStdout ? STDOUT_FILENO : open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CommandLineError("cannot write \(output): \(String(cString: strerror(errno)))")
        }
        // Only a regular file this command created may be removed after a failure; never a
        // device such as /dev/full.
        var status = stat()
        let removable = !toStdout && fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
        let start = DispatchTime.now().uptimeNanoseconds
        let trap = InterruptTrap {}
        do {
            try write(range, of: tokens, to: descriptor, removesOnFailure: removable, stopping: { trap.signal })
        } catch {
            if !toStdout { close(descriptor) }
            if removable { unlink(output) }
            if let signal = trap.signal {
                Console.err("pushbench: \(error)")
                throw ExitCode(ExitStatus.interrupted(by: signal))
            }
            throw error
        }
        if !toStdout {
            guard fsync(descriptor) == 0 || errno == EINVAL, close(descriptor) == 0 else {
                let reason = String(cString: strerror(errno))
                if removable { unlink(output) }
                throw CommandLineError("cannot finish writing \(output): \(reason)")
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let megabytes = Double(range.count * format.recordLength(of: tokens)) / 1e6
            Console.err(
                String(
                    format: "wrote %d %@ tokens (%.1f MB, %@) to %@ in %.2f s: %.2f M tokens/s, %.0f MB/s",
                    range.count,
                    kind.rawValue,
                    megabytes,
                    format.rawValue,
                    output,
                    seconds,
                    Double(range.count) / seconds / 1e6,
                    megabytes / seconds
                )
            )
        }
    }

    /// Writes the tokens in chunks of about 4 MiB, one buffer reused, until `stopping` names a
    /// signal (Ctrl-C, SIGTERM): then it throws, and the caller removes the incomplete file.
    private func write(
        _ range: Range<Int>,
        of tokens: TokenSet,
        to descriptor: Int32,
        removesOnFailure: Bool,
        stopping: () -> Int32?
    ) throws {
        let record = format.recordLength(of: tokens)
        let perChunk = max(1, (4 << 20) / record)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: perChunk * record, alignment: 16)
        defer { buffer.deallocate() }
        var next = range.lowerBound
        while next < range.upperBound {
            if stopping() != nil {
                throw CommandLineError(
                    "interrupted after \(next - range.lowerBound) of \(range.count) tokens"
                        + (removesOnFailure ? "; the incomplete file \(output) was removed" : "")
                )
            }
            let chunk = next..<min(range.upperBound, next + perChunk)
            format.write(chunk, of: tokens, to: buffer.baseAddress!)
            let block = UnsafeRawBufferPointer(rebasing: buffer[0..<(chunk.count * record)])
            if let reason = FileWrite.all(block, to: descriptor) {
                throw CommandLineError(
                    "writing \(output) failed after \(next - range.lowerBound) of \(range.count) tokens: \(reason)"
                        + (removesOnFailure ? "; the incomplete file was removed" : "")
                )
            }
            next = chunk.upperBound
        }
    }
}

extension TokenKind: ExpressibleByArgument {}
extension TokenFormat: ExpressibleByArgument {}
