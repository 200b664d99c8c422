import MockFaults
import XCTest

@testable import MockAPNs

/// A channel's subscribers and its broadcast rate, as a broadcast meets them.
final class ChannelStoreTests: XCTestCase {
    /// Starts that named the channel are its subscribers; a channel none named reaches the
    /// configured simulated ones; a deleted or unknown channel takes nothing.
    func testABroadcastReachesTheStartsThatSubscribed() throws {
        let store = ChannelStore(subscribersPerChannel: 250)
        let subscribed = try XCTUnwrap(store.create(app: "com.example.app", storagePolicy: 0))
        let quiet = try XCTUnwrap(store.create(app: "com.example.app", storagePolicy: 0))
        for _ in 0..<3 { XCTAssertTrue(store.subscribe(app: "com.example.app", id: subscribed)) }
        XCTAssertFalse(store.subscribe(app: "com.example.other", id: subscribed), "channels belong to their app")
        XCTAssertEqual(store.admitBroadcast(app: "com.example.app", id: subscribed, nowNanos: 1), 3)
        XCTAssertEqual(store.admitBroadcast(app: "com.example.app", id: quiet, nowNanos: 1), 250)
        XCTAssertTrue(store.delete(app: "com.example.app", id: subscribed))
        XCTAssertNil(store.admitBroadcast(app: "com.example.app", id: subscribed, nowNanos: 2))
    }

    /// Under a fan-out model the last of many subscribers has a broadcast late in the
    /// distribution's tail, worked out without a draw per subscriber.
    func testTheLastSubscriberIsTheMedianOfTheLargestDraw() throws {
        let uniform = ChannelStore(fanout: try InjectedLatency(parsing: "uniform:0ms-1000ms"))
        XCTAssertEqual(uniform.lastDeliveryMicros(subscribers: 1), 500_000, accuracy: 1)
        XCTAssertEqual(uniform.lastDeliveryMicros(subscribers: 1_000_000), 999_999.3, accuracy: 0.1)
        XCTAssertEqual(uniform.lastDeliveryMicros(subscribers: 0), 0)
        XCTAssertEqual(ChannelStore().lastDeliveryMicros(subscribers: 1_000_000), 0, "none: at once")
        let normal = try InjectedLatency(parsing: "normal:100ms,10ms")
        XCTAssertEqual(normal.quantile(0.975), 119_599.6, accuracy: 1, "mean + 1.96 σ")
        XCTAssertEqual(normal.quantile(0.5), 100_000, accuracy: 0.01)
        let lognormal = try InjectedLatency(parsing: "lognormal:100ms,0.5")
        XCTAssertEqual(lognormal.quantile(0.5), 100_000, accuracy: 0.01)
        XCTAssertEqual(lognormal.quantile(0.01), 100_000 * exp(-0.5 * 2.326348), accuracy: 1)
    }

    /// At one broadcast a second, a channel takes one at once, refuses the next within the
    /// second, and takes one again a second later; channels are limited one by one.
    func testTheRateLimitIsPerChannelAndRefills() throws {
        let store = ChannelStore(subscribersPerChannel: 10, broadcastsPerSecond: 1)
        let first = try XCTUnwrap(store.create(app: "app", storagePolicy: 0))
        let second = try XCTUnwrap(store.create(app: "app", storagePolicy: 0))
        let start: UInt64 = 5_000_000_000
        XCTAssertEqual(store.admitBroadcast(app: "app", id: first, nowNanos: start), 10)
        XCTAssertNil(store.admitBroadcast(app: "app", id: first, nowNanos: start + 500_000_000))
        XCTAssertEqual(store.admitBroadcast(app: "app", id: second, nowNanos: start + 500_000_000), 10)
        XCTAssertEqual(store.admitBroadcast(app: "app", id: first, nowNanos: start + 1_000_000_000), 10)
        XCTAssertNil(store.admitBroadcast(app: "app", id: first, nowNanos: start + 1_100_000_000))
    }
}
