import CCurl

/// The request headers that every push of a run shares (authorization, push type, topic,
/// priority, expiration), as one libcurl header list.
///
/// Each in-flight request links its own `apns-id` line in front of this list instead of copying
/// it, and keeps the block alive until it completes; a new block (after a token refresh) simply
/// replaces the old one for later requests.
public final class HeaderBlock {
    let list: UnsafeMutablePointer<curl_slist>?

    /// Creates a block from `name: value` lines.
    public init(lines: [String]) {
        var list: UnsafeMutablePointer<curl_slist>? = nil
        for line in lines {
            list = curl_slist_append(list, line)
        }
        self.list = list
    }

    deinit {
        curl_slist_free_all(list)
    }
}
