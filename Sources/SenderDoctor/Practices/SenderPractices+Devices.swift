import Foundation

extension SenderPractices {
    /// What the devices `profile` played dropped, as the mistakes that caused it: starts to
    /// push-to-start tokens the devices had replaced, starts a device cannot show, updates after
    /// the activity ended or was closed, updates to rotated-out tokens. APNs answers them 200
    /// (until a dead token's 410 comes, late), so only a device sees them.
    static func deviceDropFindings(_ drops: [String: Int]) -> [Finding] {
        let patterns: [(causes: [String], practice: String, title: String, cost: String, advice: String)] = [
            (
                ["stale_push_to_start_token"], "stale-start-tokens",
                "Starts activities with push-to-start tokens the devices have replaced",
                "the activity never appears, and APNs still answers 200",
                "Keep only each device's latest push-to-start token: apps report a new one (pushToStartTokenUpdates), sometimes right after a remote start."
            ),
            (
                ["wrong_attributes_type", "undecodable_start", "over_activity_limit"], "unusable-starts",
                "Sends starts a device cannot show",
                "the activity never appears, with no error anywhere",
                "Name the app's ActivityAttributes type in attributes-type, send attributes and a content-state it decodes, an alert, and no more activities than a device allows."
            ),
            (
                ["after_end_or_dismissal"], "updates-after-end",
                "Keeps updating activities that ended or that their users closed",
                "the device ignores every such push; the token's 410 comes only later",
                "Stop updating an activity after its end, and when its app reports a close."
            ),
            (
                ["rotated_out", "unknown_token"], "stale-update-tokens",
                "Updates tokens the activities no longer hold",
                "the device drops the update while APNs answers 200",
                "Replace an activity's token when its app reports a new one, and drop the old one."
            ),
        ]
        return patterns.compactMap { pattern in
            let counts = pattern.causes.compactMap { cause in drops[cause].map { (cause, $0) } }.filter { $0.1 > 0 }
            let pushes = counts.reduce(0) { $0 + $1.1 }
            guard pushes > 0 else { return nil }
            return Finding(
                practice: pattern.practice,
                title: pattern.title,
                evidence: "\(pushes.formatted()) pushes the devices dropped ("
                    + counts.map { "\($0.0): \($0.1.formatted())" }.joined(separator: ", ") + ")",
                cost: pattern.cost,
                advice: pattern.advice,
                pushesAffected: pushes
            )
        }
    }
}
