import Foundation
import PushMediaModel
import PushMediaTesting
import Testing

/// Programs the tests run, and where things are.
enum Support {
    /// The `pushmedia` executable built next to the test bundle.
    static var pushmedia: String { TestPaths.pushmedia }

    static let packageRoot = TestPaths.packageRoot

    /// Cut-offs of a minute for runs whose URLs are all served well: they must all arrive,
    /// however busy the machine (FCM's own 5 s is for the tests of what a slow server costs).
    static let roomyCutOffs = ["--ios-seconds", "60", "--fcm-seconds", "60"]

    static func temporaryFolder(_ name: String) throws -> URL {
        try TestPaths.temporaryFolder(prefix: "pushmedia-verify", name)
    }

    struct Run: Sendable {
        var status: Int32
        var output: String
        var error: String
        /// Standard output's lines.
        var lines: [String] { output.split(separator: "\n").map(String.init) }
    }

    /// Runs a program in `folder` to its end (killed after `timeout` seconds: status -1), its
    /// output collected in files there. Polls for the exit instead of `waitUntilExit()`, which
    /// would block a thread of Swift's small cooperative pool.
    static func run(_ executable: String, _ arguments: [String], in folder: URL, environment: [String: String]? = nil, timeout: Double = 300)
        async throws -> Run
    {
        let name = "run-\(UUID().uuidString.prefix(8))"
        let outputFile = folder.appendingPathComponent("\(name).out")
        let errorFile = folder.appendingPathComponent("\(name).err")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        if let environment { process.environment = environment }
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let end = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < end { try? await Task.sleep(for: .milliseconds(25)) }
        var status = process.terminationStatus
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            while process.isRunning { try? await Task.sleep(for: .milliseconds(25)) }
            status = -1
        }
        let output = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        let error = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        return Run(status: status, output: output, error: error)
    }

    /// `pushmedia ARGS`.
    static func pushmedia(_ arguments: [String], in folder: URL, environment: [String: String]? = nil) async throws -> Run {
        try await run(pushmedia, arguments, in: folder, environment: environment)
    }

    /// A program that must succeed.
    static func tool(_ arguments: [String], in folder: URL) async throws {
        let result = try await run("/usr/bin/env", arguments, in: folder)
        guard result.status == 0 else { throw SupportError("\(arguments.joined(separator: " ")): \(result.error)") }
    }

    /// Validates every line of `file` against a schema in docs/ with Python's jsonschema
    /// (installed by scripts/test).
    static func validateLines(_ file: URL, schema: String) async throws -> Run {
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            validator = jsonschema.Draft202012Validator(schema)
            lines = [json.loads(l) for l in open(sys.argv[2]).read().splitlines()]
            errors = [(n, e) for n, d in enumerate(lines) for e in validator.iter_errors(d)]
            for n, e in errors[:10]: print(n, list(e.absolute_path), e.message)
            sys.exit(1 if errors or not lines else 0)
            """
        return try await run(
            "/usr/bin/env", ["python3", "-c", script, packageRoot.appendingPathComponent(schema).path, file.path],
            in: file.deletingLastPathComponent())
    }
}

struct SupportError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A throw-away certificate authority made with the openssl CLI, and a server certificate it
/// signed for `localhost` (and no other name).
struct TestCA: Sendable {
    let folder: URL
    var caFile: URL { folder.appendingPathComponent("ca.pem") }
    var certificateFile: URL { folder.appendingPathComponent("localhost.pem") }
    var keyFile: URL { folder.appendingPathComponent("localhost.key") }

    static func make() async throws -> TestCA {
        let folder = try Support.temporaryFolder("ca")
        let ca = TestCA(folder: folder)
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await Support.tool(
            ["openssl", "req", "-x509"] + curve + [
                "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=PushMedia verify test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ], in: folder)
        try await Support.tool(
            ["openssl", "req"] + curve + ["-keyout", "localhost.key", "-out", "localhost.csr", "-subj", "/CN=localhost"], in: folder)
        try Data("subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n".utf8)
            .write(to: folder.appendingPathComponent("leaf.ext"))
        try await Support.tool(
            [
                "openssl", "x509", "-req", "-in", "localhost.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
                "-extfile", "leaf.ext", "-out", "localhost.pem",
            ], in: folder)
        return ca
    }

    /// Made once for all the tests.
    static let shared = Task { try await make() }
}

/// The manifest's attachment (Swift Testing has an `Attachment` of its own).
typealias ModelAttachment = PushMediaModel.Attachment
