extension BudgetParameters {
    /// A named starting point and the evidence it follows.
    public struct Preset: Sendable {
        /// The parameters, named after the preset.
        public let parameters: BudgetParameters
        /// Where the numbers come from, citing `docs/apns.md`.
        public let source: String
    }

    /// The presets, from the strictest evidence to the most generous. All share the
    /// push-to-start bucket of Apple's DTS (forum 799505: starts stop after about 10 in a short
    /// time; the refill rate is not published, 10 per hour is our assumption).
    public static let presets: [Preset] = [
        Preset(
            parameters: BudgetParameters(name: "conservative", burst: 4, perHour: 4, lowPriorityIntervalSeconds: 60),
            source:
                "docs/apns.md §3.6: OneBusAway's ≈4 priority-10 updates/hour; DTS (forum 797554): low priority "
                + "lands every 30–60 s, so 60 s"
        ),
        Preset(
            parameters: BudgetParameters(name: "community", burst: 15, perHour: 15, lowPriorityIntervalSeconds: 30),
            source: "docs/apns.md §3.6: pushward.app's ≈15 updates/hour; DTS (forum 797554): low priority every 30–60 s"
        ),
        Preset(
            parameters: BudgetParameters(
                name: "frequent",
                burst: 15,
                perHour: 15,
                lowPriorityIntervalSeconds: 15,
                frequentUpdates: true,
                frequentFactor: 16
            ),
            source:
                "docs/apns.md §3.6: WWDR (forum 756586) \"every 15 seconds\" with frequent updates, so 15/h × 16 = "
                + "240/h; home-assistant's ≈one rendered update per 15 s for low priority"
        ),
    ]

    /// The preset called `name`.
    /// - Throws: `BudgetError` listing the presets.
    public static func preset(named name: String) throws -> Preset {
        guard let preset = presets.first(where: { $0.parameters.name == name }) else {
            throw BudgetError(
                "no budget preset '\(name)'; presets: \(presets.map(\.parameters.name).joined(separator: ", "))"
            )
        }
        return preset
    }
}
