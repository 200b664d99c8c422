import Sampling
import XCTest

final class CPUShareTests: XCTestCase {
    func testEachKindOfCodeHasItsClass() {
        let cases: [(String, String, CPUShare)] = [
            ("tcp_sendmsg", "kernel", .kernel),
            ("__vdso_clock_gettime", "[vdso]", .kernel),
            ("EVP_DigestSignFinal", "libcrypto.so.3", .tlsCrypto),
            ("ssl3_write_bytes", "libssl.so.3", .tlsCrypto),
            ("crypto/ecdsa.signGeneric", "sender", .tlsCrypto),
            ("[unknown]", "_rust.abi3.so", .tlsCrypto),
            ("JSONOutput.append(_:)", "pushbench", .json),
            ("PayloadEncoder.encode(_:into:)", "pushbench", .json),
            ("encoder_listencode_obj", "_json.cpython-311-x86_64-linux-gnu.so", .json),
            ("nghttp2_session_send", "libnghttp2.so.14.24.1", .http2),
            ("HTTP2Connection.submit(_:)", "pushbench", .http2),
            ("Curl_multi_perform", "libcurl.so.4.8.0", .http2),
            ("swift_retain", "libswiftCore.so", .runtimeAllocator),
            ("malloc", "libc.so.6", .runtimeAllocator),
            ("_PyEval_EvalFrameDefault", "python3.11", .runtimeAllocator),
            ("[unknown]", "_asyncio.cpython-311-x86_64-linux-gnu.so", .runtimeAllocator),
            ("runtime.mallocgc", "sender", .runtimeAllocator),
            ("je_malloc", "libjemalloc.so.2", .runtimeAllocator),
            ("LoadWorker.run()", "pushbench", .senderCode),
            ("main.sendOne", "sender", .senderCode),
            ("py::send_one:/srv/sender.py", "perf-4242.map", .senderCode),
            ("inflate", "libz.so.1", .other),
            ("[unknown]", "[unknown]", .other),
        ]
        for (function, library, expected) in cases {
            XCTAssertEqual(
                CPUShare(of: StackFrame(function: function, library: library)),
                expected,
                "\(function) in \(library)"
            )
        }
    }
}
