/// Why the transport could not be set up or a request not be started.
public enum TransportError: Error, CustomStringConvertible {
    case setup(String)

    public var description: String {
        switch self {
        case .setup(let detail): "HTTP/2 client set-up failed: \(detail)"
        }
    }
}
