/// What produced a binary: PushBench's version and git commit, and the versions of the
/// libraries it was compiled against. `pushbench --version` prints it and every
/// `summary.json` records it (`build`), so a figure can be traced to the code that measured it.
/// It lives at the bottom, with the versions of the C libraries it names, so that every report
/// can record it without depending on the transports.
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
        libcurl = LinkedLibraries.curlBuiltWith
        libnghttp2 = LinkedLibraries.nghttp2BuiltWith
        openssl = LinkedLibraries.opensslBuiltWith
    }

    /// `pushbench 0.2.0 (commit 55ec79f3a819)` and a line with the libraries.
    public var text: String {
        "pushbench \(version) (commit \(commit))\n"
            + "built with libcurl \(libcurl), libnghttp2 \(libnghttp2), OpenSSL \(openssl)"
    }
}
