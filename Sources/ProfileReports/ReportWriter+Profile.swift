import BudgetReports
import Foundation
import Pages
import Reports

extension ReportWriter {
    /// Writes a profile's report into `directory`: its summary, its lag (a profile sees no
    /// latency from outside) instead of the latency files, its own time series and page.
    ///
    /// - Throws: `ReportError` naming the file and the system's reason.
    public static func write(
        profile: ProfileFigures,
        context: RunContext,
        directory: String,
        budget: BudgetReport? = nil
    ) throws -> Written {
        try ReportFile.makeFolder(directory)
        let arrivals = profile.arrivals
        let summary = judged(RunSummary(profile: profile, context: context), by: context)
        try save(try summary.encoded(), as: "summary.json", in: directory)
        try save(Data(percentileTable(arrivals.lag).text.utf8), as: "lag_percentiles.csv", in: directory)
        try save(Data(profile.timeseriesTable.text.utf8), as: "timeseries.csv", in: directory)
        if let service = profile.service {
            try save(Data(service.callsTable.text.utf8), as: "calls.csv", in: directory)
        }
        try save(Data(hgrm(arrivals.lag).utf8), as: "lag.hgrm", in: directory)
        try saveOutcomes(arrivals.counts, arrivals.rejectedByReason, [:], arrivals.perConnection, directory)
        try saveStacksAndBudget(context: context, budget: budget, directory: directory)
        try save(Data(ProfilePage(context: context, profile: profile).render().utf8), as: "report.html", in: directory)
        return Written(
            directory: directory,
            htmlPath: (directory as NSString).appendingPathComponent("report.html"),
            summary: summary
        )
    }
}
