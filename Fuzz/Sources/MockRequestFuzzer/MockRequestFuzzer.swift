import MockAPNs

/// One fuzzer for the whole process: it holds the signing key the `VALID` bearer stands for.
nonisolated(unsafe) private let fuzzer = try! RequestFuzzer()

/// libFuzzer's entry point: one made-up input, put through the mock's request checks. Any trap
/// (an index out of range, an overflow, a failed precondition) is a crash libFuzzer keeps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    fuzzer.exercise(Array(UnsafeBufferPointer(start: data, count: count)))
    return 0
}
