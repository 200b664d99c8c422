import ArgumentParser
import Budget
import Harness

/// What a run does with the pushes its target accepted: the device budget model they go
/// through, on which clock, or none.
struct RunBudgetOptions: ParsableArguments {

    @Option(
        name: .customLong("budget-preset"),
        help:
            "Budget preset the accepted pushes are run through (conservative, community, frequent; see `pushbench budget`)."
    )
    var budgetPreset = "community"

    @Flag(name: .customLong("no-budget"), help: "Do not model what the devices would show of the accepted pushes.")
    var noBudget = false

    @Option(
        name: .customLong("budget-clock"),
        help: ArgumentHelp(
            "When the accepted pushes reach the modelled devices: scenario or run.",
            discussion: """
                scenario (the default): at each push's event time in the scenario, however fast the run sent it, so \
                the budget section says what the scenario's policy costs the devices and agrees with `pushbench \
                budget`. run: when the run got each push accepted (scaled by --time-scale), which answers another \
                question: what the devices would make of a sender firing this fast.
                """
        )
    )
    var budgetClock = BudgetClock.scenario

    func validate() throws {
        do {
            _ = try BudgetParameters.preset(named: budgetPreset)
        } catch {
            throw ValidationError("--budget-preset: \(error)")
        }
    }
}
