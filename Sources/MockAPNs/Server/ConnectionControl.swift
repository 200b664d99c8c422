/// What the protocol logic may do to a connection beyond answering its streams: raise or lower
/// the stream limit, say GOAWAY, reset it.
///
/// `ConnectionState` decides when (a first valid token, a rejection, a fault plan's count or
/// moment); `ServerConnection` says how on the wire. Apart, so that the decisions are tested
/// without a socket. Called only on the connection's own thread.
protocol ConnectionControl: AnyObject {
    /// Sends SETTINGS with `SETTINGS_MAX_CONCURRENT_STREAMS` = `limit`, ahead of any answer
    /// written after it.
    func advertise(maxConcurrentStreams limit: Int)
    /// Sends GOAWAY (NO_ERROR, `{"reason":"Shutdown"}`) naming `lastStream`, then closes the
    /// connection a second later.
    func sendGoAway(lastStream: Int32)
    /// Resets the TCP connection (RST, SO_LINGER 0) once what is already written is out, with
    /// no TLS close_notify.
    func reset()
}

/// What the frames `ConnectionControl` sends say.
enum ConnectionControlWords {
    /// GOAWAY's debug data, as APNs words a shutdown.
    static let goAwayReason = Array(#"{"reason":"Shutdown"}"#.utf8)
}
