import Wire

extension MockStats.Snapshot {
    /// The counters as `GET /stats` serves them: one JSON object, keys in snake case, maps sorted
    /// by key so two snapshots diff cleanly. `providerTokenFullChecks` comes from the verifier,
    /// which counts apart from the answers.
    public func json(providerTokenFullChecks: Int) -> [UInt8] {
        func object(_ counts: [String: Int]) -> JSONValue {
            .object(counts.sorted { $0.key < $1.key }.map { JSONMember($0.key, .integer(Int64($0.value))) })
        }
        let byConnection = Dictionary(uniqueKeysWithValues: pushesByConnection.map { (String($0.key), $0.value) })
        let members =
            [
                JSONMember("instance", .string(instance)),
                JSONMember("pushes", .integer(Int64(pushes))),
                JSONMember("accepted", .integer(Int64(accepted))),
                JSONMember("rejected_by_reason", object(rejectedByReason)),
                JSONMember("pushes_by_push_type", object(pushesByPushType)),
                JSONMember("pushes_by_priority", object(pushesByPriority)),
                JSONMember("pushes_by_connection", object(byConnection)),
                JSONMember("pushes_by_client_address", object(pushesByClient)),
                JSONMember("faults_injected", object(faultsInjected)),
                JSONMember("live_activity_would_drop", object(liveActivityWouldDrop)),
                JSONMember("accepted_irregular", object(acceptedIrregular)),
                JSONMember("channel_requests", object(channelRequests)),
                JSONMember("broadcast_rejected_by_reason", object(broadcastRejectedByReason)),
                JSONMember("channel_requests_rejected_by_reason", object(channelRequestsRejectedByReason)),
                JSONMember("connection_errors", object(connectionErrors)),
            ]
            + scalars(providerTokenFullChecks: providerTokenFullChecks).map {
                JSONMember($0.key, .integer(Int64($0.value)))
            }
        var bytes: [UInt8] = []
        JSONWriter.write(.object(members), to: &bytes)
        return bytes
    }
}
