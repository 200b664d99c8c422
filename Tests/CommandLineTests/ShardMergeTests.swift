import Foundation
import Synchronization
import TestSupport
import XCTest

/// One run split over 4 shard processes against one mock, merged, against the same run from one
/// process: the totals and reasons agree exactly, and the merged histogram is
/// the union of the shards'.
final class ShardMergeTests: PushbenchTestCase {
    private let arguments = ["--activities", "40", "--seed", "7", "--no-budget", "--connections", "1"]

    /// A P-256 key in `AuthKey.p8`, and a mock verifying it with 10% of tokens for another app, so
    /// the runs meet rejections. (Not 410s: a sender stops sending to a token answered 410, and
    /// how many of its pushes were already in flight by then depends on timing.)
    private func keyAndMock() throws -> (key: [String], mock: RunningProgram, origin: String, certificate: String) {
        let openssl = try XCTUnwrap(ExternalProgram.onPath("openssl"))
        let p8 = directory.file("AuthKey.p8")
        if !FileManager.default.fileExists(atPath: p8) {
            let made = try openssl.run([
                "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", p8,
            ])
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        let key = ["--key-id", "ABC123DEFG", "--team-id", "DEF123GHIJ"]
        let (mock, origin, certificate) = try startMock(["--auth-key", p8, "--other-topic", "0.1"] + key)
        return (["--auth-key", p8] + key, mock, origin, certificate)
    }

    private func summary(_ folder: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/summary.json"))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func folders(in root: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root).sorted().map { root + "/" + $0 }
    }

    /// `[value_us: count]` of a summary's latency histogram.
    private func buckets(_ summary: [String: Any]) throws -> [UInt64: UInt64] {
        let histogram = try XCTUnwrap(summary["latency_histogram_us"] as? [String: Any])
        let pairs = try XCTUnwrap(histogram["buckets"] as? [[UInt64]])
        return Dictionary(pairs.map { ($0[0], $0[1]) }, uniquingKeysWith: +)
    }

    func testFourShardsMergeToTheSameTotalsAsOneProcess() throws {
        let curl = try XCTUnwrap(ExternalProgram.onPath("curl"))
        let single = try keyAndMock()
        let whole = try pushbench.run(
            [
                "run", "--endpoint", single.origin, "--ca-file", single.certificate, "--reports-dir",
                directory.file("one"),
            ]
                + single.key + arguments
        )
        XCTAssertEqual(whole.status, 0, whole.stderr)
        let one = try summary(try XCTUnwrap(try folders(in: directory.file("one")).first))

        let shared = try keyAndMock()
        let shardRuns = (0..<4).map { index in
            [
                "run", "--endpoint", shared.origin, "--ca-file", shared.certificate, "--shard", "\(index)/4",
                "--reports-dir", directory.file("shards"),
            ] + shared.key + arguments
        }
        let outputs = Mutex<[Int: ExternalProgram.Output]>([:])
        let pushbench = self.pushbench
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            let output = Result { try pushbench.run(shardRuns[index]) }
            outputs.withLock { $0[index] = try? output.get() }
        }
        for index in 0..<4 {
            let output = try XCTUnwrap(outputs.withLock { $0[index] }, "shard \(index) did not run")
            XCTAssertEqual(output.status, 0, output.stderr)
            XCTAssertTrue(output.stderr.contains("activities"), output.stderr)
        }
        let stats = try curl.run(["-sS", "--http2", "--cacert", shared.certificate, "\(shared.origin)/stats"])
        let statsFile = try directory.write("stats.json", Array(stats.stdout.utf8))

        let shards = try folders(in: directory.file("shards"))
        XCTAssertEqual(shards.count, 4)
        let merge = try pushbench.run(
            ["merge"] + shards + ["-o", directory.file("merged"), "--server-stats", statsFile]
        )
        XCTAssertEqual(merge.status, 0, merge.stdout + merge.stderr)
        XCTAssertTrue(merge.stdout.contains("agrees with the client"), merge.stdout)
        let merged = try summary(directory.file("merged"))

        for key in ["counts", "rejected_by_reason", "skipped_gone_tokens", "starts_not_sent"] {
            XCTAssertEqual(merged[key] as? NSObject, one[key] as? NSObject, "\(key) differs from one process's")
        }
        XCTAssertGreaterThan((one["rejected_by_reason"] as? [String: Int])?["DeviceTokenNotForTopic"] ?? 0, 0)
        XCTAssertEqual(merged["accounting_balanced"] as? Bool, true)

        var union: [UInt64: UInt64] = [:]
        for shard in shards { union.merge(try buckets(try summary(shard)), uniquingKeysWith: +) }
        XCTAssertEqual(try buckets(merged), union, "the merged histogram is the shards' added bucket by bucket")

        let connections = try XCTUnwrap(merged["connections"] as? [[String: Int]])
        XCTAssertEqual(Set(connections.compactMap { $0["shard"] }), [0, 1, 2, 3])
        let shardIntervals = try XCTUnwrap(try summary(shards[0])["timeseries"] as? [[String: Any]])
        XCTAssertTrue(
            shardIntervals.contains { !(($0["latency_buckets_us"] as? [Any])?.isEmpty ?? true) },
            "a shard keeps each interval's buckets for the merge"
        )
        let seconds = try XCTUnwrap(merged["timeseries"] as? [[String: Any]])
        XCTAssertGreaterThan(seconds.compactMap { $0["p99_us"] as? Int }.max() ?? 0, 0)
        let sentPerSecond = seconds.compactMap { ($0["counts"] as? [String: Int])?["sent"] }
        XCTAssertEqual(sentPerSecond.reduce(0, +), (merged["counts"] as? [String: Int])?["sent"])
        for file in ["report.html", "latency.hgrm", "timeseries.csv", "connections.csv", "outcomes.csv"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: directory.file("merged/" + file)), file)
        }

        try checkPartialMerges(of: shards, serverStats: statsFile)
        let twice = try pushbench.run(["merge", shards[0], shards[0], "-o", directory.file("twice")])
        assertCleanFailure(twice, mentions: "given twice")
        let wrong = try pushbench.run(["merge", shards[0], directory.file("one"), "-o", directory.file("wrong")])
        assertCleanFailure(wrong, mentions: "summary.json")
        single.mock.interrupt()
        shared.mock.interrupt()
    }

    /// A shard missing (a pod lost) or interrupted (SIGTERM: it wrote what it measured) is named
    /// and refused; `--partial` merges the rest, marks the report partial, says how far the mock's
    /// books exceed it, and exits 5.
    private func checkPartialMerges(of folders: [String], serverStats: String) throws {
        let shards = try folders.map { folder in
            (folder, try XCTUnwrap((try summary(folder)["shard"] as? [String: Any])?["index"] as? Int))
        }.sorted { $0.1 < $1.1 }.map(\.0)
        let missing = try pushbench.run(["merge"] + shards.dropLast() + ["-o", directory.file("partial")])
        assertCleanFailure(missing, mentions: "shard(s) 3/4 missing: a merge of part of a run would understate it")
        let lost = try pushbench.run(
            ["merge", "--partial", "--server-stats", serverStats] + shards.dropLast() + ["-o", directory.file("lost")]
        )
        XCTAssertEqual(lost.status, 5, lost.stderr)
        XCTAssertTrue(lost.stdout.contains("PARTIAL: 3 of 4 shards given, shard(s) 3/4 missing"), lost.stdout)
        let lastAnswered = try XCTUnwrap(try summary(shards[3])["counts"] as? [String: Int])
        let extra = (lastAnswered["succeeded"] ?? 0) + (lastAnswered["rejected"] ?? 0)
        XCTAssertTrue(
            lost.stdout.contains("the mock answered \(extra) more pushes than the merged shards"),
            lost.stdout
        )
        let partial = try XCTUnwrap(try summary(directory.file("lost"))["shard"] as? [String: Any])
        XCTAssertEqual(partial["partial"] as? NSDictionary, ["shards": 4, "missing": [3], "interrupted": []])

        var stopped = try summary(shards[1])
        stopped["interrupted"] = true
        let folder = directory.file("stopped-shard-1-of-4")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: stopped).write(to: URL(fileURLWithPath: folder + "/summary.json"))
        let withStopped = [shards[0], folder, shards[2], shards[3]]
        let refused = try pushbench.run(["merge"] + withStopped + ["-o", directory.file("refused")])
        assertCleanFailure(refused, mentions: "shard(s) 1/4 interrupted before their share was sent")
        let marked = try pushbench.run(["merge", "--partial"] + withStopped + ["-o", directory.file("marked")])
        XCTAssertEqual(marked.status, 5, marked.stderr)
        let markedShard = try XCTUnwrap(try summary(directory.file("marked"))["shard"] as? [String: Any])
        XCTAssertEqual(markedShard["partial"] as? NSDictionary, ["shards": 4, "missing": [], "interrupted": [1]])
        let page = try String(contentsOfFile: directory.file("marked/report.html"), encoding: .utf8)
        XCTAssertTrue(page.contains("PARTIAL: 4 of 4 shards merged"), "the report says it is partial")
    }

    /// A match whose fans are split over two shards by broadcast: each shard creates its own
    /// channel for its part (as a fleet that splits an audience over senders would) and sends
    /// each step to it; the merge adds the broadcast and channel books, and the mock agrees.
    func testBroadcastShardsEachSendTheirChannelAndMergeTheirBooks() throws {
        let curl = try XCTUnwrap(ExternalProgram.onPath("curl"))
        let p8 = directory.file("AuthKey.p8")
        let openssl = try XCTUnwrap(ExternalProgram.onPath("openssl"))
        XCTAssertEqual(
            try openssl.run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", p8]).status,
            0
        )
        let key = ["--auth-key", p8, "--key-id", "ABC123DEFG", "--team-id", "DEF123GHIJ"]
        let received = directory.file("received")
        let (mock, origin, certificate) = try startMock(
            ["--auth-key", p8, "--channel-port", "0", "--report", received] + key.dropFirst(2)
        )
        let announced = try XCTUnwrap(mock.waitForLine(containing: "broadcast channels: https://"), mock.output)
        let url = try XCTUnwrap(announced.split(separator: " ").first { $0.hasPrefix("https://") })
        let channels = String(url.prefix(upTo: try XCTUnwrap(url.range(of: "/1/apps")).lowerBound))
        for index in 0..<2 {
            let shard = try pushbench.run(
                [
                    "run", "--endpoint", origin, "--ca-file", certificate, "--channel-endpoint", channels,
                    "--delivery", "broadcast", "--shard", "\(index)/2", "--reports-dir", directory.file("shards"),
                    // One stream: a start is answered (its device subscribed) before the next
                    // request leaves. With many, nghttp2 may send a later broadcast's DATA before
                    // an earlier start's, and the mock counts fewer subscribers, as APNs would.
                    "--streams", "1",
                ] + key + arguments
            )
            XCTAssertEqual(shard.status, 0, shard.stderr)
            XCTAssertTrue(shard.stdout.contains("channel requests     1 created, 1 deleted"), shard.stdout)
        }
        let stats = try curl.run(["-sS", "--http2", "--cacert", certificate, "\(origin)/stats"])
        let statsFile = try directory.write("stats.json", Array(stats.stdout.utf8))
        let shards = try folders(in: directory.file("shards"))
        let merge = try pushbench.run(
            ["merge"] + shards + ["-o", directory.file("merged"), "--server-stats", statsFile]
        )
        XCTAssertEqual(merge.status, 0, merge.stdout + merge.stderr)
        XCTAssertTrue(merge.stdout.contains("agrees with the client"), merge.stdout)
        let merged = try summary(directory.file("merged"))
        let broadcasts = try XCTUnwrap(merged["broadcasts"] as? [String: Any])
        let sent = try XCTUnwrap((broadcasts["counts"] as? [String: Int])?["sent"])
        XCTAssertEqual(sent % 2, 0, "each shard sends every step to its own channel")
        XCTAssertEqual(broadcasts["devices_reached"] as? Int, sent / 2 * 40, "every fan reached at each step")
        let channelRequests = try XCTUnwrap(merged["channel_requests"] as? [String: Any])
        XCTAssertEqual(channelRequests["created"] as? Int, 2)
        XCTAssertEqual(channelRequests["deleted"] as? Int, 2)
        let served = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(served["broadcasts_accepted"] as? Int, sent)
        XCTAssertEqual(served["broadcast_deliveries"] as? Int, sent / 2 * 40, "the starts subscribed every fan")
        mock.interrupt()
        XCTAssertEqual(mock.waitForExit(), 130, mock.output)
        let report = try String(contentsOfFile: received + "/broadcasts.csv", encoding: .utf8)
        XCTAssertTrue(report.hasPrefix("broadcasts,broadcasts_accepted,deliveries,"), report)
        XCTAssertTrue(report.contains("\r\n\(sent),\(sent),\(sent / 2 * 40),0.000,0.000\r\n"), report)
    }

    /// Two shards launched a second apart, given one --start-at, start their schedules within a
    /// fraction of that; merge says how far apart, and refuses shards given different instants.
    func testShardsGivenOneStartAtStartTogether() throws {
        let shared = try keyAndMock()
        let instant = Int(Date().timeIntervalSince1970) + 4
        func shard(_ index: Int, startAt: Int, into folder: String) -> [String] {
            [
                "run", "--endpoint", shared.origin, "--ca-file", shared.certificate, "--shard", "\(index)/2",
                "--start-at", String(startAt), "--reports-dir", directory.file(folder),
            ] + shared.key + arguments
        }
        let early = try RunningProgram(pushbench, shard(0, startAt: instant, into: "together"), captureStderr: true)
        Thread.sleep(forTimeInterval: 1)
        let late = try pushbench.run(shard(1, startAt: instant, into: "together"))
        XCTAssertEqual(late.status, 0, late.stderr)
        XCTAssertTrue(late.stderr.contains("starting the schedule at"), late.stderr)
        XCTAssertEqual(early.waitForExit(), 0, early.output)
        let shards = try folders(in: directory.file("together"))
        for folder in shards {
            let started = try XCTUnwrap(try summary(folder)["started_at_unix_s"] as? Double)
            XCTAssertEqual(started, Double(instant), accuracy: 0.5, "the schedule starts at the instant")
        }
        let merge = try pushbench.run(["merge"] + shards + ["-o", directory.file("merged")])
        XCTAssertEqual(merge.status, 0, merge.stdout + merge.stderr)
        let line = try XCTUnwrap(merge.stdout.split(separator: "\n").first { $0.hasPrefix("start skew: ") })
        XCTAssertTrue(line.hasSuffix("all given one --start-at"), String(line))
        let skewMs = try XCTUnwrap(Double(line.dropFirst("start skew: ".count).prefix { $0 != " " }))
        XCTAssertLessThan(skewMs, 500, "launched a second apart, started together")

        let other = try pushbench.run(shard(1, startAt: Int(Date().timeIntervalSince1970) + 2, into: "apart"))
        XCTAssertEqual(other.status, 0, other.stderr)
        let mixed = [shards[0]] + (try folders(in: directory.file("apart")))
        let refused = try pushbench.run(["merge"] + mixed + ["-o", directory.file("refused")])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("different --start-at instants"), refused.stderr)
    }

    func testAStartInThePastOrADayAheadIsRefused() throws {
        let now = Int(Date().timeIntervalSince1970)
        for (startAt, says) in [
            ("2020-01-01T00:00:00Z", "in the past"), (String(now + 90_000), "more than 24 hours ahead"),
            ("tomorrow", "expected RFC 3339"),
        ] {
            let output = try pushbench.run(["run", "--requests", "10", "--no-budget", "--start-at", startAt])
            XCTAssertEqual(output.status, 2, output.stderr)
            XCTAssertTrue(output.stderr.contains(says), output.stderr)
        }
    }

    func testTheManifestsGiveEveryPodOneStartAndOnlyFlagsThatExist() throws {
        func manifest(_ name: String) throws -> String {
            try String(contentsOf: Self.repository.appendingPathComponent("deploy/kubernetes/" + name), encoding: .utf8)
        }
        /// `--flag=value` arguments of a manifest's container, as (flag, value).
        func arguments(_ text: String) -> [(flag: Substring, value: Substring)] {
            text.split(separator: "\n").compactMap { line in
                let trimmed = line.drop { $0 == " " }
                guard trimmed.hasPrefix("- --") else { return nil }
                let argument = trimmed.dropFirst(2).prefix { $0 != " " }
                return (argument.prefix { $0 != "=" }, argument.drop { $0 != "=" }.dropFirst())
            }
        }
        let job = try manifest("pushbench-shards.yaml")
        let mock = try manifest("mock-apns.yaml")
        XCTAssertTrue(job.contains("- name: PUSHBENCH_START_AT"), "the pods read one start instant")
        for (text, command) in [(job, "run"), (mock, "mock")] {
            let help = try pushbench.run([command, "--help"]).stdout
            XCTAssertGreaterThan(arguments(text).count, 5)
            for (flag, _) in arguments(text) {
                XCTAssertTrue(help.contains(flag + " "), "\(flag) is not an option of pushbench \(command)")
            }
        }
        let endpoint = try XCTUnwrap(arguments(job).first { $0.flag == "--endpoint" }?.value)
        let host = try XCTUnwrap(URL(string: String(endpoint))?.host)
        XCTAssertTrue(
            arguments(mock).contains { $0.flag == "--cert-name" && $0.value == host },
            "the mock's certificate must name \(host), which the pods dial"
        )
    }

    /// The manifest gives the image arguments only (`run` first), so the image's entry point must
    /// be pushbench; the build links the Swift runtime statically, and the runtime stage installs
    /// the libraries of the -dev packages the build links (Scripts/check-image.sh checks all of
    /// them against the built binary with ldd).
    func testTheImageRunsPushbenchAsTheManifestExpects() throws {
        func text(_ path: String) throws -> String {
            try String(contentsOf: Self.repository.appendingPathComponent(path), encoding: .utf8)
        }
        let dockerfile = try text("Dockerfile")
        let manifest = try text("deploy/kubernetes/pushbench-shards.yaml")
        XCTAssertTrue(dockerfile.contains(#"ENTRYPOINT ["/usr/local/bin/pushbench"]"#))
        XCTAssertFalse(manifest.contains("command:"), "the manifest keeps the image's entry point")
        XCTAssertTrue(manifest.contains("args:\n            - run\n"), "the arguments start with the subcommand")
        XCTAssertTrue(dockerfile.contains("RUN swift build -c release --product pushbench --static-swift-stdlib"))
        for package in ["libcurl4", "libssl3", "libnghttp2-14", "libstdc++6", "ca-certificates"] {
            XCTAssertTrue(dockerfile.contains(" \(package) ") || dockerfile.contains(" \(package)\n"), package)
        }
    }

    func testAnIndexedJobShardComesFromTheEnvironment() throws {
        let both = try pushbench.run(
            ["run", "--requests", "40", "--activities", "40", "--no-budget", "--reports-dir", directory.file("job")],
            environment: ["JOB_COMPLETION_INDEX": "1", "PUSHBENCH_SHARD_COUNT": "2"]
        )
        XCTAssertEqual(both.status, 0, both.stderr)
        XCTAssertTrue(both.stderr.contains("activities 20..<40 of 40 (shard 1/2) (at most 20)"), both.stderr)
        let folder = try XCTUnwrap(try folders(in: directory.file("job")).first)
        XCTAssertTrue(folder.hasSuffix("-shard-1-of-2"), folder)
        XCTAssertEqual((try summary(folder)["counts"] as? [String: Int])?["sent"], 20)

        let indexOnly = try pushbench.run(["run", "--requests", "10"], environment: ["JOB_COMPLETION_INDEX": "0"])
        assertCleanFailure(indexOnly, mentions: "PUSHBENCH_SHARD_COUNT is not")
        let outside = try pushbench.run(["run", "--requests", "10", "--shard", "4/4"])
        assertCleanFailure(outside, mentions: "--shard: shard index must be 0 to 3")
    }
}
