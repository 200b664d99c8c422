import Analysis
import Budget
import Harness
import Instructions
import LoadEngine
import MockAPNs
import MockFaults
import Pages
import Reports
import Telemetry
import Transport
import Wire
import Workload

/// An error that says which exit status (`ExitStatus`) it ends a command with, so a command
/// throws what went wrong as it is, without wrapping it for its status, and an error no one
/// foresaw ends with `ExitStatus.runtimeFailure`, never as the user's bad input.
protocol StatusCarryingError: Error {
    /// The status the command exits with.
    var exitStatus: Int32 { get }
}

extension CommandLineError: StatusCarryingError {
    var exitStatus: Int32 { status }
}

// What the user gave is wrong: a file, a key, a scenario, a fault plan, a summary to read.

extension InputFileError: StatusCarryingError {
    var exitStatus: Int32 { ExitStatus.badInput }
}

extension WorkloadError: StatusCarryingError {
    var exitStatus: Int32 { ExitStatus.badInput }
}

extension ES256KeyError: StatusCarryingError {
    var exitStatus: Int32 { ExitStatus.badInput }
}

extension CertificateError: StatusCarryingError {
    var exitStatus: Int32 { ExitStatus.badInput }
}

extension ProviderKeyFileError: StatusCarryingError {
    var exitStatus: Int32 { ExitStatus.badInput }
}

extension MockFaultError: StatusCarryingError {
    var exitStatus: Int32 { ExitStatus.badInput }
}

extension RateProfileError: StatusCarryingError {
    var exitStatus: Int32 { ExitStatus.badInput }
}

extension PracticeError: StatusCarryingError {
    var exitStatus: Int32 { ExitStatus.badInput }
}

extension BudgetError: StatusCarryingError {
    var exitStatus: Int32 { ExitStatus.badInput }
}

extension SummaryError: StatusCarryingError {
    var exitStatus: Int32 { ExitStatus.badInput }
}

extension ComparisonError: StatusCarryingError {
    var exitStatus: Int32 { ExitStatus.badInput }
}

extension InstructionCountsFileError: StatusCarryingError {
    var exitStatus: Int32 { ExitStatus.badInput }
}

extension RunResult.MergeError: StatusCarryingError {
    var exitStatus: Int32 { ExitStatus.badInput }
}

// The input was good, and something failed while working on it.

extension MockAPNsStartError: StatusCarryingError {
    var exitStatus: Int32 { ExitStatus.runtimeFailure }
}

extension RunSessionError: StatusCarryingError {
    var exitStatus: Int32 { ExitStatus.runtimeFailure }
}

extension ReportError: StatusCarryingError {
    var exitStatus: Int32 { ExitStatus.runtimeFailure }
}

extension CallgrindError: StatusCarryingError {
    var exitStatus: Int32 { ExitStatus.runtimeFailure }
}

extension TransportError: StatusCarryingError {
    var exitStatus: Int32 { ExitStatus.runtimeFailure }
}

extension MetricsEndpointError: StatusCarryingError {
    var exitStatus: Int32 { ExitStatus.runtimeFailure }
}

extension OpenSSLError: StatusCarryingError {
    var exitStatus: Int32 { ExitStatus.runtimeFailure }
}
