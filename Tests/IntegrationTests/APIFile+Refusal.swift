import RequestFiles

extension APIFile {
    /// What reading `text` (as `api.yaml`) with `environment` says: its one-line refusal, or
    /// "read without complaint".
    static func refusal(of text: String, environment: [String: String]) -> String {
        do {
            _ = try APIFile(text: text, path: "api.yaml", environment: environment)
            return "read without complaint"
        } catch {
            return error.description
        }
    }
}
