#if canImport(Glibc)
import Glibc
#endif

/// Memory that a C library allocates and frees over and over, reused rather than returned to
/// malloc.
///
/// nghttp2 allocates for every request (the stream, its outbound item, a copy of the header
/// array, the frames it parses) and frees all of it when the stream closes; OpenSSL allocates
/// the bookkeeping of every TLS record it writes or reads. Here a freed block goes onto the free
/// list of its size class (powers of two from 32 bytes) and the next allocation of that class
/// takes it back, so a steady state calls malloc for nothing. Blocks above the largest class go
/// to malloc directly, and so do freed blocks beyond a class's `depth`, which bounds what a pool
/// holds on to. A pool belongs to one thread: nothing here is locked.
///
/// Every block carries its size class and capacity, so any pool can take back a block that
/// another pool handed out, and `returnToMalloc` can release one whose pool is gone.
public final class BlockPool {
    /// Each block starts with its size class and its capacity, keeping the 16-byte alignment
    /// malloc gives.
    private static let headerBytes = 16
    private static let smallestClassBits = 5
    private let classCount: Int
    private let depth: Int
    private let freeLists: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private let freeCounts: UnsafeMutablePointer<Int>
    /// Allocations served from a free list, and those that called malloc.
    public private(set) var reused = 0
    public private(set) var fromMalloc = 0

    /// A pool whose largest class is `largestClass` bytes (a power of two, at least 32), keeping
    /// at most `depth` free blocks of each class.
    public init(largestClass: Int, depth: Int = .max) {
        classCount = Self.sizeClass(of: largestClass) + 1
        self.depth = depth
        freeLists = .allocate(capacity: classCount)
        freeLists.initialize(repeating: nil, count: classCount)
        freeCounts = .allocate(capacity: classCount)
        freeCounts.initialize(repeating: 0, count: classCount)
    }

    deinit {
        for sizeClass in 0..<classCount {
            var next = freeLists[sizeClass]
            while let block = next {
                next = block.load(as: UnsafeMutableRawPointer?.self)
                free(block - Self.headerBytes)
            }
        }
        freeLists.deallocate()
        freeCounts.deallocate()
    }

    /// A block of at least `size` bytes.
    public func allocate(_ size: Int) -> UnsafeMutableRawPointer? {
        let sizeClass = Self.sizeClass(of: size)
        if sizeClass < classCount, let block = freeLists[sizeClass] {
            freeLists[sizeClass] = block.load(as: UnsafeMutableRawPointer?.self)
            freeCounts[sizeClass] &-= 1
            reused &+= 1
            return block
        }
        fromMalloc &+= 1
        return Self.mallocBlock(sizeClass < classCount ? 1 << (sizeClass + Self.smallestClassBits) : size)
    }

    /// Takes `block` back onto its free list, or gives it back to malloc when it is larger than
    /// this pool's classes or its list is full.
    public func release(_ block: UnsafeMutableRawPointer?) {
        guard let block else { return }
        let sizeClass = (block - Self.headerBytes).load(as: Int.self)
        guard sizeClass < classCount, freeCounts[sizeClass] < depth else { return Self.returnToMalloc(block) }
        block.storeBytes(of: freeLists[sizeClass], as: UnsafeMutableRawPointer?.self)
        freeLists[sizeClass] = block
        freeCounts[sizeClass] &+= 1
    }

    /// `block` grown to `size` bytes, moved only when its capacity is too small.
    public func reallocate(_ block: UnsafeMutableRawPointer?, to size: Int) -> UnsafeMutableRawPointer? {
        guard let block else { return allocate(size) }
        let capacity = Self.capacity(of: block)
        guard size > capacity else { return block }
        guard let moved = allocate(size) else { return nil }
        moved.copyMemory(from: block, byteCount: capacity)
        release(block)
        return moved
    }

    /// Gives `block`, which some pool handed out, back to malloc.
    public static func returnToMalloc(_ block: UnsafeMutableRawPointer?) {
        guard let block else { return }
        Glibc.free(block - headerBytes)
    }

    /// The bytes `block` can hold.
    private static func capacity(of block: UnsafeMutableRawPointer) -> Int {
        (block - headerBytes).load(fromByteOffset: MemoryLayout<Int>.size, as: Int.self)
    }

    private static func mallocBlock(_ capacity: Int) -> UnsafeMutableRawPointer? {
        guard let base = malloc(capacity + headerBytes) else { return nil }
        base.storeBytes(of: sizeClass(of: capacity), as: Int.self)
        base.storeBytes(of: capacity, toByteOffset: MemoryLayout<Int>.size, as: Int.self)
        return base + headerBytes
    }

    /// The class of a `size`-byte block: 0 for up to 32 bytes, then one class per doubling.
    private static func sizeClass(of size: Int) -> Int {
        let bits = Int.bitWidth - (max(size, 1) - 1).leadingZeroBitCount
        return max(0, bits - smallestClassBits)
    }
}
