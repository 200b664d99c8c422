/// Where a sample's CPU went, by the kind of code that was running (the stack's leaf): the
/// split a performance engineer reads first, and the one `compare` sets side by side.
///
/// Each sample goes to one class, by its leaf frame's library and function, in this order:
/// the kernel; TLS and crypto; JSON; HTTP/2 and HTTP clients; the language runtime and
/// allocator; the sender's own code; anything else. Self time only: time in `memcpy` called
/// from an encoder is the C library's, as a profiler's self column counts it.
public enum CPUShare: String, CaseIterable, Sendable, Codable, Comparable {
    /// The kernel's code (system calls, the network stack, interrupts) and its vDSO (the clock).
    case kernel
    /// TLS and cryptography: libssl, libcrypto, GnuTLS, nettle, Python's `_ssl` and
    /// `cryptography`, Go's `crypto/`.
    case tlsCrypto = "tls_crypto"
    /// JSON: any function or library whose name says JSON, and PushBench's payload encoder.
    case json
    /// HTTP/2 and HTTP clients: libnghttp2, libcurl, anything named HTTP2 or HPACK.
    case http2
    /// The language runtime and allocator: the C and C++ libraries, the dynamic loader, Swift's
    /// runtime, Foundation and Dispatch, jemalloc and friends, the Python, Node and Java
    /// interpreters and their extension modules, Go's `runtime.`.
    case runtimeAllocator = "runtime_allocator"
    /// The sender's own code: its executable, and code perf named through a JIT's map
    /// (`python -X perf`, `node --perf-basic-prof`).
    case senderCode = "sender_code"
    /// Any other shared library, and what perf could not name.
    case other

    /// How a report names the class.
    public var title: String {
        switch self {
        case .kernel: "kernel"
        case .tlsCrypto: "TLS and crypto"
        case .json: "JSON"
        case .http2: "HTTP/2 and HTTP"
        case .runtimeAllocator: "runtime and allocator"
        case .senderCode: "sender's own code"
        case .other: "other"
        }
    }

    public static func < (left: CPUShare, right: CPUShare) -> Bool {
        allCases.firstIndex(of: left)! < allCases.firstIndex(of: right)!
    }

    /// The class of the code running in `frame`.
    public init(of frame: StackFrame) {
        let library = frame.library.lowercased()
        let function = frame.function
        let lowerFunction = function.lowercased()
        if library == "kernel" || library == "[vdso]" {
            self = .kernel
        } else if Self.tlsLibraries.contains(where: library.contains) || function.hasPrefix("crypto/") {
            self = .tlsCrypto
        } else if library.contains("json") || lowerFunction.contains("json")
            || Self.payloadEncoder.contains(where: function.contains)
        {
            self = .json
        } else if library.contains("nghttp2") || library.contains("curl") || lowerFunction.contains("http2")
            || lowerFunction.contains("hpack")
        {
            self = .http2
        } else if Self.runtimeLibraries.contains(where: library.hasPrefix) || library.contains(".cpython-")
            || function.hasPrefix("runtime.")
        {
            self = .runtimeAllocator
        } else if library.hasPrefix("perf-") && library.hasSuffix(".map") {
            self = .senderCode
        } else if library.isEmpty || library.hasPrefix("[") || library.contains(".so") {
            self = .other
        } else {
            self = .senderCode
        }
    }

    private static let tlsLibraries = [
        "libssl", "libcrypto", "libgnutls", "libnettle", "libhogweed", "libgcrypt", "libsodium", "_ssl.",
        "_hashlib.", "_rust.abi3", "boringssl",
    ]

    /// PushBench's own payload encoder, whose types do not all say JSON.
    private static let payloadEncoder = ["PayloadEncoder.", "LiveActivityPayload.", "ContentStateTemplate."]

    private static let runtimeLibraries = [
        "libc.so", "libc-", "libm.so", "ld-linux", "libstdc++", "libgcc_s", "libpthread", "libswift",
        "libfoundation", "libdispatch", "libblocksruntime", "libjemalloc", "libtcmalloc", "libmimalloc",
        "libpython", "python", "node", "libnode", "libuv", "libjvm", "java", "libffi", "libicu",
    ]
}
