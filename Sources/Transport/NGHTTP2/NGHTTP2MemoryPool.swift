import CNGHTTP2

#if canImport(Glibc)
import Glibc
#endif

/// The memory one nghttp2 session allocates, reused rather than returned to malloc.
///
/// nghttp2 allocates for every request (the stream, its outbound item, a copy of the header
/// array, the frames it parses) and frees all of it when the stream closes: 16 mallocs and
/// frees a push between a client session and a server session. Here a freed block goes onto
/// the free list of its size class (powers of two from 32 bytes to 64 KiB) and the next
/// allocation of that class takes it back, so a session in steady state calls malloc for
/// nothing. Larger blocks go to malloc directly. A session belongs to one worker thread, and so
/// does its pool: nothing here is locked.
///
/// A pool must outlive its session (`nghttp2_session_del` frees into it).
final class NGHTTP2MemoryPool {
    /// Each block starts with its size class and its capacity, keeping the 16-byte alignment
    /// malloc gives.
    private static let headerBytes = 16
    private static let smallestClassBits = 5
    private static let classCount = 12
    private let freeLists: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    /// What `nghttp2_session_client_new3` and `nghttp2_session_server_new3` take; the session
    /// keeps a copy.
    var allocator = nghttp2_mem()

    init() {
        freeLists = .allocate(capacity: Self.classCount)
        freeLists.initialize(repeating: nil, count: Self.classCount)
        allocator = nghttp2_mem(
            mem_user_data: nil,
            malloc: poolAllocate,
            free: poolRelease,
            calloc: poolAllocateZeroed,
            realloc: poolReallocate
        )
        allocator.mem_user_data = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        for sizeClass in 0..<Self.classCount {
            var next = freeLists[sizeClass]
            while let block = next {
                next = block.load(as: UnsafeMutableRawPointer?.self)
                free(block - Self.headerBytes)
            }
        }
        freeLists.deallocate()
    }

    /// A block of at least `size` bytes.
    func allocate(_ size: Int) -> UnsafeMutableRawPointer? {
        let sizeClass = Self.sizeClass(of: size)
        if sizeClass < Self.classCount, let block = freeLists[sizeClass] {
            freeLists[sizeClass] = block.load(as: UnsafeMutableRawPointer?.self)
            return block
        }
        let capacity = sizeClass < Self.classCount ? 1 << (sizeClass + Self.smallestClassBits) : size
        guard let base = malloc(capacity + Self.headerBytes) else { return nil }
        base.storeBytes(of: sizeClass, as: Int.self)
        base.storeBytes(of: capacity, toByteOffset: MemoryLayout<Int>.size, as: Int.self)
        return base + Self.headerBytes
    }

    /// Takes `block` back onto its free list (or gives a large one back to malloc).
    func release(_ block: UnsafeMutableRawPointer?) {
        guard let block else { return }
        let sizeClass = (block - Self.headerBytes).load(as: Int.self)
        guard sizeClass < Self.classCount else { return free(block - Self.headerBytes) }
        block.storeBytes(of: freeLists[sizeClass], as: UnsafeMutableRawPointer?.self)
        freeLists[sizeClass] = block
    }

    /// `block` grown to `size` bytes, moved only when its class is too small.
    func reallocate(_ block: UnsafeMutableRawPointer?, to size: Int) -> UnsafeMutableRawPointer? {
        guard let block else { return allocate(size) }
        let capacity = (block - Self.headerBytes).load(fromByteOffset: MemoryLayout<Int>.size, as: Int.self)
        guard size > capacity else { return block }
        guard let moved = allocate(size) else { return nil }
        moved.copyMemory(from: block, byteCount: capacity)
        release(block)
        return moved
    }

    /// The class of a `size`-byte block: 0 for up to 32 bytes, then one class per doubling.
    private static func sizeClass(of size: Int) -> Int {
        let bits = Int.bitWidth - (max(size, 1) - 1).leadingZeroBitCount
        return max(0, bits - smallestClassBits)
    }
}

private func pool(_ user: UnsafeMutableRawPointer?) -> Unmanaged<NGHTTP2MemoryPool> {
    Unmanaged<NGHTTP2MemoryPool>.fromOpaque(user!)
}

private func poolAllocate(_ size: Int, _ user: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    pool(user)._withUnsafeGuaranteedRef { $0.allocate(size) }
}

private func poolRelease(_ block: UnsafeMutableRawPointer?, _ user: UnsafeMutableRawPointer?) {
    pool(user)._withUnsafeGuaranteedRef { $0.release(block) }
}

private func poolAllocateZeroed(
    _ count: Int,
    _ size: Int,
    _ user: UnsafeMutableRawPointer?
)
    -> UnsafeMutableRawPointer?
{
    let (bytes, overflow) = count.multipliedReportingOverflow(by: size)
    guard !overflow, let block = pool(user)._withUnsafeGuaranteedRef({ $0.allocate(bytes) }) else { return nil }
    block.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
    return block
}

private func poolReallocate(
    _ block: UnsafeMutableRawPointer?,
    _ size: Int,
    _ user: UnsafeMutableRawPointer?
)
    -> UnsafeMutableRawPointer?
{
    pool(user)._withUnsafeGuaranteedRef { $0.reallocate(block, to: size) }
}
