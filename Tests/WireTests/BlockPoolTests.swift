import Wire
import XCTest

/// The pool behind nghttp2's sessions and OpenSSL's heap: what it reuses, what it bounds, and
/// what it gives back to malloc.
final class BlockPoolTests: XCTestCase {
    func testAFreedBlockIsTheNextOfItsClassAndMallocIsNotCalled() throws {
        let pool = BlockPool(largestClass: 1024)
        let first = try XCTUnwrap(pool.allocate(40))
        pool.release(first)
        XCTAssertEqual(pool.allocate(64), first, "40 and 64 bytes share the 64-byte class")
        XCTAssertNotEqual(pool.allocate(64), first)
        XCTAssertEqual(pool.reused, 1)
        XCTAssertEqual(pool.fromMalloc, 2)
    }

    func testAFullClassAndABlockAboveTheLargestClassGoBackToMalloc() throws {
        let pool = BlockPool(largestClass: 1024, depth: 2)
        let blocks = (0..<3).map { _ in pool.allocate(100) }
        blocks.forEach(pool.release)
        let again = (0..<3).map { _ in pool.allocate(100) }
        XCTAssertEqual(pool.reused, 2, "only two were kept")
        XCTAssertEqual(Set(again.prefix(2)), Set(blocks.prefix(2)))
        again.forEach(pool.release)

        let large = try XCTUnwrap(pool.allocate(4096))
        pool.release(large)
        _ = pool.allocate(4096)
        XCTAssertEqual(pool.reused, 2, "a block above 1 KiB is never kept")
    }

    func testReallocationKeepsTheBytesAndMovesOnlyWhenTheClassIsTooSmall() throws {
        let pool = BlockPool(largestClass: 1024)
        let block = try XCTUnwrap(pool.allocate(20))
        for index in 0..<20 { block.storeBytes(of: UInt8(index), toByteOffset: index, as: UInt8.self) }
        XCTAssertEqual(pool.reallocate(block, to: 32), block, "32 bytes still fit its class")
        let grown = try XCTUnwrap(pool.reallocate(block, to: 3000))
        XCTAssertNotEqual(grown, block)
        XCTAssertEqual((0..<20).map { grown.load(fromByteOffset: $0, as: UInt8.self) }, (0..<20).map(UInt8.init))
        XCTAssertEqual(pool.allocate(32), block, "the old block went back to its list")
        pool.release(grown)
    }

    func testOnePoolTakesBackWhatAnotherHandedOut() throws {
        let nghttp2Sized = BlockPool(largestClass: 64 * 1024)
        let opensslSized = BlockPool(largestClass: 1024)
        let small = try XCTUnwrap(nghttp2Sized.allocate(48))
        let large = try XCTUnwrap(nghttp2Sized.allocate(8000))
        opensslSized.release(small)
        opensslSized.release(large)
        XCTAssertEqual(opensslSized.allocate(48), small)
        _ = opensslSized.allocate(8000)
        XCTAssertEqual(opensslSized.reused, 1, "8000 bytes is above the smaller pool's classes: malloc freed it")
    }
}
