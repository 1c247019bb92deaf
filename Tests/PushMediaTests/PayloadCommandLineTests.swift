import Foundation
import PushMediaModel
import Testing

/// `pushmedia payload` on a manifest a real run wrote: `--all` line by line against `--item`,
/// `--platforms` refusals (exit 2), the per-format default mode.
@Suite("Command line: payload")
struct PayloadCommandLineTests {
    let pushmedia = CommandRunner.pushmedia
    static let base = "https://cdn.example.com/c/"

    /// A run over a photo, an animated GIF, a movie and a broken file (a failed item).
    func processed(_ name: String = #function) throws -> (folder: URL, manifest: String, sources: [String]) {
        let folder = try Fixtures.temporaryFolder(name)
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try Fixtures.copy(["photos/landscape.jpg", "graphics/animated.gif", "video/portrait.mov", "broken/truncated.jpg"], into: input)
        let out = folder.appendingPathComponent("out")
        let result = try CommandRunner.run(pushmedia, ["process", input.path, "--out", out.path, "--base-url", Self.base])
        #expect(result.status == 0 || result.status == 1, "\(result.status) \(result.error)")
        let manifest = out.appendingPathComponent("manifest.json")
        let items = try Manifest.decode(from: Data(contentsOf: manifest)).items
        #expect(items.count == 4 && items.filter { $0.status == .ok }.count == 3, "\(items.map { "\($0.source) \($0.status)" })")
        return (folder, manifest.path, items.map(\.source))
    }

    static func quoted(_ s: String) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: [s], options: [.withoutEscapingSlashes]), as: UTF8.self)
            .dropFirst().dropLast().description
    }

    @Test("--all prints, for every item in manifest order, exactly the body --item prints")
    func allEqualsItem() throws {
        let run = try processed()
        defer { try? FileManager.default.removeItem(at: run.folder) }
        let formats: [(String, [String])] = [
            ("apns", []), ("fcm", ["--platforms", "ios,android,web"]), ("onesignal", ["--platforms", "ios,android,web,huawei,amazon"]),
            ("braze", ["--platforms", "ios,android,web"]), ("airship", ["--platforms", "ios,android,web,amazon"]), ("adobe", []),
        ]
        for (format, extra) in formats {
            let common = ["--manifest", run.manifest, "--format", format, "--title", "Spring sale", "--body", "Everything 30% off"] + extra
            let all = try CommandRunner.run(pushmedia, ["payload", "--all"] + common)
            #expect(all.status == 0, "\(format): \(all.error)")
            let lines = all.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            #expect(lines.count == run.sources.count, "\(format): \(all.output)")
            for (line, source) in zip(lines, run.sources) {
                let one = try CommandRunner.run(pushmedia, ["payload", "--item", source] + common)
                #expect(one.status == 0, "\(format) \(source): \(one.error)")
                let body = one.output.trimmingCharacters(in: .newlines)
                #expect(line == "{\"source\":\(try Self.quoted(source)),\"payload\":\(body)}", "\(format) \(source)")
                let parsed = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                #expect(Set(parsed.keys) == ["source", "payload"])
            }
            #expect(all.error.contains("\(format): 4 items, 4 payloads, 0 errors"), "\(all.error)")
        }
    }

    @Test("--all: an item that cannot be built is an error line with its code and message; the others still print; exit 1")
    func allWithErrors() throws {
        let run = try processed()
        defer { try? FileManager.default.removeItem(at: run.folder) }
        // A 1,950-byte body: Braze's apple_push is over 1,912 for every item.
        let body = String(repeating: "b", count: 1950)
        let common = ["--manifest", run.manifest, "--format", "braze", "--body", body]
        let all = try CommandRunner.run(pushmedia, ["payload", "--all"] + common)
        #expect(all.status == 1, "\(all.error)")
        let lines = all.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        for (line, source) in zip(lines, run.sources) {
            let parsed = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(parsed["source"] as? String == source)
            let error = try #require(parsed["error"] as? [String: String])
            #expect(error["code"] == "object_over_limit")
            let one = try CommandRunner.run(pushmedia, ["payload", "--item", source] + common)
            #expect(one.status == 1)
            #expect(one.error.contains("error: \(error["message"] ?? "?")"), "\(one.error)")
            #expect(error["message"]?.contains("apple_push") == true)
        }
    }

    @Test("--all streams the NDJSON manifest: 20 times the items take no more memory than a twentieth")
    func allIsStreamed() throws {
        let run = try processed()
        defer { try? FileManager.default.removeItem(at: run.folder) }
        let lines = try String(contentsOfFile: run.manifest.replacingOccurrences(of: ".json", with: ".ndjson"), encoding: .utf8)
        let photo = try #require(lines.split(separator: "\n").first { $0.contains("\"status\":\"ok\"") && $0.contains("landscape") })
        let quoted = try Self.quoted("landscape.jpg")
        func manifest(_ count: Int) throws -> String {
            let file = run.folder.appendingPathComponent("m\(count).ndjson")
            var text = ""
            text.reserveCapacity(count * (photo.utf8.count + 20))
            for i in 0..<count { text += photo.replacingOccurrences(of: "\"source\":\(quoted)", with: "\"source\":\"p/\(i).jpg\"") + "\n" }
            try text.write(to: file, atomically: true, encoding: .utf8)
            return file.path
        }
        // Under AddressSanitizer (the test build) freed memory waits in a quarantine of up to
        // 256 MB before it is reused, which would count as memory held: no quarantine here.
        let asan = (ProcessInfo.processInfo.environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "quarantine_size_mb=0"
        let arguments = [
            "ASAN_OPTIONS=\(asan)", pushmedia, "payload", "--all", "--format", "onesignal", "--title", "T", "--platforms",
            "ios,android,web,huawei,amazon",
        ]
        let small = try CommandRunner.peakMemory("/usr/bin/env", arguments + ["--manifest", try manifest(500)])
        let large = try CommandRunner.peakMemory("/usr/bin/env", arguments + ["--manifest", try manifest(10_000)])
        #expect(small.status == 0 && large.status == 0, "\(small.parent.error) \(large.parent.error)")
        // 10,000 items' lines are about 10 MB of JSON, their Items several times that: held, they would show.
        #expect(large.peakMiB < small.peakMiB + 8, "peak \(small.peakMiB) MiB at 500 items, \(large.peakMiB) MiB at 10,000")
    }

    @Test("a platform the format cannot reach, or an unknown one, is a usage error (exit 2) naming the vendor")
    func unreachablePlatforms() throws {
        let run = try processed()
        defer { try? FileManager.default.removeItem(at: run.folder) }
        let cases: [(String, String, String)] = [
            ("apns", "ios,web", "apns cannot address web"), ("apns", "android", "apns cannot address android"),
            ("adobe", "ios,android,web", "adobe cannot address web"), ("fcm", "huawei", "fcm cannot address huawei"),
            ("braze", "amazon", "braze cannot address amazon"), ("fcm", "ios,windows", "\"windows\" is not a platform"),
        ]
        for (format, platforms, message) in cases {
            let result = try CommandRunner.run(
                pushmedia, ["payload", "--manifest", run.manifest, "--all", "--format", format, "--title", "T", "--platforms", platforms])
            #expect(result.status == 2, "\(format) \(platforms): \(result.status) \(result.error)")
            #expect(result.error.contains(message), "\(result.error)")
            #expect(result.output.isEmpty)
        }
        let animated = try CommandRunner.run(
            pushmedia,
            ["payload", "--manifest", run.manifest, "--item", run.sources[0], "--format", "fcm", "--title", "T", "--animated-android-image"])
        #expect(animated.status == 2 && animated.error.contains("only by adobe"), "\(animated.error)")
    }

    @Test("airship and onesignal send one attachment unless --mode multi is asked for, which warns why")
    func defaultMode() throws {
        let run = try processed()
        defer { try? FileManager.default.removeItem(at: run.folder) }
        let photo = try #require(run.sources.first { $0.hasSuffix(".jpg") && !$0.contains("truncated") })
        /// How many attachments the iOS part names.
        func iOSAttachments(_ output: String, _ format: String) throws -> Int {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
            if format == "onesignal" { return (json["ios_attachments"] as? [String: Any])?.count ?? 0 }
            let media = ((json["notification"] as? [String: Any])?["ios"] as? [String: Any])?["media_attachment"] as? [String: Any]
            return media?["url"] is String ? 1 : (media?["urls"] as? [Any])?.count ?? 0
        }
        for format in ["airship", "onesignal"] {
            let common = ["payload", "--manifest", run.manifest, "--item", photo, "--format", format, "--title", "T"]
            let plain = try CommandRunner.run(pushmedia, common)
            #expect(plain.status == 0, "\(plain.error)")
            #expect(try iOSAttachments(plain.output, format) == 1, "\(format): \(plain.output)")
            #expect(!plain.error.contains("--mode multi"))
            let multi = try CommandRunner.run(pushmedia, common + ["--mode", "multi"])
            #expect(try iOSAttachments(multi.output, format) == 2, "\(format): \(multi.output)")
            #expect(multi.error.contains("warning: \(format) --mode multi: "), "\(multi.error)")
        }
    }
}
