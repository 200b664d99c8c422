import Foundation
import Histogram

extension LineChart {
    /// A percentile spectrum as HdrHistogram plots it: x is log10(1/(1−p)), so the tail gets the
    /// room; each series is a histogram whose values are divided by `divisor` (1000 turns µs
    /// into ms, or ms into s).
    ///
    /// The axis spans 0% to 99.9% at least, with a tick at each, and further to the decade past
    /// the last percentile the histograms reach. Each curve ends at its maximum at the axis's
    /// right end: the iteration stops once it reaches the largest value, and every percentile
    /// after its last point lies between that point and the maximum, so a distribution whose p50
    /// is its maximum reads flat from p50 on, as its table says.
    package static func spectrum(
        title: String,
        yLabel: String,
        divisor: Double,
        series: [(name: String, color: String, histogram: Histogram<UInt64>)]
    ) -> LineChart {
        let curves = series.map { name, color, histogram in
            let points =
                histogram.totalCount == 0
                ? []
                : histogram.percentiles(ticksPerHalfDistance: 5)
                    .filter { $0.percentileLevelIteratedTo < 100 }
                    .map {
                        (x: log10(1 / (1 - $0.percentileLevelIteratedTo / 100)), y: Double($0.value) / divisor)
                    }
            return (name, color, points, maximum: Double(histogram.max) / divisor)
        }
        let reached = curves.flatMap { $0.2.map(\.x) }.max() ?? 0
        let end = max(3, min(5, reached.rounded(.up)))
        var chart = LineChart(
            title: title,
            xLabel: "percentile (log scale of 1/(1−p))",
            yLabel: yLabel,
            series: curves.map { name, color, points, maximum in
                Series(name: name, color: color, points: points.isEmpty ? [] : points + [(end, maximum)])
            }
        )
        chart.emptyReason = "nothing was recorded"
        chart.xSpan = 0...end
        chart.xTicks = [(0, "0%"), (1, "90%"), (2, "99%"), (3, "99.9%"), (4, "99.99%"), (5, "99.999%")]
        return chart
    }
}
