import Crypto
import Foundation
import PushMediaModel
import PushMediaQueue
import PushMediaWorker
import Testing

/// `pushmedia process` over files whose names are not valid UTF-8: every file is an
/// item, really processed (in the item processes, and `--in-process`), named by the documented
/// escape in the manifest, the events, the preview and the queue, and a rerun resumes.
@Suite("process: names that are not UTF-8")
struct NonUTF8NameTests {
    /// One input: its name's bytes under the input folder, the fixture copied there, and the
    /// manifest's `source` and `sourceEncoding` it must get.
    struct Input {
        var name: [UInt8]
        var fixture: String
        var source: String
        var encoding: SourceEncoding?
    }

    static let inputs: [Input] = [
        Input(name: Array("plain.jpg".utf8), fixture: "photos/landscape.jpg", source: "plain.jpg", encoding: nil),
        // café.jpg in Latin-1.
        Input(name: [0x63, 0x61, 0x66, 0xE9, 0x2E, 0x6A, 0x70, 0x67], fixture: "photos/portrait.jpg", source: "caf%E9.jpg", encoding: .percent),
        // A UTF-8 name that reads like the escape of the one above: an item of its own.
        Input(name: Array("caf%E9.jpg".utf8), fixture: "photos/cmyk.jpg", source: "caf%E9.jpg", encoding: nil),
        // A lone continuation byte.
        Input(name: [0x61, 0x80, 0x2E, 0x6A, 0x70, 0x67], fixture: "photos/panorama.jpg", source: "a%80.jpg", encoding: .percent),
        Input(name: [0xFF, 0xFE, 0x2E, 0x6A, 0x70, 0x67], fixture: "photos/progressive.jpg", source: "%FF%FE.jpg", encoding: .percent),
        // A file in a folder named déjà in Latin-1.
        Input(
            name: [0x64, 0xE9, 0x6A, 0xE0, 0x2F] + Array("photo.jpg".utf8), fixture: "photos/rotated-exif6.jpg", source: "d%E9j%E0/photo.jpg",
            encoding: .percent),
        // Valid UTF-8 that begins with a combining mark (U+0301): unchanged, and inside the root
        // (a character-wise prefix test would take the mark and the `/` before it as one).
        Input(name: Array("\u{301}accent.png".utf8), fixture: "photos/gradient-16bit.png", source: "\u{301}accent.png", encoding: nil),
        // A movie (FFmpeg opens it): m\xF6vie 100%.mp4, with a % to escape.
        Input(
            name: [0x6D, 0xF6, 0x76, 0x69, 0x65, 0x20, 0x31, 0x30, 0x30, 0x25, 0x2E, 0x6D, 0x70, 0x34], fixture: "video/black-start.mp4",
            source: "m%F6vie 100%25.mp4", encoding: .percent),
    ]

    /// The input folder, made with raw names (Foundation's String paths cannot express them).
    static func makeInput(in folder: URL) throws -> URL {
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        let root = Array(input.path.utf8) + [0x2F]
        for entry in inputs {
            if let slash = entry.name.firstIndex(of: 0x2F) {
                let parent = root + entry.name[..<slash]
                if mkdir(cPath(parent), 0o755) != 0 && errno != EEXIST { throw SupportError("mkdir: \(String(cString: strerror(errno)))") }
            }
            try write(Data(contentsOf: Support.fixtures.appendingPathComponent(entry.fixture)), to: root + entry.name)
        }
        return input
    }

    static func cPath(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }

    static func write(_ data: Data, to path: [UInt8]) throws {
        let descriptor = open(cPath(path), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SupportError("open: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        try data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                guard written > 0 else { throw SupportError("write: \(String(cString: strerror(errno)))") }
                offset += written
            }
        }
    }

    static func sha256(_ fixture: String) throws -> String {
        SHA256.hash(data: try Data(contentsOf: Support.fixtures.appendingPathComponent(fixture))).map { String(format: "%02x", $0) }.joined()
    }

    /// The manifest's item of an input (by source and encoding: two inputs read `caf%E9.jpg`).
    static func item(_ entry: Input, in manifest: Manifest) -> Item? {
        manifest.items.first { $0.source == entry.source && $0.sourceEncoding == entry.encoding }
    }

    /// Checks a finished run's manifest: every input once, ok, processed from its own bytes, its
    /// files on disk.
    static func expectEveryInput(_ manifest: Manifest, out: URL) throws {
        #expect(manifest.items.count == inputs.count, "\(manifest.items.map(\.source))")
        for entry in inputs {
            let item = try #require(Self.item(entry, in: manifest), "\(entry.source) (\(entry.encoding?.rawValue ?? "utf-8")) is missing")
            #expect(item.status == .ok, "\(entry.source): \(item.error?.message ?? "")")
            #expect(item.sourceSHA256 == (try sha256(entry.fixture)), "\(entry.source)")
            #expect(item.probe?.width != nil, "\(entry.source) was not probed")
            #expect(item.attachments.count == (entry.fixture.hasPrefix("video/") ? 3 : 2), "\(entry.source)")
            for attachment in item.attachments {
                // A regular file of the recorded size (a kept movie is copied, not linked).
                var info = stat()
                #expect(lstat(out.appendingPathComponent(attachment.file).path, &info) == 0, "\(attachment.file)")
                #expect(info.st_mode & S_IFMT == S_IFREG && Int(info.st_size) == attachment.bytes, "\(entry.source): \(attachment.file)")
            }
        }
    }

    @Test("every file once, ok, with the escape in the manifest, events, preview and queue; a rerun resumes")
    func processAndResume() async throws {
        let folder = try Support.temporaryFolder()
        let input = try Self.makeInput(in: folder)
        let out = folder.appendingPathComponent("out")
        let arguments = ["process", input.path, "--out", out.path, "--json", "--jobs", "2"]

        let first = try await Support.run(Support.pushmedia, arguments, in: folder)
        #expect(first.status == 0, "\(first.error)")
        let manifestURL = out.appendingPathComponent("manifest.json")
        let manifest = try Manifest.decode(from: Data(contentsOf: manifestURL))
        try Self.expectEveryInput(manifest, out: out)
        #expect(manifest.summary.total == Self.inputs.count && manifest.summary.ok == Self.inputs.count)

        // The manifest on disk says the encoding in JSON, and validates against the schema.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
        let items = try #require(json["items"] as? [[String: Any]])
        #expect(items.filter { $0["sourceEncoding"] as? String == "percent" }.count == 5)
        let schema = try await SchemaValidator.validate(manifestURL, schema: "docs/manifest.schema.json")
        #expect(schema.valid, "\(schema.output)")

        // Events: one per input, with the escape and its encoding; valid against the schema.
        let events = first.output.split(separator: "\n").map(String.init)
        let itemEvents = try events.compactMap { line -> [String: Any]? in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["event"] as? String == "item" ? object : nil
        }
        #expect(itemEvents.count == Self.inputs.count)
        for entry in Self.inputs {
            let matching = itemEvents.filter {
                $0["source"] as? String == entry.source && $0["sourceEncoding"] as? String == entry.encoding?.rawValue
            }
            #expect(matching.count == 1 && matching.first?["status"] as? String == "ok", "\(entry.source)")
        }
        let eventsFile = folder.appendingPathComponent("events.ndjson")
        try Data(first.output.utf8).write(to: eventsFile)
        let eventSchema = try await SchemaValidator.validate(eventsFile, schema: "docs/events.schema.json", lines: true)
        #expect(eventSchema.valid, "\(eventSchema.output)")

        // The preview names each of them, escaped (and HTML-escaped), with a note.
        let preview = try String(contentsOf: out.appendingPathComponent("preview.html"), encoding: .utf8)
        for entry in Self.inputs { #expect(preview.contains(">\(entry.source)<"), "\(entry.source) is not in the preview") }
        #expect(preview.components(separatedBy: #"class="encoded""#).count - 1 >= 5)

        // The queue: one job per file; the escaped ones say so by the prefix.
        let campaign = "process:" + input.resolvingSymlinksInPath().path
        let jobs = try await Support.jobs("sqlite:" + out.appendingPathComponent(".pushmedia/queue.sqlite").path, campaign: campaign)
        #expect(
            Set(jobs.map(\.source))
                == Set(Self.inputs.map { EscapedPath(text: $0.source, encoding: $0.encoding).jobSource }))
        #expect(jobs.count == Self.inputs.count && jobs.allSatisfy { $0.state == .succeeded && $0.attempts == 1 })

        // Run again: nothing redone, nothing doubled.
        let second = try await Support.run(Support.pushmedia, arguments, in: folder)
        #expect(second.status == 0, "\(second.error)")
        let again = try Manifest.decode(from: Data(contentsOf: manifestURL))
        #expect(again.items == manifest.items)
        let resumed = second.output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["event"] as? String == "item" }
        #expect(resumed.count == Self.inputs.count && resumed.allSatisfy { $0["resumed"] as? Bool == true })
        let after = try await Support.jobs("sqlite:" + out.appendingPathComponent(".pushmedia/queue.sqlite").path, campaign: campaign)
        #expect(after.count == Self.inputs.count)
        for job in jobs {
            #expect(after.first { $0.id == job.id }?.finishedAt == job.finishedAt, "\(job.source) was processed again")
        }
    }

    @Test("--in-process opens them the same way (on a thread of the run, no item process)")
    func inProcess() async throws {
        let folder = try Support.temporaryFolder()
        let input = try Self.makeInput(in: folder)
        let out = folder.appendingPathComponent("out")
        let run = try await Support.run(Support.pushmedia, ["process", input.path, "--out", out.path, "--in-process"], in: folder)
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.contains("\(Self.inputs.count) items: \(Self.inputs.count) ok, 0 failed"), "\(run.output)")
        try Self.expectEveryInput(try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json"))), out: out)
    }

    @Test("a job source that is escaped resolves inside the root by its bytes; .. and links out of it are refused")
    func resolvingEscapedSources() throws {
        let folder = try Support.temporaryFolder().resolvingSymlinksInPath()
        let root = folder.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let rootBytes = Array(root.path.utf8)
        try Self.write(Data([1]), to: rootBytes + [0x2F, 0xE9])
        try Self.write(Data([2]), to: Array(folder.path.utf8) + [0x2F, 0xFF])
        // A link inside the root, named in Latin-1, to a file outside it.
        #expect(symlink(Self.cPath(Array(folder.path.utf8) + [0x2F, 0xFF]), Self.cPath(rootBytes + [0x2F, 0x6C, 0xE9])) == 0)

        let inside = PushMediaWorker.SourceLocation.resolve(EscapedPath(jobSource: "percent://%E9"), root: root)
        #expect((try? inside.get())?.bytes == rootBytes + [0x2F, 0xE9])
        #expect((try? inside.get())?.encoding == .percent)
        for source in ["percent://../%FF", "percent://l%E9", "percent:///etc/%FF"] {
            let refused = PushMediaWorker.SourceLocation.resolve(EscapedPath(jobSource: source), root: root)
            #expect(throws: ItemError.self, "\(source)") { try refused.get() }
        }
        #expect(throws: ItemError.self) { try PushMediaWorker.SourceLocation.resolve(EscapedPath(jobSource: "percent://%E"), root: root).get() }
        // Without a root, an absolute escaped source is taken as it is; a relative one is refused.
        #expect((try? PushMediaWorker.SourceLocation.resolve(EscapedPath(jobSource: "percent:///x/%E9"), root: nil).get())?.text == "/x/%E9")
        #expect(throws: ItemError.self) { try PushMediaWorker.SourceLocation.resolve(EscapedPath(jobSource: "percent://%E9"), root: nil).get() }
    }
}
