/// A section another module adds to a run's page: `compare`'s judgement against a baseline
/// (`run --baseline`), which lives with the analysis that makes it.
public protocol ReportSection: Sendable {
    /// The section, ready to go into the page's body.
    var html: String { get }
}
