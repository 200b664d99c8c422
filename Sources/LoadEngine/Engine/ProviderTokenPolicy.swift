/// How the engine gets the provider token for each push.
public enum ProviderTokenPolicy: String, Sendable, CaseIterable {
    /// One token per refresh age, shared by every push (what a correct sender does).
    case cached
    /// A new ES256 signature for every push: the common bug, reproduced so that its CPU cost and
    /// APNs' `TooManyProviderTokenUpdates` answers can be measured.
    case perRequest = "per-request"
}
