import Foundation

/// A small inline-SVG line chart: no scripts, no fonts to fetch, prints as drawn.
package struct LineChart {
    /// One line: its legend, its colour and its points.
    package struct Series {
        let name: String
        let color: String
        let points: [(x: Double, y: Double)]

        package init(name: String, color: String, points: [(x: Double, y: Double)]) {
            self.name = name
            self.color = color
            self.points = points
        }
    }

    let title: String
    let xLabel: String
    let yLabel: String
    let series: [Series]
    /// Tick labels for the x axis at the given x positions; evenly spaced numbers when empty.
    var xTicks: [(x: Double, label: String)] = []
    /// Stretches of x to shade behind the lines, each with a label (an outage, say).
    var bands: [(from: Double, to: Double, label: String)] = []
    /// Why there is nothing to plot, said instead of a chart with no points.
    var emptyReason = "nothing to plot"
    /// The x range the axis spans at least, whatever the points cover: a spectrum's runs from
    /// 0% to 99.9% or beyond, so its percentile ticks are all there.
    var xSpan: ClosedRange<Double>? = nil

    /// A chart; `bands` and `emptyReason` as above.
    package init(
        title: String,
        xLabel: String,
        yLabel: String,
        series: [Series],
        bands: [(from: Double, to: Double, label: String)] = [],
        emptyReason: String = "nothing to plot"
    ) {
        self.title = title
        self.xLabel = xLabel
        self.yLabel = yLabel
        self.series = series
        self.bands = bands
        self.emptyReason = emptyReason
    }

    private let width = 720.0
    private let height = 260.0
    private let left = 64.0
    private let right = 16.0
    private let top = 28.0
    private let bottom = 44.0

    /// The chart as inline SVG.
    package func render() -> String {
        let all = series.flatMap(\.points)
        guard let largest = all.map(\.y).max() else {
            return "<p class=\"empty\">\(HTML.escape(title)): \(HTML.escape(emptyReason)).</p>"
        }
        // An all-zero series still gets a readable 0-to-1 axis.
        let highest = largest > 0 ? largest : 1
        let minX = min(all.map(\.x).min()!, xSpan?.lowerBound ?? .infinity)
        // A single point still gets an axis a unit wide to stand on.
        let maxX = max(
            all.map(\.x).max()!,
            minX + (all.count == series.count ? 1 : 1e-9),
            xSpan?.upperBound ?? -.infinity
        )
        let yStep = Self.niceStep(highest / 4)
        let maxY = (highest / yStep).rounded(.up) * yStep
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        func px(_ x: Double) -> Double { left + (x - minX) / (maxX - minX) * plotWidth }
        func py(_ y: Double) -> Double { top + plotHeight - y / maxY * plotHeight }

        var svg = """
            <svg viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-label="\(HTML.escape(title))">
            <text x="\(left)" y="18" class="title">\(HTML.escape(title))</text>
            <line x1="\(left)" y1="\(top + plotHeight)" x2="\(width - right)" y2="\(top + plotHeight)" class="axis"/>
            <line x1="\(left)" y1="\(top)" x2="\(left)" y2="\(top + plotHeight)" class="axis"/>

            """
        for value in stride(from: 0, through: maxY + yStep / 2, by: yStep) {
            let y = py(value)
            svg += "<line x1=\"\(left)\" y1=\(q(y)) x2=\"\(width - right)\" y2=\(q(y)) class=\"grid\"/>"
            svg +=
                "<text x=\"\(left - 6)\" y=\(q(y + 4)) class=\"tick\" text-anchor=\"end\">\(Self.format(value))</text>\n"
        }
        svg += xAxis(minX: minX, maxX: maxX, plotWidth: plotWidth, plotHeight: plotHeight, px: px)
        for band in bands where band.to > minX && band.from < maxX {
            let from = px(Swift.max(band.from, minX))
            let to = px(Swift.min(band.to, maxX))
            svg += "<rect x=\(q(from)) y=\"\(top)\" width=\(q(to - from)) height=\"\(plotHeight)\" class=\"band\"/>"
            svg += "<text x=\(q(from + 3)) y=\(q(top + 12)) class=\"tick\">\(HTML.escape(band.label))</text>\n"
        }
        svg += seriesLines(px: px, py: py)
        return svg + "</svg>"
    }

    /// The x axis's ticks and both axes' labels.
    private func xAxis(
        minX: Double,
        maxX: Double,
        plotWidth: Double,
        plotHeight: Double,
        px: (Double) -> Double
    ) -> String {
        var svg = ""
        let xStep = Self.niceStep((maxX - minX) / 4)
        let ticks =
            xTicks.isEmpty
            ? stride(from: (minX / xStep).rounded(.up) * xStep, through: maxX, by: xStep).map {
                (x: $0, label: Self.format($0))
            } : xTicks.filter { $0.x >= minX && $0.x <= maxX }
        for tick in ticks {
            // The last tick at the axis's end is drawn inside it, not cut by the picture's edge.
            let anchor = px(tick.x) > left + plotWidth - 12 ? "end" : "middle"
            svg += "<text x=\(q(px(tick.x))) y=\"\(top + plotHeight + 16)\" class=\"tick\" text-anchor=\"\(anchor)\">"
            svg += "\(HTML.escape(tick.label))</text>\n"
        }
        svg += "<text x=\(q(left + plotWidth / 2)) y=\"\(height - 6)\" class=\"label\" text-anchor=\"middle\">"
        svg += "\(HTML.escape(xLabel))</text>\n"
        svg += "<text x=\"14\" y=\(q(top + plotHeight / 2)) class=\"label\" text-anchor=\"middle\" "
        svg += "transform=\"rotate(-90 14 \(Int(top + plotHeight / 2)))\">\(HTML.escape(yLabel))</text>\n"
        return svg
    }

    /// Each series as a polyline (a dot when it has one point), with its legend.
    private func seriesLines(px: (Double) -> Double, py: (Double) -> Double) -> String {
        var svg = ""
        for (index, line) in series.enumerated() {
            let points = line.points.map { "\(q2(px($0.x))),\(q2(py($0.y)))" }.joined(separator: " ")
            svg += "<polyline fill=\"none\" stroke=\"\(line.color)\" stroke-width=\"1.8\" points=\"\(points)\"/>\n"
            if line.points.count == 1, let point = line.points.first {
                svg += "<circle cx=\(q(px(point.x))) cy=\(q(py(point.y))) r=\"3\" fill=\"\(line.color)\"/>\n"
            }
            let legendX = width - right - 150
            let legendY = top + 4 + Double(index) * 16
            svg += "<rect x=\(q(legendX)) y=\(q(legendY)) width=\"12\" height=\"3\" fill=\"\(line.color)\"/>"
            svg += "<text x=\(q(legendX + 18)) y=\(q(legendY + 5)) class=\"tick\">\(HTML.escape(line.name))</text>\n"
        }
        return svg
    }

    private func q(_ value: Double) -> String { "\"\(q2(value))\"" }
    private func q2(_ value: Double) -> String { String(format: "%.1f", value) }

    /// The round step (1, 2, 2.5 or 5 times a power of ten) nearest above `raw`, so ticks fall
    /// on values a reader can add up.
    static func niceStep(_ raw: Double) -> Double {
        let magnitude = pow(10, floor(log10(raw)))
        let normalized = raw / magnitude
        let nice: Double =
            normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 2.5 ? 2.5 : normalized <= 5 ? 5 : 10
        return nice * magnitude
    }

    /// A tick label: thousands as `k`, no decimals a round value does not need.
    static func format(_ value: Double) -> String {
        if value >= 10_000 { return String(format: "%gk", value / 1000) }
        if value == value.rounded() { return String(format: "%.0f", value) }
        return String(format: "%g", (value * 1000).rounded() / 1000)
    }
}
