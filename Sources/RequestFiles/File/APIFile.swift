import Foundation
import Workload
import Yams

/// How a scenario maps onto a sender service's own API (`profile --api FILE`): the request that
/// registers each activity's tokens before the clock starts (an app's token sync), and the
/// request each event becomes, once per group for a service that fans out or once per activity.
///
/// Read strictly: unknown keys, unknown placeholders and unset `${VARIABLES}` are refused with the
/// file's line, before anything starts. docs/profile-api.md describes the format.
public struct APIFile: Sendable {
    /// One request: method, URL, headers and JSON body, and the statuses that mean success.
    public struct Request: Sendable {
        public var method: String
        var url: TextTemplate
        /// The URL as the file writes it, with the service's port filled (other variables stay
        /// unfilled: they may hold secrets), and its line: what errors and reports show.
        public var urlText: String
        public var urlLine: Int?
        var headers: [(name: String, value: TextTemplate)]
        var body: JSONTemplate?
        /// Statuses that count as success; any 2xx when the file names none.
        public var success: Set<Int>

        /// Whether `status` counts as success.
        public func succeeded(_ status: Int) -> Bool {
            success.isEmpty ? (200..<300).contains(status) : success.contains(status)
        }

        /// The placeholders the request uses.
        var placeholders: [Placeholder] {
            url.placeholders + headers.flatMap(\.value.placeholders) + (body?.placeholders ?? [])
        }

        /// The content-state members the request names (`{{content_state.NAME}}`).
        package var contentStateFields: [String] {
            url.contentStateFields + headers.flatMap(\.value.contentStateFields) + (body?.contentStateFields ?? [])
        }
    }

    /// The devices' side of a match's lifecycle, and the operator's start: what a file with a
    /// `token_report` describes, in place of registrations up front.
    public struct Lifecycle: Sendable {
        /// A device reporting its push-to-start token, before the clock (push-to-start cohorts).
        public var startToken: Request?
        /// The operator's start, once per group or (`per: activity`) once per activity.
        public var start: Request?
        public var startPerActivity: Bool
        /// A device reporting the update token a start (or a rotation) gave its activity.
        public var tokenReport: Request
        /// A device reporting that its user closed the activity.
        public var close: Request?
        /// The team's app, when the file names it; PushBench's own app otherwise.
        public var app: DeviceApp?
    }

    /// The file's path, as given.
    public var path: String
    /// Registrations up front: every activity with its tokens before the clock (a file without
    /// a `token_report`).
    public var register: Request?
    /// The devices' requests and the operator's start, when the file has a `token_report`.
    public var lifecycle: Lifecycle?
    /// The operator's event calls; a file whose service sends on its own clock
    /// (`service_sends`) may have none.
    public var event: Request?
    /// What the service sends by itself, and when (`service_sends`), for a lifecycle file.
    public var serviceSends: ServiceSends?
    /// Whether an event is one request per activity (`per: activity`), not one per group.
    public var perActivity: Bool
    /// What `{{action}}` says for an update and for an end (Netmera: `UPDATE`, `END`).
    public var actions: [LifecyclePhase: String]
    /// A certificate (PEM) to trust for an `https` service, and whether to skip the check.
    public var caFile: String?
    public var insecure: Bool
    /// Whether a plain `http` service speaks HTTP/2 without being asked (`http2: true`, h2c
    /// with prior knowledge); an `https` one is offered HTTP/2 by ALPN either way.
    public var http2: Bool

    /// Reads the file at `path`, filling `${NAME}` from `environment`.
    /// - Throws: `APIFileError` naming the line.
    public init(path: String, environment: [String: String]) throws(APIFileError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw APIFileError(file: path, line: nil, "cannot be read (does it exist?)")
        }
        try self.init(text: String(decoding: data, as: UTF8.self), path: path, environment: environment)
    }

    /// Reads `text`, which came from `path`.
    /// - Throws: `APIFileError` naming the line.
    public init(text: String, path: String, environment: [String: String]) throws(APIFileError) {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw APIFileError(file: path, line: Self.line(of: error), "not valid YAML: \(error)")
        } catch {
            throw APIFileError(file: path, line: nil, "not valid YAML: \(error)")
        }
        if let root, let (variable, line) = Self.firstUnsetVariable(under: root, environment: environment) {
            throw APIFileError(file: path, line: line, "${\(variable)} is not set in the environment")
        }
        var reader = try MappingReader(root, file: path, name: "the file")
        let register = reader.take("register")
        let sends = reader.take("service_sends")
        let event = reader.take("event")
        if event == nil, sends == nil { throw reader.missing("event") }
        let devices = DeviceNodes(&reader)
        caFile = try reader.text("ca_file")
        insecure = try reader.boolean("insecure") ?? false
        http2 = try reader.boolean("http2") ?? false
        try reader.finish()
        self.path = path
        self.register = try Self.registration(register, devices: devices, reader: reader, environment: environment)
        (perActivity, actions, self.event) = try Self.event(event, file: path, environment: environment)
        lifecycle = try devices.lifecycle(file: path, environment: environment)
        serviceSends = try sends.map { (node) throws(APIFileError) in
            try Self.serviceSends(node, lifecycle: lifecycle, file: path)
        }
    }

    /// The event request, `per` and `actions`; none without `event` (`per: group`).
    private static func event(
        _ node: Node?,
        file: String,
        environment: [String: String]
    ) throws(APIFileError) -> (perActivity: Bool, actions: [LifecyclePhase: String], request: Request?) {
        guard let node else { return (false, [.update: "update", .end: "end"], nil) }
        var reader = try MappingReader(node, file: file, name: "event")
        let perActivity = try per(&reader, node: node, file: file)
        let actions = try actions(&reader, file: file)
        let request = try request(&reader, environment: environment)
        try check(request, named: "event", allowed: Placeholder.event(perActivity: perActivity), node: node, file: file)
        return (perActivity, actions, request)
    }

    /// `service_sends`, which needs the devices' reports (a lifecycle), and for starts the
    /// operator's start call: the service is told its times by them.
    private static func serviceSends(
        _ node: Node,
        lifecycle: Lifecycle?,
        file: String
    ) throws(APIFileError) -> ServiceSends {
        let sends = try ServiceSends(node, file: file, environment: [:])
        guard lifecycle != nil else {
            throw APIFileError(
                file: file,
                node: node,
                "service_sends: a service sends on its own clock what the devices and the operator told it; give token_report"
            )
        }
        if sends.start != nil, lifecycle?.start == nil {
            throw APIFileError(
                file: file,
                node: node,
                "service_sends.start: the start is owed at a time its start call gives; give start"
            )
        }
        return sends
    }

    /// `register`, which a file needs unless its devices report their tokens (`token_report`),
    /// and may not have then: the devices' reports stand for it.
    private static func registration(
        _ node: Node?,
        devices: DeviceNodes,
        reader: MappingReader,
        environment: [String: String]
    ) throws(APIFileError) -> Request? {
        if let stray = devices.strayWithoutReport(file: reader.file) { throw stray }
        switch (node, devices.tokenReport) {
        case (nil, nil): throw reader.missing("register")
        case (nil, _?): return nil
        case (let node?, _?):
            throw APIFileError(
                file: reader.file,
                node: node,
                "register: a file whose devices report their tokens (token_report) registers nothing up front"
            )
        case (let node?, nil):
            var registerReader = try MappingReader(node, file: reader.file, name: "register")
            let request = try Self.request(&registerReader, environment: environment)
            try Self.check(request, named: "register", allowed: Placeholder.registration, node: node, file: reader.file)
            return request
        }
    }

    /// `per: group` (the default) or `per: activity`.
    fileprivate static func per(_ reader: inout MappingReader, node: Node, file: String) throws(APIFileError) -> Bool {
        let per = try reader.text("per") ?? "group"
        guard per == "group" || per == "activity" else {
            throw APIFileError(file: file, node: node, "\(reader.name).per: group or activity, not \(per)")
        }
        return per == "activity"
    }

    /// What `{{action}}` says for an update and for an end.
    private static func actions(
        _ reader: inout MappingReader,
        file: String
    ) throws(APIFileError) -> [LifecyclePhase: String] {
        var actions: [LifecyclePhase: String] = [.update: "update", .end: "end"]
        if let node = reader.take("actions") {
            var actionReader = try MappingReader(node, file: file, name: "event.actions")
            for phase in [LifecyclePhase.update, .end] {
                if let name = try actionReader.text(phase.rawValue) { actions[phase] = name }
            }
            try actionReader.finish()
        }
        return actions
    }

    /// Reads a request's members from `reader`, which then refuses any key left unread.
    fileprivate static func request(
        _ reader: inout MappingReader,
        environment: [String: String]
    ) throws(APIFileError) -> Request {
        let file = reader.file
        let name = reader.name
        let method = (try reader.text("method") ?? "POST").uppercased()
        guard let urlNode = reader.take("url"), let urlText = urlNode.scalar?.string else {
            throw reader.missing("url")
        }
        let url = try template(urlText, node: urlNode, file: file, environment: environment)
        guard
            let scheme = url.render({ _ in .text("x") }).split(separator: ":").first,
            scheme == "http" || scheme == "https"
        else {
            throw APIFileError(file: file, node: urlNode, "\(name).url: an http:// or https:// URL, not \(urlText)")
        }
        var headers: [(name: String, value: TextTemplate)] = []
        if let node = reader.take("headers") {
            guard case .mapping(let mapping) = node else {
                throw APIFileError(file: file, node: node, "\(name).headers: a mapping of names to values")
            }
            for (key, value) in mapping {
                guard let header = key.scalar?.string, let text = value.scalar?.string else {
                    throw APIFileError(file: file, node: key, "\(name).headers: each name and value must be text")
                }
                headers.append((header, try template(text, node: value, file: file, environment: environment)))
            }
        }
        let body = try reader.take("body").map { (node) throws(APIFileError) in
            try JSONTemplate(node, file: file, environment: environment)
        }
        var success: Set<Int> = []
        if let node = reader.take("success") {
            let items: [Node] = node.sequence.map(Array.init) ?? [node]
            for item in items {
                guard let status = item.scalar.flatMap({ Int($0.string) }), (100...599).contains(status) else {
                    throw APIFileError(file: file, node: item, "\(name).success: HTTP statuses, such as [200, 202]")
                }
                success.insert(status)
            }
        }
        try reader.finish()
        let port = "${\(Self.portVariable)}"
        return Request(
            method: method,
            url: url,
            urlText: environment[Self.portVariable].map { urlText.replacingOccurrences(of: port, with: $0) }
                ?? urlText,
            urlLine: urlNode.mark?.line,
            headers: headers,
            body: body,
            success: success
        )
    }

    private static func template(
        _ text: String,
        node: Node,
        file: String,
        environment: [String: String]
    ) throws(APIFileError) -> TextTemplate {
        do {
            return try TextTemplate(parsing: text, environment: environment)
        } catch {
            throw APIFileError(file: file, node: node, error.message)
        }
    }

    /// Refuses a placeholder the request cannot fill (an event sent per group has no token).
    fileprivate static func check(
        _ request: Request,
        named name: String,
        allowed: Set<Placeholder>,
        node: Node,
        file: String
    ) throws(APIFileError) {
        guard let stray = request.placeholders.first(where: { !allowed.contains($0) }) else { return }
        let why =
            switch name {
            case "register": "a registration knows its activity, group and tokens only"
            case "start_token": "a device reports its push-to-start token before it has an activity"
            case "token_report", "close": "a device's report knows its device, activity and tokens, not a call's"
            case "start": "a start sent per group has no single activity, device or token (use per: activity)"
            default: "an event sent per group has no single activity or token (use per: activity)"
            }
        throw APIFileError(
            file: file,
            line: line(of: stray, under: node) ?? node.mark?.line,
            "\(name) uses {{\(stray.rawValue)}}: \(why); it knows "
                + Placeholder.allCases.filter(allowed.contains).map { "{{\($0.rawValue)}}" }.joined(separator: ", ")
        )
    }

    /// The first `${NAME}` under `node`, in the file's order, that `environment` does not set,
    /// with its line: named where it is first used, whichever request the file reads first.
    private static func firstUnsetVariable(under node: Node, environment: [String: String]) -> (String, Int?)? {
        switch node {
        case .scalar(let scalar):
            var rest = Substring(scalar.string)
            while let open = rest.firstRange(of: "${"), let close = rest[open.upperBound...].firstIndex(of: "}") {
                let name = rest[open.upperBound..<close].trimmingCharacters(in: .whitespaces)
                if environment[name] == nil { return (name, scalar.mark?.line) }
                rest = rest[rest.index(after: close)...]
            }
            return nil
        case .mapping(let mapping):
            return mapping.lazy.compactMap {
                firstUnsetVariable(under: $0.key, environment: environment)
                    ?? firstUnsetVariable(under: $0.value, environment: environment)
            }.first
        case .sequence(let sequence):
            return sequence.lazy.compactMap { firstUnsetVariable(under: $0, environment: environment) }.first
        case .alias: return nil
        }
    }

    /// The line of the first scalar under `node` that uses `placeholder`.
    fileprivate static func line(of placeholder: Placeholder, under node: Node) -> Int? {
        switch node {
        case .scalar(let scalar): scalar.string.contains("{{\(placeholder.rawValue)") ? scalar.mark?.line : nil
        case .mapping(let mapping): mapping.lazy.compactMap { line(of: placeholder, under: $0.value) }.first
        case .sequence(let sequence): sequence.lazy.compactMap { line(of: placeholder, under: $0) }.first
        case .alias: nil
        }
    }

    private static func line(of error: YamlError) -> Int? {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _): mark.line
        default: nil
        }
    }
}

/// The file's device-side sections, read before the file is finished and checked once the
/// event is: a `token_report` makes it a lifecycle file, and `start_token`, `start` and `close`
/// need one.
private struct DeviceNodes {
    var startToken: Node?
    var start: Node?
    var tokenReport: Node?
    var close: Node?
    var app: Node?

    init(_ reader: inout MappingReader) {
        startToken = reader.take("start_token")
        start = reader.take("start")
        tokenReport = reader.take("token_report")
        close = reader.take("close")
        app = reader.take("app")
    }

    /// A device-side section in a file without a `token_report`: there is no lifecycle to put it in.
    func strayWithoutReport(file: String) -> APIFileError? {
        guard tokenReport == nil, let stray = startToken ?? start ?? close ?? app else { return nil }
        return APIFileError(
            file: file,
            node: stray,
            "start_token, start, close and app are a device's lifecycle: give token_report, the request a device reports its update token with"
        )
    }

    /// The team's app, when the file names it: its attributes type, and the members its
    /// attributes and content state need.
    private func deviceApp(file: String) throws(APIFileError) -> DeviceApp? {
        guard let app else { return nil }
        var reader = try MappingReader(app, file: file, name: "app")
        guard let type = try reader.text("attributes_type"), !type.isEmpty else {
            throw reader.missing("attributes_type")
        }
        let made = DeviceApp(
            attributesType: type,
            attributes: try reader.texts("attributes") ?? [],
            contentState: try reader.texts("content_state") ?? []
        )
        try reader.finish()
        return made
    }

    func lifecycle(file: String, environment: [String: String]) throws(APIFileError) -> APIFile.Lifecycle? {
        guard let tokenReport else { return nil }
        var startPerActivity = false
        var startRequest: APIFile.Request?
        if let start {
            var reader = try MappingReader(start, file: file, name: "start")
            startPerActivity = try APIFile.per(&reader, node: start, file: file)
            startRequest = try Self.request(
                &reader,
                "start",
                Placeholder.start(perActivity: startPerActivity),
                environment
            )
        }
        for (name, node) in [("token_report", tokenReport), ("close", close)] where startRequest == nil {
            guard let node, let line = APIFile.line(of: .startPush, under: node) else { continue }
            throw APIFileError(
                file: file,
                line: line,
                "\(name) uses {{start.…}}: this file has no start request, so its activities start locally and no start push carries anything"
            )
        }
        return APIFile.Lifecycle(
            startToken: try startToken.map { (node) throws(APIFileError) in
                var reader = try MappingReader(node, file: file, name: "start_token")
                return try Self.request(&reader, "start_token", Placeholder.startTokenReport, environment)
            },
            start: startRequest,
            startPerActivity: startPerActivity,
            tokenReport: try Self.section(tokenReport, "token_report", file: file, environment: environment),
            close: try close.map { (node) throws(APIFileError) in
                try Self.section(node, "close", file: file, environment: environment)
            },
            app: try deviceApp(file: file)
        )
    }

    /// A device's report: its request, with only what a device knows.
    private static func section(
        _ node: Node,
        _ name: String,
        file: String,
        environment: [String: String]
    ) throws(APIFileError) -> APIFile.Request {
        var reader = try MappingReader(node, file: file, name: name)
        return try request(&reader, name, Placeholder.deviceReport, environment)
    }

    private static func request(
        _ reader: inout MappingReader,
        _ name: String,
        _ allowed: Set<Placeholder>,
        _ environment: [String: String]
    ) throws(APIFileError) -> APIFile.Request {
        let node = reader.node
        let request = try APIFile.request(&reader, environment: environment)
        try APIFile.check(request, named: name, allowed: allowed, node: node, file: reader.file)
        return request
    }
}

/// Reads one mapping of an API file strictly: each key once, unknown keys refused.
private struct MappingReader {
    let file: String
    let name: String
    let node: Node
    private var members: [(key: String, keyNode: Node, value: Node)] = []
    private var taken: Set<String> = []

    init(_ node: Node?, file: String, name: String) throws(APIFileError) {
        guard let node, case .mapping(let mapping) = node else {
            throw APIFileError(file: file, node: node, "\(name): expected a mapping of keys to values")
        }
        self.file = file
        self.name = name
        self.node = node
        for (key, value) in mapping {
            guard let text = key.scalar?.string else { throw APIFileError(file: file, node: key, "keys must be text") }
            members.append((text, key, value))
        }
    }

    private func field(_ key: String) -> String { name == "the file" ? key : "\(name).\(key)" }

    mutating func take(_ key: String) -> Node? {
        taken.insert(key)
        return members.first { $0.key == key }?.value
    }

    mutating func text(_ key: String) throws(APIFileError) -> String? {
        guard let node = take(key) else { return nil }
        guard let text = node.scalar?.string else {
            throw APIFileError(file: file, node: node, "\(field(key)): expected text")
        }
        return text
    }

    /// A list of texts (`[homeScore, awayScore]`).
    mutating func texts(_ key: String) throws(APIFileError) -> [String]? {
        guard let node = take(key) else { return nil }
        let items = node.sequence.map(Array.init)
        let texts = items?.compactMap(\.scalar?.string)
        guard let texts, texts.count == items?.count else {
            throw APIFileError(file: file, node: node, "\(field(key)): expected a list of names, such as [gameID]")
        }
        return texts
    }

    mutating func boolean(_ key: String) throws(APIFileError) -> Bool? {
        guard let node = take(key) else { return nil }
        guard let value = node.scalar?.string, let flag = Bool(value) else {
            throw APIFileError(file: file, node: node, "\(field(key)): expected true or false")
        }
        return flag
    }

    func missing(_ key: String) -> APIFileError {
        APIFileError(file: file, node: node, "\(field(key)): required")
    }

    func finish() throws(APIFileError) {
        if let unknown = members.first(where: { !taken.contains($0.key) }) {
            throw APIFileError(file: file, node: unknown.keyNode, "\(field(unknown.key)): unknown key")
        }
    }
}
