import Foundation

/// The files a sealed network's inside sees in `/etc` instead of the host's, written to a folder
/// of the run's and bound over the host's in the inside's own mount namespace only.
struct SealFiles {
    let folder: String

    /// Writes `bytes` to `name` in the folder (made if need be); its path.
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = (folder as NSString).appendingPathComponent(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Writes the hosts file, the resolver's and the name service's configurations, and returns
    /// every file to bind over the host's (those the host has: a bind needs its target).
    func binds(
        hosts: [AppleHost],
        reach: [ReachAddress],
        stubs: [StubHost],
        bundle: String
    ) throws -> [(source: String, target: String)] {
        let hostsText = hostsFile(hosts: hosts, reach: reach, stubs: stubs)
        var binds = [(source: try write("hosts", Array(hostsText.utf8)), target: "/etc/hosts")]
        // A server nobody runs inside: a name not in the hosts file fails at once, never reaching
        // a resolver outside (which would not be reachable anyway).
        binds.append(
            (
                try write("resolv.conf", Array("nameserver 127.0.0.1\noptions timeout:1 attempts:1\n".utf8)),
                "/etc/resolv.conf"
            )
        )
        if let order = try nameServiceOrder() { binds.append((order, "/etc/nsswitch.conf")) }
        binds.append((bundle, SealedNetwork.systemBundle))
        let manager = FileManager.default
        return binds.filter { manager.fileExists(atPath: $0.target) }
    }

    /// Loopback's names, Apple's, the names given to `--reach`, and the stubs' (`--host`).
    func hostsFile(hosts: [AppleHost], reach: [ReachAddress], stubs: [StubHost] = []) -> String {
        var lines = [
            "# The sealed network of pushbench profile --as-apple: Apple's APNs names are the mock.",
            "127.0.0.1\tlocalhost",
            "::1\tlocalhost ip6-localhost ip6-loopback",
        ]
        lines += hosts.map { "\($0.addressText)\t\($0.name)" }
        lines += reach.compactMap { address in address.name.map { "\(IPv4.text(address.address))\t\($0)" } }
        lines += stubs.map { "\(IPv4.text($0.address))\t\($0.name)" }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The host's `nsswitch.conf` with hosts looked up in the files first and by DNS only (not
    /// through a daemon outside, such as systemd-resolved or nscd, which would answer with
    /// Apple's real addresses); `nil` when the host has none.
    private func nameServiceOrder() throws -> String? {
        guard let text = try? String(contentsOfFile: "/etc/nsswitch.conf", encoding: .utf8) else { return nil }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeAll { $0.trimmingCharacters(in: .whitespaces).hasPrefix("hosts:") }
        lines.append("hosts: files dns")
        return try write("nsswitch.conf", Array((lines.joined(separator: "\n") + "\n").utf8))
    }
}
