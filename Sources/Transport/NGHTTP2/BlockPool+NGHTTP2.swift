import CNGHTTP2
import Wire

extension BlockPool {
    /// A pool for one nghttp2 session: 16 mallocs and frees a push between a client session and
    /// a server session otherwise. Classes up to 64 KiB (the frames nghttp2 parses), and no
    /// bound on the free lists: a session's streams come back. The pool must outlive its session
    /// (`nghttp2_session_del` frees into it).
    package static func forNGHTTP2Session() -> BlockPool {
        BlockPool(largestClass: 64 * 1024)
    }

    /// What `nghttp2_session_client_new3` and `nghttp2_session_server_new3` take to allocate from
    /// this pool; the session keeps a copy.
    package var nghttp2Allocator: nghttp2_mem {
        nghttp2_mem(
            mem_user_data: Unmanaged.passUnretained(self).toOpaque(),
            malloc: poolAllocate,
            free: poolRelease,
            calloc: poolAllocateZeroed,
            realloc: poolReallocate
        )
    }
}

private func pool(_ user: UnsafeMutableRawPointer?) -> Unmanaged<BlockPool> {
    Unmanaged<BlockPool>.fromOpaque(user!)
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
