import ArgumentParser

/// The app whose Live Activities are pushed: `--bundle-id`, declared once for `run` and
/// `profile`, since the topic (`<bundle-id>.push-type.liveactivity`) must be the same app's in
/// both, and toward Apple the real one.
struct AppOptions: ParsableArguments {
    /// The bundle ID every synthetic run uses unless told; Apple's servers refuse it
    /// (`RunTarget` asks for the real one).
    static let exampleBundleID = "com.example.pushbench"

    @Option(
        name: .customLong("bundle-id"),
        help:
            "The app's bundle ID: the topic is <bundle-id>.push-type.liveactivity (a profiled sender gets it as PUSHBENCH_BUNDLE_ID)."
    )
    var bundleID = AppOptions.exampleBundleID
}
