import Foundation
import PushMediaModel
import PushMediaQueue
import Testing

/// Each failure is retried or not by its code (`ErrorCode.transient`, the one table): sources
/// that cannot work end at their first attempt, one that may work next time is tried again.
@Suite("Permanent and transient failures")
struct ErrorClassificationTests {
    @Test("port 0, port 99999 and a broken link end failed at attempt 1; a refused connection is retried until dead")
    func permanentEndAtFirstAttempt() async throws {
        let folder = try Support.temporaryFolder()
        let root = folder.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        // gone.jpg is a file when enqueued, a link to nothing when the worker comes to it.
        let gone = root.appendingPathComponent("gone.jpg")
        try FileManager.default.copyItem(at: Support.packageRoot.appendingPathComponent("Fixtures/photos/landscape.jpg"), to: gone)
        // A port nothing listens on: bound, closed, so connecting is refused (transient).
        let closedPort = try Self.closedPort()
        let sources = ["http://127.0.0.1:0/a.jpg", "http://127.0.0.1:99999/a.jpg", "http://127.0.0.1:\(closedPort)/a.jpg"]
        let queue = "sqlite:" + folder.appendingPathComponent("q.sqlite").path
        let enqueued = try await Support.run(
            Support.pushmedia,
            [
                "enqueue", "--queue", queue, "--campaign", "c", "--root", root.path, "--max-attempts", "2",
                root.appendingPathComponent("gone.jpg").path,
            ]
                + sources, in: folder)
        #expect(enqueued.status == 0, "\(enqueued.error)")
        try FileManager.default.removeItem(at: gone)
        try FileManager.default.createSymbolicLink(atPath: gone.path, withDestinationPath: "/nonexistent/gone.jpg")
        let worker = try await Support.run(
            Support.pushmedia,
            [
                "worker", "--queue", queue, "--out", folder.appendingPathComponent("out").path, "--root", root.path, "--campaign", "c", "--drain",
                "--allow-private-sources",
            ], in: folder)
        #expect(worker.status == 0, "\(worker.error)")
        let jobs = try await Support.jobs(queue, campaign: "c")
        #expect(jobs.count == 4)
        for job in jobs {
            let code = job.lastError?.code ?? ""
            if job.source.hasSuffix(":\(closedPort)/a.jpg") {
                #expect(code == ErrorCode.downloadFailed.rawValue && job.state == .dead && job.attempts == 2, "\(job)")
            } else if job.source == "gone.jpg" {
                #expect(code == ErrorCode.missingInput.rawValue && job.state == .failed && job.attempts == 1, "\(job)")
            } else {
                #expect(code == ErrorCode.sourceUnavailable.rawValue && job.state == .failed && job.attempts == 1, "\(job)")
            }
        }
    }

    @Test("inputs FFmpeg cannot decode end at attempt 1: a WAV of 158 bits a sample, WebMs with damaged headers or frames")
    func undecodableInputsEndAtFirstAttempt() async throws {
        let folder = try Support.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = folder.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        // Over the audio budget, so it is transcoded (a WAV within it would be kept as it is).
        try Self.wav(bitsPerSample: 158, dataBytes: 6_000_000).write(to: root.appendingPathComponent("bits158.wav"))
        let damaged = Support.packageRoot.appendingPathComponent("Tests/Inputs/damaged")
        for name in ["vp8-vorbis-damaged-headers.webm", "vp9-opus-damaged-clusters.webm"] {
            try FileManager.default.copyItem(at: damaged.appendingPathComponent(name), to: root.appendingPathComponent(name))
        }
        let queue = "sqlite:" + folder.appendingPathComponent("q.sqlite").path
        let enqueued = try await Support.run(
            Support.pushmedia, ["enqueue", "--queue", queue, "--campaign", "c", "--root", root.path, "--max-attempts", "3", root.path], in: folder)
        #expect(enqueued.status == 0, "\(enqueued.error)")
        let worker = try await Support.run(
            Support.pushmedia,
            ["worker", "--queue", queue, "--out", folder.appendingPathComponent("out").path, "--root", root.path, "--campaign", "c", "--drain"],
            in: folder)
        #expect(worker.status == 0, "\(worker.error)")
        let jobs = try await Support.jobs(queue, campaign: "c")
        let expected: [String: ErrorCode] = [
            "bits158.wav": .unsupportedType, "vp8-vorbis-damaged-headers.webm": .corruptInput, "vp9-opus-damaged-clusters.webm": .corruptInput,
        ]
        #expect(Set(jobs.map(\.source)) == Set(expected.keys))
        for job in jobs {
            #expect(job.state == .failed && job.attempts == 1 && job.lastError?.code == expected[job.source]?.rawValue, "\(job)")
        }
    }

    /// A PCM WAV file whose header declares `bitsPerSample` (FFmpeg has no PCM decoder for 158).
    static func wav(bitsPerSample: Int, dataBytes: Int) -> Data {
        var data = Data()
        func append(_ value: Int, _ bytes: Int) { for i in 0..<bytes { data.append(UInt8((value >> (8 * i)) & 0xFF)) } }
        data.append(contentsOf: Array("RIFF".utf8))
        append(36 + dataBytes, 4)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(16, 4)
        append(1, 2) // PCM
        append(2, 2) // channels
        append(44100, 4)
        append(44100 * 4, 4) // bytes a second, as for 16 bits
        append(4, 2) // block align
        append(bitsPerSample, 2)
        data.append(contentsOf: Array("data".utf8))
        append(dataBytes, 4)
        data.append(Data(count: dataBytes))
        return data
    }

    @Test("the table: input and settings failures are permanent, the rest transient")
    func table() {
        for code: ErrorCode in [
            .emptyInput, .missingInput, .unsupportedType, .corruptInput, .overBudget, .inputTooLarge, .tooManyPixels,
            .tooManyFrames, .noMediaStream, .tooLong, .sourceUnavailable, .sourceForbidden, .invalidProfile,
        ] {
            #expect(!code.isTransient, "\(code)")
        }
        for code: ErrorCode in [
            .unreadableInput, .encodeFailed, .timeout, .internalError, .downloadFailed, .storeFailed, .workerCrashed,
            .storageFailed,
        ] {
            #expect(code.isTransient, "\(code)")
        }
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago and is closed now.
    static func closedPort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw SupportError("socket: \(errno)") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw SupportError("bind: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
