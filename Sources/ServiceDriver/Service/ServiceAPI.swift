import DeviceEmulation
import Foundation
import RequestFiles

/// A sender service's API and how to drive it.
public struct ServiceAPI: Sendable {
    /// The API request file, read with `port` in `PUSHBENCH_SERVICE_PORT`.
    public var file: APIFile
    public var port: Int
    public var settings: ServiceSession.Settings
    /// How long after the last call's answer, with pushes still missing, the profile waits
    /// for more before it ends the service.
    public var settle: Duration
    /// How the devices behave, for a lifecycle file.
    public var devices: DeviceSettings

    /// Creates the description.
    public init(
        file: APIFile,
        port: Int,
        settings: ServiceSession.Settings,
        settle: Duration,
        devices: DeviceSettings = DeviceSettings()
    ) {
        self.file = file
        self.port = port
        self.settings = settings
        self.settle = settle
        self.devices = devices
    }
}
