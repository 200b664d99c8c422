import COpenSSL

#if canImport(Glibc)
import Glibc
#endif

/// OpenSSL's heap, served from a `BlockPool` per thread.
///
/// OpenSSL 3.0's record layer allocates its `WPACKET` bookkeeping (a 40-byte sub-packet) on the
/// heap for every TLS record: three to write one, one to open one, and as many again on the far
/// side of the in-memory connection. With one push to a record, that was 8 mallocs a push, all
/// of them OpenSSL's. `useThreadPools()` points OpenSSL's allocator at a pool per thread
/// (classes up to 1 KiB, at most 64 free blocks each, so a thread holds at most 126 KiB it does
/// not use), and a steady state then calls malloc for nothing. Larger blocks, such as the
/// record buffers a connection allocates once, go to malloc as before.
///
/// OpenSSL takes a new allocator only before its first allocation, so a process calls this
/// first thing, and only a process that owns its OpenSSL (the `pushbench` command and the
/// benchmarks), never a library.
public enum OpenSSLMemory {
    /// The classes and depth of each thread's pool.
    static let largestClass = 1024
    static let depth = 64

    /// Points OpenSSL's allocator at the per-thread pools. False when OpenSSL has allocated
    /// already, or when a key for the pools could not be made: OpenSSL then stays on malloc,
    /// which is correct, only slower.
    @discardableResult
    public static func useThreadPools() -> Bool {
        guard !installed else { return true }
        guard pthread_key_create(&poolKey, releasePool) == 0 else { return false }
        guard CRYPTO_set_mem_functions(pooledMalloc, pooledRealloc, pooledFree) == 1 else {
            pthread_key_delete(poolKey)
            return false
        }
        installed = true
        return true
    }

    /// The pool of the calling thread, if OpenSSL has allocated on it since `useThreadPools()`:
    /// its `reused` and `fromMalloc` say how OpenSSL's allocations were served.
    public static var currentThreadPool: BlockPool? {
        guard installed, let pool = pthread_getspecific(poolKey) else { return nil }
        return Unmanaged<BlockPool>.fromOpaque(pool).takeUnretainedValue()
    }
}

/// Written once, by `useThreadPools()`, before OpenSSL can call the functions that read them.
nonisolated(unsafe) private var installed = false
nonisolated(unsafe) private var poolKey = pthread_key_t()

/// The calling thread's pool, made on its first allocation; nil only when the thread cannot
/// store it (no memory), which OpenSSL hears as a failed allocation.
private func threadPool() -> Unmanaged<BlockPool>? {
    if let pool = pthread_getspecific(poolKey) { return Unmanaged.fromOpaque(pool) }
    let pool = Unmanaged.passRetained(
        BlockPool(largestClass: OpenSSLMemory.largestClass, depth: OpenSSLMemory.depth)
    )
    guard pthread_setspecific(poolKey, pool.toOpaque()) == 0 else {
        pool.release()
        return nil
    }
    return pool
}

/// At a thread's exit: its pool's free blocks go back to malloc. OpenSSL may still free blocks
/// on this thread after this (its own thread-exit handlers); `pooledFree` then gives them to
/// malloc directly.
private func releasePool(_ pool: UnsafeMutableRawPointer?) {
    guard let pool else { return }
    Unmanaged<BlockPool>.fromOpaque(pool).release()
}

private func pooledMalloc(_ size: Int, _ file: UnsafePointer<CChar>?, _ line: Int32) -> UnsafeMutableRawPointer? {
    threadPool()?._withUnsafeGuaranteedRef { $0.allocate(size) }
}

private func pooledRealloc(
    _ block: UnsafeMutableRawPointer?,
    _ size: Int,
    _ file: UnsafePointer<CChar>?,
    _ line: Int32
) -> UnsafeMutableRawPointer? {
    threadPool()?._withUnsafeGuaranteedRef { $0.reallocate(block, to: size) }
}

private func pooledFree(_ block: UnsafeMutableRawPointer?, _ file: UnsafePointer<CChar>?, _ line: Int32) {
    guard let pool = pthread_getspecific(poolKey) else { return BlockPool.returnToMalloc(block) }
    Unmanaged<BlockPool>.fromOpaque(pool)._withUnsafeGuaranteedRef { $0.release(block) }
}
