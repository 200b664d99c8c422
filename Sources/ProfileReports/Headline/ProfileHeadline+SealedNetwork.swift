import Reports

extension ProfileHeadline {
    /// Where the sender's pushes went in its sealed network (`--as-apple`): each of Apple's
    /// names it used, with its environment, that nothing else was reachable, and the handshakes
    /// that never finished, by host (a pinned certificate, or a CA store other than the system's).
    static func sealed(_ network: RunSummary.SealedNetwork) -> RunHeadline.Line {
        let used = network.hosts.filter { $0.connections > 0 }
        let names =
            used.isEmpty
            ? "no connection reached any of Apple's names"
            : used.map {
                "\($0.name):\($0.port) took \($0.requests) requests (\($0.accepted) accepted, \($0.environment))"
            }.joined(separator: ", ")
        let reach =
            network.reach.isEmpty
            ? "nothing else was reachable from inside"
            : "nothing else was reachable from inside but "
                + network.reach.map {
                    "\($0.address) (\($0.connections) connections" + ($0.refused > 0 ? ", \($0.refused) refused" : "")
                        + ")"
                }.joined(separator: ", ")
        let carried =
            network.carriedIn.isEmpty
            ? ""
            : "; its API was carried in at "
                + network.carriedIn.map { "\($0.address) (\($0.connections) connections)" }.joined(separator: ", ")
        let unfinished = network.unfinishedHandshakes
        let handshakes =
            unfinished.isEmpty
            ? ""
            : " "
                + unfinished.map { "\($0.count) connection\($0.count == 1 ? "" : "s") to \($0.host)" }.joined(
                    separator: ", "
                )
                + " never finished TLS with the mock: the sender does not trust its CA (a pinned certificate, or a CA store of its own)."
        return RunHeadline.Line(
            topic: "sealed",
            sentence:
                "The sender ran in a sealed network where Apple's names were the mock: \(names); \(reach)\(carried)."
                + handshakes,
            good: unfinished.isEmpty && !used.isEmpty
        )
    }
}
