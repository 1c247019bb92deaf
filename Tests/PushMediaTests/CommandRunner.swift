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

    /// The shipped `pushmedia` executable, built next to the test bundle.
    static var pushmedia: String { TestPaths.pushmedia }
}
