import Foundation
import Pages
import Sampling

/// The report's "Where the CPU went" section: how the stacks were sampled and what it cost,
/// the shares by class of code, the flame graph, and the top 20 functions by self time; or
/// the one line saying why there are no stacks.
package struct StackProfileSection {
    /// The stacks, or why there are none; nil when none were asked for.
    let sampling: Result<StackProfile, PerfUnavailable>?
    /// The pushes the sampled CPU went to, for perf's cost a push.
    let pushes: Int

    /// The section of `sampling`'s stacks, its cost spread over `pushes`.
    package init(sampling: Result<StackProfile, PerfUnavailable>?, pushes: Int) {
        self.sampling = sampling
        self.pushes = pushes
    }

    package func render() -> String {
        switch sampling {
        case nil: return ""
        case .failure(let unavailable):
            return "<h2>Where the CPU went</h2><p class=\"note\">Not sampled: \(HTML.escape(unavailable.reason)).</p>"
        case .success(let profile): return render(profile)
        }
    }

    private func render(_ profile: StackProfile) -> String {
        let stacks = profile.stacks
        var html = "<h2>Where the CPU went</h2>"
        html += "<p class=\"sub\">\(stacks.totalSamples) samples of \(HTML.escape(profile.scope)), taken by perf "
        html += "at \(profile.frequencyHz) Hz on every CPU (cpu-clock, frame-pointer stacks). perf itself used "
        html += String(format: "%.2f s of CPU", profile.perfCPUSeconds)
        if pushes > 0 { html += String(format: " (%.1f µs a push)", profile.perfCPUSeconds * 1e6 / Double(pushes)) }
        html += ", not counted in the sender's. The stacks are in <code>stacks.folded</code> "
        html += "(FlameGraph, inferno and speedscope read it). Click a frame to zoom; hover for its share.</p>"
        let shares = stacks.shares
        html += "<p class=\"legend\">"
        html += CPUShare.allCases.map { share in
            "<span><i style=\"background:\(FlameGraph.color(share))\"></i>\(HTML.escape(share.title)) "
                + String(format: "%.1f%%", shares[share] ?? 0) + "</span>"
        }.joined(separator: " ")
        html += "</p>"
        html += FlameGraph(stacks).svg()
        html += "<table><caption>The 20 functions with the most self time</caption>"
        html += "<tr><th>#</th><th>function</th><th>library</th><th>class</th><th>self</th><th>total</th></tr>"
        for (index, time) in stacks.topBySelfTime(20).enumerated() {
            html += "<tr><td class=\"num\">\(index + 1)</td><td>\(HTML.escape(time.frame.function))</td>"
            html += "<td>\(HTML.escape(time.frame.library))</td><td>\(HTML.escape(CPUShare(of: time.frame).title))</td>"
            html += "<td class=\"num\">\(FlameGraph.percent(time.selfSamples, of: stacks.totalSamples))</td>"
            html += "<td class=\"num\">\(FlameGraph.percent(time.totalSamples, of: stacks.totalSamples))</td></tr>"
        }
        html += "</table>\n"
        return html
    }
}
