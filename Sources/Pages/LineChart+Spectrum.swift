import Foundation
import Histogram

extension LineChart {
    /// A percentile spectrum as HdrHistogram plots it: x is log10(1/(1−p)), so the tail gets the
    /// room; each series is a histogram whose values are divided by `divisor` (1000 turns µs
    /// into ms, or ms into s).
    package static func spectrum(
        title: String,
        yLabel: String,
        divisor: Double,
        series: [(name: String, color: String, histogram: Histogram<UInt64>)]
    ) -> LineChart {
        var chart = LineChart(
            title: title,
            xLabel: "percentile",
            yLabel: yLabel,
            series: series.map { name, color, histogram in
                let points =
                    histogram.totalCount == 0
                    ? []
                    : histogram.percentiles(ticksPerHalfDistance: 5)
                        .filter { $0.percentileLevelIteratedTo < 100 }
                        .map {
                            (x: log10(1 / (1 - $0.percentileLevelIteratedTo / 100)), y: Double($0.value) / divisor)
                        }
                return Series(name: name, color: color, points: points)
            }
        )
        chart.emptyReason = "nothing was recorded"
        chart.xTicks = [(0, "0%"), (1, "90%"), (2, "99%"), (3, "99.9%"), (4, "99.99%"), (5, "99.999%")]
        return chart
    }
}
