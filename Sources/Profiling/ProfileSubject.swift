import ServiceDriver
import Wire

/// What `profile` measures: a sender it starts, a sender service it starts and drives through
/// its API, or a service that already runs, driven the same way. Each case carries what only it
/// needs, so no step asks whether a command is empty.
public enum ProfileSubject: Sendable {
    /// A sender run as a child, handed the events and tokens files.
    case sender(command: [String])
    /// A sender service run as a child and driven through its API.
    case service(command: [String], api: ServiceAPI)
    /// A sender service that already runs, driven through its API. The mock listens on
    /// `mockPort`, where the service sends its pushes, with `mockIdentity` (the certificate the
    /// service trusts) when given.
    case runningService(api: ServiceAPI, mockPort: Int, mockIdentity: TLSIdentity?)

    /// The command profile starts, or `nil` for a service that already runs: its processes'
    /// CPU and memory are measured only when profile started them.
    public var command: [String]? {
        switch self {
        case .sender(let command), .service(let command, _): command
        case .runningService: nil
        }
    }

    /// The service's API, for a service.
    public var api: ServiceAPI? {
        switch self {
        case .sender: nil
        case .service(_, let api), .runningService(let api, _, _): api
        }
    }

    /// What the report calls it: the command line, or the service by its registration URL.
    public var description: String {
        switch self {
        case .sender(let command), .service(let command, _): command.joined(separator: " ")
        case .runningService(let api, mockPort: _, mockIdentity: _):
            "the service at "
                + ((api.file.register ?? api.file.event ?? api.file.lifecycle?.tokenReport)?.urlText ?? api.file.path)
        }
    }
}
