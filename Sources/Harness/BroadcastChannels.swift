import LoadEngine
import Transport
import Wire
import Workload

/// The broadcast channels of a run: created through APNs' channel management API before the
/// first push (each group's starts name its channel), deleted when the run ends, as Apple asks
/// of channels whose event is over. Every request is timed and counted in `books`.
final class BroadcastChannels {
    /// Each broadcast group's channel, by group id.
    let ids: [Int: String]
    /// The channel requests so far.
    private(set) var books = ChannelBooks()
    private let client: ChannelClient
    private let bundleID: String
    private let tokens: ProviderTokenCache

    private init(
        ids: [Int: String],
        books: ChannelBooks,
        client: ChannelClient,
        bundleID: String,
        tokens: ProviderTokenCache
    ) {
        self.ids = ids
        self.books = books
        self.client = client
        self.bundleID = bundleID
        self.tokens = tokens
    }

    /// Creates a channel for each of `groups`, with its cohort's storage policy, at `origin`.
    /// - Throws: `RunSessionError` naming the first refusal (the app's channel limit, a bad
    ///   token), after deleting the channels already created.
    static func create(
        for groups: [(group: Int, cohort: Int)],
        of load: LoadConfiguration,
        at origin: String,
        tokens: ProviderTokenCache
    ) throws -> BroadcastChannels {
        let client: ChannelClient
        do {
            client = try ChannelClient(origin: origin, configuration: load.transport)
        } catch {
            throw RunSessionError("the channel management client could not start: \(error)")
        }
        var ids: [Int: String] = [:]
        var books = ChannelBooks()
        for (group, cohort) in groups {
            let answer = client.create(
                bundleID: load.bundleID,
                storagePolicy: load.scenario.cohorts[cohort].channelStorage.policy,
                authorization: try bearer(tokens)
            )
            books.latency.record(max(1, answer.latencyNanos / 1000))
            guard answer.status == 201, let id = answer.channelID, !id.isEmpty else {
                let reason = answer.reason ?? "HTTP \(answer.status)"
                books.failedByReason["create \(reason)", default: 0] += 1
                let created = BroadcastChannels(
                    ids: ids,
                    books: books,
                    client: client,
                    bundleID: load.bundleID,
                    tokens: tokens
                )
                created.deleteAll()
                throw RunSessionError(
                    "creating the broadcast channel of group \(group) (\(ids.count) of \(groups.count) created) at "
                        + "\(origin) failed: \(answer.status == 0 ? reason : "\(answer.status) \(reason)")"
                        + (reason == "CannotCreateChannelConfig" ? " (the app's channel limit is reached)" : "")
                )
            }
            books.created += 1
            ids[group] = id
        }
        return BroadcastChannels(ids: ids, books: books, client: client, bundleID: load.bundleID, tokens: tokens)
    }

    /// Deletes every channel, counting each answer; a refusal is counted, not thrown, since the
    /// run's figures are already measured.
    func deleteAll() {
        for id in ids.values.sorted() {
            guard let authorization = try? Self.bearer(tokens) else { return }
            let answer = client.delete(bundleID: bundleID, channelID: id, authorization: authorization)
            books.latency.record(max(1, answer.latencyNanos / 1000))
            if answer.status == 204 {
                books.deleted += 1
            } else {
                books.failedByReason["delete \(answer.reason ?? "HTTP \(answer.status)")", default: 0] += 1
            }
        }
    }

    private static func bearer(_ tokens: ProviderTokenCache) throws -> String {
        try tokens.token(now: Int64(WallClock.system.now())).authorization
    }
}
