import Foundation
import Workload

/// Which shard of a run this process sends: `--shard i/N`, or Kubernetes' `JOB_COMPLETION_INDEX`
/// with `PUSHBENCH_SHARD_COUNT`, as an Indexed Job's pods get them (Kubernetes sets the index but
/// not the count, so the manifest passes the count).
enum ShardSelection {
    /// The variable an Indexed Job sets to the pod's 0-based index.
    static let indexVariable = "JOB_COMPLETION_INDEX"
    /// The variable that says how many shards there are.
    static let countVariable = "PUSHBENCH_SHARD_COUNT"

    /// The shard `option` names, or the environment's, or the whole run.
    ///
    /// Only one of the two halves in the environment is an error rather than the whole run: a pod
    /// that silently sent everything would multiply the load by the number of pods.
    static func resolve(option: String?, environment: [String: String]) throws -> Shard {
        if let option {
            do {
                return try Shard(parsing: option)
            } catch {
                throw CommandLineError("--shard: \(error)")
            }
        }
        let index = environment[indexVariable]
        let count = environment[countVariable]
        switch (index, count) {
        case (nil, nil):
            return .whole
        case (let index?, let count?):
            do {
                return try Shard(parsing: "\(index)/\(count)")
            } catch {
                throw CommandLineError("\(indexVariable)=\(index) and \(countVariable)=\(count): \(error)")
            }
        case (.some, nil):
            throw CommandLineError(
                "\(indexVariable) is set but \(countVariable) is not: set it to the Job's completions, or give --shard"
            )
        case (nil, .some):
            throw CommandLineError("\(countVariable) is set but \(indexVariable) is not: give --shard i/N instead")
        }
    }
}
