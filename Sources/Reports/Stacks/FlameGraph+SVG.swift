import Foundation
import Pages
import Sampling

extension FlameGraph {
    /// Width of the graph in the SVG's own units.
    static let width = 1200.0
    private static let rowHeight = 17.0
    /// Boxes narrower than this, in units, are left out, as FlameGraph leaves them: they could
    /// not be seen or clicked, and a long profile has tens of thousands of them.
    private static let narrowest = 0.1

    /// The graph as inline SVG, with a search box and a reset button above it; `script` makes a
    /// click zoom to a frame and the search colour its matches.
    func svg() -> String {
        let total = Double(max(totalSamples, 1))
        let height = Double(maxDepth + 1) * Self.rowHeight + 4
        var svg = """
            <div class="flame-tools"><button type="button" id="fg-reset">Reset zoom</button> \
            <input id="fg-search" type="search" placeholder="Search functions" aria-label="Search functions"> \
            <span id="fg-matched"></span></div>
            <svg class="flame" id="fg" viewBox="0 0 \(Int(Self.width)) \(Int(height))" data-total="\(totalSamples)" \
            role="img" aria-label="Flame graph of \(totalSamples) samples">

            """
        for box in boxes {
            let boxWidth = Double(box.samples) / total * Self.width
            guard boxWidth >= Self.narrowest else { continue }
            let x = Double(box.start) / total * Self.width
            let y = height - 2 - Double(box.depth + 1) * Self.rowHeight
            let name = box.frame.label
            let library = box.frame.library.isEmpty ? "" : " (\(box.frame.library))"
            let title =
                "\(name)\(library)\n\(box.samples) samples, \(Self.percent(box.samples, of: totalSamples)) of all; "
                + "self \(box.selfSamples), \(Self.percent(box.selfSamples, of: totalSamples))"
                + (box.frame.share.map { "\n\($0.title)" } ?? "")
            svg += "<g class=\"fb\" data-s=\"\(box.start)\" data-n=\"\(box.samples)\" data-d=\"\(box.depth)\" "
            svg += "data-f=\"\(HTML.escape(name))\"><title>\(HTML.escape(title))</title>"
            svg += "<rect x=\"\(Self.units(x))\" y=\"\(Self.units(y))\" width=\"\(Self.units(boxWidth))\" "
            svg += "height=\"\(Int(Self.rowHeight - 1))\" fill=\"\(Self.color(box.frame.share))\"/>"
            svg += "<text x=\"\(Self.units(x + 3))\" y=\"\(Self.units(y + 12))\">"
            svg += "\(HTML.escape(Self.label(name, width: boxWidth)))</text></g>\n"
        }
        return svg + "</svg>\n<script>\(Self.script)</script>\n"
    }

    /// The colour of a class of code, the legend's too.
    static func color(_ share: CPUShare?) -> String {
        switch share {
        case .kernel: "#f2a65a"
        case .tlsCrypto: "#b48ead"
        case .json: "#8cc084"
        case .http2: "#6fa8dc"
        case .runtimeAllocator: "#d9c58f"
        case .senderCode: "#e0736b"
        case .other: "#b0b0b0"
        case nil: "#e8e8e8"
        }
    }

    /// As much of `name` as fits in `width` units of 11-pixel monospace.
    static func label(_ name: String, width: Double) -> String {
        let fits = Int((width - 6) / 6.6)
        guard fits >= 3 else { return "" }
        return name.count <= fits ? name : String(name.prefix(fits - 2)) + ".."
    }

    static func percent(_ part: Int, of whole: Int) -> String {
        String(format: "%.2f%%", Double(part) * 100 / Double(max(whole, 1)))
    }

    private static func units(_ value: Double) -> String { String(format: "%.2f", value) }

    /// Click a box to make it the graph's width (its callers stay, full width, below it);
    /// search colours every box whose function holds the text and says what share of the
    /// samples they cover (nested matches counted once).
    private static let script = """
        (function(){
        var svg=document.getElementById('fg'),W=\(Int(width)),total=+svg.dataset.total,
        boxes=Array.prototype.slice.call(svg.querySelectorAll('g.fb'));
        function label(g,w){var n=Math.floor((w-6)/6.6),f=g.dataset.f;
        g.querySelector('text').textContent=n<3?'':(f.length<=n?f:f.slice(0,n-2)+'..');}
        function zoom(s,n,d){boxes.forEach(function(g){var bs=+g.dataset.s,bn=+g.dataset.n,bd=+g.dataset.d,x,w;
        if(bd<d&&bs<=s&&bs+bn>=s+n){x=0;w=W;}else{x=(bs-s)/n*W;w=bn/n*W;}
        var hide=w<\(narrowest)||(bd<d&&!(bs<=s&&bs+bn>=s+n))||(bd>=d&&(bs<s||bs+bn>s+n));
        g.style.display=hide?'none':'';if(hide)return;
        var r=g.querySelector('rect');r.setAttribute('x',x.toFixed(2));r.setAttribute('width',w.toFixed(2));
        g.querySelector('text').setAttribute('x',(x+3).toFixed(2));label(g,w);});}
        svg.addEventListener('click',function(e){var g=e.target.closest('g.fb');
        if(g)zoom(+g.dataset.s,+g.dataset.n,+g.dataset.d);});
        document.getElementById('fg-reset').addEventListener('click',function(){zoom(0,total,0);});
        document.getElementById('fg-search').addEventListener('input',function(e){
        var term=e.target.value.toLowerCase(),spans=[];
        boxes.forEach(function(g){var hit=term!==''&&g.dataset.f.toLowerCase().indexOf(term)>=0;
        g.querySelector('rect').style.fill=hit?'#e040fb':'';if(hit)spans.push([+g.dataset.s,+g.dataset.s+(+g.dataset.n)]);});
        spans.sort(function(a,b){return a[0]-b[0];});var covered=0,end=-1;
        spans.forEach(function(p){if(p[1]<=end)return;covered+=p[1]-Math.max(p[0],end);end=p[1];});
        document.getElementById('fg-matched').textContent=term===''?'':'matched: '+(covered*100/total).toFixed(2)+'% of samples';});
        })();
        """
}
