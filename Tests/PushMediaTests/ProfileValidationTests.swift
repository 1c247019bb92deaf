import Foundation
import PushMediaModel
import PushMediaTesting
import Testing

@testable import PushMedia

/// A profile value never crashes the program. Random profiles (seeded, so a failure
/// repeats) with hostile numbers, wrong types and random subsets of keys are either refused with a
/// ``ProfileLoader/Failure`` or accepted with no problems and usable derived values; nesting, size
/// and key count are bounded before the parser sees the text. A trap would end the test process,
/// so "does not trap" is checked by running at all.
@Suite("Profile validation: every value ends in a profile or a message")
struct ProfileValidationTests {
    // MARK: Property tests

    @Test("random profile files: ProfileLoader.parse refuses with a Failure or returns a profile with no problems, whose derived values are positive")
    func randomFiles() throws {
        var random = SeededRandom(seed: 39)
        var accepted = 0
        var refused = 0
        let cases = 3000
        for index in 0..<cases {
            let document = ProfileDocument.random(using: &random)
            let format = ProfileDocument.Format.allCases[index % 3]
            let text = document.text(format)
            do {
                let profile = try ProfileLoader.parse(Data(text.utf8), name: "case \(index)")
                accepted += 1
                #expect(profile.problems.isEmpty, "case \(index) accepted with problems: \(text)")
                Self.expectUsable(profile, "case \(index): \(text)")
            } catch let failure as ProfileLoader.Failure {
                refused += 1
                #expect(failure.description.hasPrefix("case \(index): "))
                #expect(failure.description.count < 2000, "case \(index): a long message: \(failure.description.prefix(300))…")
            } catch {
                Issue.record("case \(index): \(type(of: error)) instead of ProfileLoader.Failure: \(error)\n\(text)")
            }
        }
        // Neither side may be vacuous.
        #expect(accepted >= cases / 10, "only \(accepted) of \(cases) accepted")
        #expect(refused >= cases / 10, "only \(refused) of \(cases) refused")
    }

    @Test("random field values set directly (Int.min/max, NaN, ±inf, 1e308, -0): problems never traps; with none, derived values are positive")
    func randomValues() {
        var random = SeededRandom(seed: 3939)
        var usable = 0
        for _ in 0..<5000 {
            let profile = ProfileDocument.randomProfile(using: &random)
            let problems = profile.problems
            // Whatever the values, the derived ones are computed without a trap.
            _ = profile.delivery.notificationBytes
            _ = profile.delivery.imageBytes
            _ = profile.delivery.downloadSeconds(1_000_000)
            _ = profile.expanded.maxHeight
            for seconds in [profile.limits.timeoutSeconds, profile.limits.mediaTimeoutSeconds, profile.delivery.seconds] {
                #expect(Profile.duration(seconds: seconds) >= .zero)
            }
            if problems.isEmpty {
                usable += 1
                Self.expectUsable(profile, "\(profile)")
            } else {
                #expect(problems.allSatisfy { $0.count < 400 })
            }
        }
        #expect(usable >= 100, "only \(usable) usable profiles generated")
    }

    @Test("the values that trapped before are problems, named by their keys")
    func formerTraps() {
        let cases: [(String, (inout Profile) -> Void)] = [
            ("jpeg.quality", { $0.jpeg.quality = 0 }),
            ("jpeg.quality", { $0.jpeg.quality = .min }),
            ("audio.bitRate", { $0.audio.bitRate = 0 }),
            ("audio.bitRate", { $0.audio.bitRate = .max }),
            ("delivery.seconds", { $0.delivery.seconds = 1e308 }),
            ("delivery.seconds", { $0.delivery.seconds = .nan }),
            ("delivery.seconds", { $0.delivery.seconds = .infinity }),
            ("delivery.seconds", { $0.delivery.seconds = -0.0 }),
            ("delivery.imageSeconds", { $0.delivery.imageSeconds = -.infinity }),
            ("delivery.linkBitsPerSecond", { $0.delivery.linkBitsPerSecond = .min }),
            ("delivery.linkBitsPerSecond", { $0.delivery.linkBitsPerSecond = .max }),
            ("limits.timeoutSeconds", { $0.limits.timeoutSeconds = .nan }),
            ("limits.mediaTimeoutSeconds", { $0.limits.mediaTimeoutSeconds = 1e308 }),
            ("expanded.aspect", { $0.expanded.aspect = AspectRatio(width: 0, height: .min) }),
        ]
        for (key, change) in cases {
            var profile = Profile()
            change(&profile)
            let problems = profile.problems
            #expect(problems.contains { $0.hasPrefix(key) }, "\(key): \(problems)")
            _ = profile.delivery.notificationBytes
            _ = profile.delivery.imageBytes
            _ = profile.expanded.maxHeight
        }
    }

    @Test("a dependent bound is checked against its field only when that is valid")
    func dependentBounds() {
        var profile = Profile()
        profile.jpeg.quality = 0
        profile.jpeg.minQuality = 40
        #expect(profile.problems == ["jpeg.quality must be in 1…100, got 0"])
        profile.jpeg.quality = 30
        #expect(profile.problems == ["jpeg.minQuality must be in 1…jpeg.quality (30), got 40"])
        profile = Profile()
        profile.audio.bitRate = 0
        profile.audio.minBitRate = 1
        #expect(profile.problems == ["audio.bitRate must be in 16000…512000, got 0", "audio.minBitRate must be in 16000…512000, got 1"])
        profile = Profile()
        profile.delivery.seconds = .nan
        #expect(profile.problems == ["delivery.seconds must be a number in 0…600 (exclusive of 0), got nan"])
        profile.delivery.seconds = 600
        profile.delivery.imageSeconds = 1e-9
        #expect(profile.problems.count == 1 && profile.problems[0].contains("bytes per image"), "\(profile.problems)")
    }

    @Test(
        "YAML from the issue: quality 0, bit rate 0, NaN, inf and 1e308 seconds are refused, not trapped",
        arguments: [
            ("jpeg: {quality: 0}", "jpeg.quality"),
            ("audio: {bitRate: 0}", "audio.bitRate"),
            ("delivery: {seconds: 1e308}", "delivery.seconds"),
            ("delivery: {seconds: .nan}", "delivery.seconds"),
            ("delivery: {seconds: .inf}", "delivery.seconds"),
            ("delivery: {seconds: -.inf}", "delivery.seconds"),
            ("delivery: {linkBitsPerSecond: -9223372036854775808}", "delivery.linkBitsPerSecond"),
            ("delivery: {linkBitsPerSecond: 9223372036854775807}", "delivery.linkBitsPerSecond"),
            ("limits: {timeoutSeconds: .nan}", "limits.timeoutSeconds"),
            ("video: {trimToSeconds: .inf}", "video.trimToSeconds"),
            (#"{"delivery": {"seconds": 1e308, "imageSeconds": 1e308}}"#, "delivery.seconds"),
            (#"{"jpeg": {"quality": 0}}"#, "jpeg.quality"),
        ])
    func issueValues(text: String, key: String) {
        let message = Self.refusal(text, name: "bad.yaml")
        #expect(message.hasPrefix("bad.yaml: ") && message.contains(key), "\(message)")
    }

    // MARK: Size, nesting and key count, before the parser

    @Test(
        "nested 100,000 levels (YAML flow, YAML block, JSON): refused with a message, no stack overflow",
        arguments: [
            ("YAML flow", "100000 '[' or '{'"),
            ("YAML flow in a mapping", "100000 '[' or '{'"),
            ("YAML block, compact sequences", "line 1 is indented 200000 columns"),
            ("YAML block, mappings", "line 1000 is indented 999 columns"),
            ("JSON", "nested 100000 levels deep at line 1"),
        ])
    func deepNesting(kind: String, message: String) {
        let text = Self.deeplyNested(kind)
        #expect(text.utf8.count <= ProfileLoader.maxBytes, "\(kind): the case must test nesting, not size")
        let refusal = Self.refusal(text, name: "deep")
        #expect(refusal.hasPrefix("deep: ") && refusal.contains(message) && refusal.count < 300, "\(kind): \(refusal)")
    }

    /// A profile nested 100,000 levels deep (1000 for block mappings, whose indentation grows).
    static func deeplyNested(_ kind: String) -> String {
        let levels = 100_000
        switch kind {
        case "YAML flow": return String(repeating: "[", count: levels) + String(repeating: "]", count: levels)
        case "YAML flow in a mapping":
            return "name: " + String(repeating: "{a: ", count: levels) + "1" + String(repeating: "}", count: levels)
        case "YAML block, compact sequences": return String(repeating: "- ", count: levels) + "x\n"
        case "YAML block, mappings": return (0..<1_000).map { String(repeating: " ", count: $0) + "a:\n" }.joined()
        default: return String(repeating: #"{"a":"#, count: levels) + "1" + String(repeating: "}", count: levels)
        }
    }

    @Test("nesting at the limits is still parsed: 32 levels of JSON, 64 brackets, 64 columns")
    func nestingAtTheLimits() {
        // Refused by the decoder (unknown keys, wrong types), not by the nesting checks.
        let json = String(repeating: #"{"a":"#, count: 32) + "1" + String(repeating: "}", count: 32)
        let yamlFlow = "name: " + String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        let yamlBlock = "name:\n" + String(repeating: " ", count: 62) + "- x\n"
        for text in [json, yamlFlow, yamlBlock] {
            let message = Self.refusal(text)
            #expect(!message.contains("nested") && !message.contains("'[' or '{'") && !message.contains("columns"), "\(message)")
        }
        #expect(ProfileLoader.jsonDepth(Data(json.utf8)).depth == 32)
        #expect(ProfileLoader.jsonDepth(Data(#"{"a": "[[[{{{", "b": "\"[["}"#.utf8)).depth == 1, "brackets in strings do not count")
        #expect(
            ProfileLoader.yamlNesting("a:\n  b: 1\n" + String(repeating: " ", count: 100) + "\n# " + String(repeating: "-", count: 100)) == nil,
            "blank lines and comments open nothing")
        #expect(ProfileLoader.yamlNesting("\u{FEFF}" + String(repeating: "- ", count: 40)) != nil, "a byte order mark hides nothing")
        #expect(
            ProfileLoader.yamlNesting(String(repeating: "- \r", count: 1) + String(repeating: " ", count: 70) + "- x") != nil, "\\r breaks lines too")
    }

    @Test("the deepest text the checks let through is parsed without trouble: 32 compact sequences around 64 brackets")
    func deepestAllowed() {
        let text = "name:\n" + String(repeating: "- ", count: 32) + String(repeating: "[", count: 64) + String(repeating: "]", count: 64) + "\n"
        #expect(ProfileLoader.yamlNesting(text) == nil)
        let message = Self.refusal(text)
        #expect(message.contains("at name"), "decoded, and refused for its type: \(message)")
    }

    @Test("ItemProcessor refuses a profile with problems before using any of its values: invalid_profile")
    func processorRefuses() throws {
        var profile = Profile()
        profile.limits.timeoutSeconds = .nan
        profile.delivery.linkBitsPerSecond = .min
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let item = ItemProcessor(profile: profile, options: ProcessingOptions(outputDirectory: folder))
            .process(InputFile(path: Fixtures.url("photos/landscape.jpg").path, source: "landscape.jpg"))
        #expect(item.status == .failed)
        #expect(item.error?.code == .invalidProfile)
        #expect(item.error?.message.contains("limits.timeoutSeconds") == true && item.error?.message.contains("delivery.linkBitsPerSecond") == true)
        #expect(item.delivery == nil)
    }

    @Test("a profile over 1 MiB is refused with its size, by parse and by load (which reads no more than the limit)")
    func oversize() throws {
        let big = Data(("# " + String(repeating: "x", count: ProfileLoader.maxBytes) + "\nname: big\n").utf8)
        let bigError = #expect(throws: ProfileLoader.Failure.self) { try ProfileLoader.parse(big, name: "big.yaml") }
        #expect(
            bigError?.description.hasPrefix("big.yaml: the profile is \(big.count) bytes, over the limit of \(ProfileLoader.maxBytes) bytes") == true)
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("huge.yaml")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 50_000_000) // sparse: 50 MB that take no disk
        try handle.close()
        let hugeError = #expect(throws: ProfileLoader.Failure.self) { try ProfileLoader.load(path: file.path) }
        #expect(
            hugeError?.description.contains("the profile is 50000000 bytes, over the limit of 1048576 bytes") == true,
            "\(String(describing: hugeError))")
        // At the limit exactly, the size is no objection.
        let atLimit = Data(("name: x\n#" + String(repeating: "x", count: ProfileLoader.maxBytes - 10) + "\n").utf8)
        #expect(atLimit.count == ProfileLoader.maxBytes)
        #expect(try ProfileLoader.parse(atLimit).name == "x")
    }

    @Test("1000 unknown keys: the message names the first 5 and counts the rest")
    func manyUnknownKeys() {
        let keys = (0..<1000).map { String(format: "key%04d", $0) }
        for text in [
            "{" + keys.map { "\"\($0)\": 1" }.joined(separator: ", ") + "}",
            keys.map { "\($0): 1" }.joined(separator: "\n"),
            "thumbnail:\n" + keys.map { "  \($0): 1" }.joined(separator: "\n"),
        ] {
            let message = Self.refusal(text)
            #expect(message.contains(#"unknown keys "key0000", "key0001", "key0002", "key0003", "key0004" and 995 more"#), "\(message)")
            #expect(!message.contains("key0005") && message.count < 400, "\(message)")
        }
    }

    @Test("YAML base-60 numbers: 5:00 reads as 300; one that overflows an Int is refused, not trapped")
    func sexagesimal() throws {
        #expect(try ProfileLoader.parse(Data("thumbnail:\n  size: 5:00\n".utf8)).thumbnail.size == 300)
        #expect(try ProfileLoader.parse(Data("expanded:\n  aspect: 3:1\n".utf8)).expanded.aspect == AspectRatio(width: 3, height: 1))
        for value in [
            "1:0:0:0:0:0:0:0:0:0:0:0", "9223372036854775807:0", "-1:0:0:0:0:0:0:0:0:0:0", "1_0:0:0:0:0:0:0:0:0:0:0",
            "x:9223372036854775807:y:1",
        ] {
            let message = Self.refusal("thumbnail:\n  size: \(value)\n")
            #expect(message.contains("the number \(value) is too large"), "\(message)")
        }
        // 153722867280912930 × 60 + 7 is Int.max.
        #expect(!ProfileLoader.sexagesimalOverflows("153722867280912930:7"))
        #expect(ProfileLoader.sexagesimalOverflows("153722867280912930:8"))
        #expect(ProfileLoader.sexagesimalOverflows("-153722867280912930:8"))
        #expect(!ProfileLoader.sexagesimalOverflows("2:1"))
    }

    @Test("aliases that expand past a million values are refused")
    func aliasBomb() {
        var lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
        for level in 1...6 {
            lines.append("a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]")
        }
        let message = Self.refusal(lines.joined(separator: "\n"))
        #expect(message.contains("more than 1000000 values"), "\(message)")
    }

    @Test("the full profile in docs/usage.md is accepted")
    func documentedProfile() throws {
        let readme = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("docs/usage.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "```yaml\nname: wide-campaign"))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let profile = try ProfileLoader.parse(Data(readme[readme.index(start.lowerBound, offsetBy: 8)..<end.lowerBound].utf8))
        #expect(profile.name == "wide-campaign")
        #expect(profile == Profile(name: "wide-campaign"))
    }

    /// The message `text` is refused with; "" (and an issue) when it is accepted.
    static func refusal(_ text: String, name: String = "p", sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let error = #expect(throws: ProfileLoader.Failure.self, sourceLocation: sourceLocation) {
            try ProfileLoader.parse(Data(text.utf8), name: name)
        }
        return error?.description ?? ""
    }

    /// What a usable profile promises: positive byte counts and budgets, positive time limits.
    static func expectUsable(_ profile: Profile, _ context: @autoclosure () -> String) {
        let delivery = profile.delivery
        #expect(delivery.notificationBytes >= Profile.Delivery.minNotificationBytes, "\(context())")
        #expect(delivery.imageBytes >= Profile.Delivery.minImageBytes && delivery.imageBytes <= delivery.notificationBytes, "\(context())")
        for carriesMedia in [false, true] {
            let budget = DeliveryBudget(profile: profile, carriesMedia: carriesMedia)
            for role in [Attachment.Role.thumbnail, .expanded] {
                for animated in [false, true] {
                    #expect(budget.image(role, animated: animated, spent: 0) > 0, "\(role) \(animated): \(context())")
                }
            }
            if carriesMedia {
                #expect(budget.media(.movie, spent: 0) > 0 && budget.media(.audio, spent: 0) > 0, "\(context())")
            }
        }
        #expect(profile.expanded.maxHeight >= 1)
        #expect(Profile.duration(seconds: profile.limits.timeoutSeconds) > .zero)
        #expect(Profile.duration(seconds: profile.limits.mediaTimeoutSeconds) > .zero)
        #expect(delivery.downloadSeconds(delivery.notificationBytes) <= delivery.seconds + 1e-6)
    }
}
