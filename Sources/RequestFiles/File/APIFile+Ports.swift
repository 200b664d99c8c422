import Foundation

extension APIFile {
    /// The variable a service started by profile finds its port in, and the file may name.
    public static let portVariable = "PUSHBENCH_SERVICE_PORT"

    /// The host and port of `url` (`http://host:port/...`; 80 or 443 when it names none).
    package static func endpoint(of url: String) -> (host: String, port: Int)? {
        guard let components = URLComponents(string: url), let host = components.host, let scheme = components.scheme
        else { return nil }
        return (host, components.port ?? (scheme == "https" ? 443 : 80))
    }

    /// Every request the file describes.
    public var requests: [Request] {
        [register, lifecycle?.startToken, lifecycle?.start, lifecycle?.tokenReport, lifecycle?.close, event].compactMap
        {
            $0
        }
    }

    /// Whether a request names an activity's start or end (`{{activity_start}}`,
    /// `{{activity_end}}`): the workload keeps them only then.
    package var needsActivityTimes: Bool {
        let owed = [serviceSends?.start?.base, serviceSends?.end?.base].compactMap { $0 }
        return owed.contains(where: Placeholder.activityTimes.contains)
            || requests.contains { $0.placeholders.contains(where: Placeholder.activityTimes.contains) }
    }

    /// Whether a device's report names a member of its start push (`{{start.attributes.NAME}}`):
    /// the devices keep their start pushes only then.
    package var namesStartPush: Bool {
        [lifecycle?.tokenReport, lifecycle?.close].contains { $0?.placeholders.contains(.startPush) == true }
    }

    /// The ports of the loopback its requests go to, each once, and the URLs that name another
    /// host: a service in a sealed network (`profile --as-apple`) is reached on its loopback only.
    public var loopbackPorts: (ports: [Int], elsewhere: [String]) {
        var ports: [Int] = []
        var elsewhere: [String] = []
        for request in requests {
            // Every variable filled (the port's, or any other: `${FEED_PORT}`), no placeholder
            // in a host or a port.
            guard let endpoint = Self.endpoint(of: request.url.render { _ in .text("0") }),
                ["127.0.0.1", "localhost"].contains(endpoint.host)
            else {
                elsewhere.append(request.urlText)
                continue
            }
            if !ports.contains(endpoint.port) { ports.append(endpoint.port) }
        }
        return (ports, elsewhere)
    }
}
