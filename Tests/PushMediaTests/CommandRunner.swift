import Foundation
import PushMediaTesting

/// Runs a program and collects its exit status and output (tests only).
enum CommandRunner {
    struct Result {
        /// The exit code, or the signal's number when ``signalled``.
        var status: Int32
        var output: String
        var error: String
        /// Killed by a signal (a crash, an abort) rather than exited.
        var signalled = false
    }

    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes while the process runs, so a full pipe never blocks it.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async {
            outData = out.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self),
            error: String(decoding: errData, as: UTF8.self), signalled: process.terminationReason == .uncaughtSignal)
    }

    /// A run's exit status and the peak resident memory of the process and the children it
    /// waited for, as the kernel counted it for the parent (`getrusage(RUSAGE_CHILDREN)`): the
    /// true peak, not what a sampler happened to see.
    struct PeakMemory {
        /// The exit code (negative: killed by that signal); nil when the parent reported nothing.
        var status: Int?
        var peakMiB: Double
        /// The parent's own run: its output is the report, its error output any failure.
        var parent: Result
    }

    /// Runs `executable` under a Python parent that reports its peak RSS (its output and error
    /// output are dropped).
    static func peakMemory(_ executable: String, _ arguments: [String]) throws -> PeakMemory {
        let script =
            "import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
        let parent = try run("/usr/bin/env", ["python3", "-c", script, executable] + arguments)
        let fields = parent.output.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard fields.count == 2 else { return PeakMemory(status: nil, peakMiB: .infinity, parent: parent) }
        return PeakMemory(status: fields[0], peakMiB: Double(fields[1]) / 1024, parent: parent)
    }

    /// The shipped `pushmedia` executable, built next to the test bundle.
    static var pushmedia: String { TestPaths.pushmedia }
}
