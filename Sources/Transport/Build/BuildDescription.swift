import Wire

/// What produced a binary: PushBench's version and git commit, and the versions of the
/// libraries it was compiled against. `pushbench --version` prints it and every
/// `summary.json` records it (`build`), so a figure can be traced to the code that measured it.
/// It lives with the transports, whose C libraries it names, so that the reports and the
/// instruction counts can both record it without one depending on the other.
public struct BuildDescription: Codable, Sendable, Equatable {
    public var version: String
    public var commit: String
    public var libcurl: String
    public var libnghttp2: String
    public var openssl: String

    /// The build of this binary: `version` and `commit` from the build, the C libraries' from
    /// their headers.
    public init(version: String, commit: String) {
        self.version = version
        self.commit = commit
        libcurl = CurlLibrary.builtWith
        libnghttp2 = NGHTTP2Library.builtWith
        openssl = OpenSSLLibrary.builtWith
    }

    /// `pushbench 0.2.0 (commit 55ec79f3a819)` and a line with the libraries.
    public var text: String {
        "pushbench \(version) (commit \(commit))\n"
            + "built with libcurl \(libcurl), libnghttp2 \(libnghttp2), OpenSSL \(openssl)"
    }
}
