import Foundation
import PushAttachmentPlanner
import PushMediaTesting
import Testing

/// Random `userInfo` dictionaries, biased towards the keys and shapes the planner reads so
/// that generated payloads reach deep into every parser.
struct PayloadGenerator {
    var rng: SeededRandom

    static let keys = [
        "pm", "v", "a", "u", "t", "h", "c", "s", "ab", "att", "url", "type", "adb_media",
        "com.urbanairship.media_attachment", "media_attachment", "urls", "url_id", "thumbnail_id", "options",
        "crop", "x", "y", "width", "height", "time", "hidden", "ios_attachments", "fcm_options", "image",
        "apns", "message", "notification", "ios", "aps", "alert", "1", "2", "expanded", "thumbnail", "",
    ]
    static let extensions = ["jpg", "JPEG", "png", "gif", "mp4", "m4v", "mp3", "m4a", "wav", "aiff", "avi", "mpg", "webp", "heic", "", "exe"]
    static let utis = AttachmentFileType.all.map(\.typeHint) + ["public.heic", "public.data", ""]

    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &rng)] }

    mutating func url() -> String {
        let scheme = pick(["https", "https", "https", "HTTPS", "http", "ftp", "", "file"])
        let host = pick(["cdn.example.com", "a.b", "", "xn--bcher-kva.example", "localhost:8443"])
        let path = pick(["img", "a/b/c", "", "with space", "é", "x%20y", "..", "q?x=1"])
        let ext = pick(Self.extensions)
        let prefix = scheme.isEmpty ? "" : "\(scheme)://"
        return "\(prefix)\(host)/\(path)\(ext.isEmpty ? "" : "." + ext)"
    }

    mutating func number() -> Any {
        pick(
            [
                Double.random(in: -0.5...1.5, using: &rng), Double.random(in: 0...1, using: &rng), 0.0, 1.0, -0.0,
                Double.nan, Double.infinity, -Double.infinity, 1e308, Double.leastNonzeroMagnitude,
            ] as [Any] + [Int.random(in: -3...3, using: &rng), Int.max, Int.min, NSNumber(value: 0.5), NSNumber(value: 1)])
    }

    mutating func scalar() -> Any {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0, 1: return url()
        case 2: return number()
        case 3: return chance(0.5)
        case 4: return NSNumber(value: chance(0.5))
        case 5: return NSNull()
        case 6: return pick(Self.utis)
        case 7: return pick(Self.extensions)
        case 8: return pick([Date(timeIntervalSince1970: 0), Data([0xFF, 0x00]), URL(string: "https://x.example/a.jpg")!] as [Any])
        default: return String(repeating: pick(["a", "é", "\u{0}", "🎉", "\""]), count: Int.random(in: 0...20, using: &rng))
        }
    }

    mutating func value(depth: Int) -> Any {
        guard depth < 6, chance(0.5) else { return scalar() }
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return (0..<Int.random(in: 0...4, using: &rng)).map { _ in value(depth: depth + 1) }
        case 1: return [Int.random(in: 0...3, using: &rng): value(depth: depth + 1)] as [AnyHashable: Any]
        default: return object(depth: depth + 1)
        }
    }

    mutating func object(depth: Int) -> [String: Any] {
        var dict: [String: Any] = [:]
        for _ in 0..<Int.random(in: 0...4, using: &rng) { dict[pick(Self.keys)] = value(depth: depth) }
        return dict
    }

    /// A field that is valid most of the time.
    mutating func maybe(_ valid: Any) -> Any { chance(0.8) ? valid : scalar() }

    mutating func rect() -> [Any] {
        let x = Double.random(in: 0...0.6, using: &rng)
        let y = Double.random(in: 0...0.6, using: &rng)
        var r: [Any] = [x, y, Double.random(in: 0.01...(1 - x), using: &rng), Double.random(in: 0.01...(1 - y), using: &rng)]
        if chance(0.2) { r[Int.random(in: 0..<4, using: &rng)] = number() }
        if chance(0.05) { r.removeLast() }
        return r
    }

    /// A payload of one of the formats, with random damage.
    mutating func payload() -> [AnyHashable: Any] {
        var userInfo: [AnyHashable: Any] = chance(0.7) ? ["aps": ["alert": ["body": "b"], "mutable-content": 1]] : [:]
        switch Int.random(in: 0..<8, using: &rng) {
        case 0, 1:
            let entries: [Any] = (0..<Int.random(in: 0...5, using: &rng)).map { _ in
                var e: [String: Any] = [:]
                if chance(0.9) { e["u"] = url() }
                if chance(0.7) { e["t"] = maybe(pick(Self.utis)) }
                if chance(0.4) { e["h"] = maybe(pick([1, 0, true, false] as [Any])) }
                if chance(0.4) { e["c"] = maybe(rect()) }
                if chance(0.3) { e["s"] = maybe(Double.random(in: 0...30, using: &rng)) }
                return chance(0.95) ? e : scalar()
            }
            userInfo["pm"] = chance(0.95) ? ["v": maybe(1), "a": maybe(entries)] as [String: Any] : scalar()
        case 2:
            userInfo["ab"] = ["att": maybe(["url": maybe(url()), "type": maybe(pick(Self.extensions))] as [String: Any])]
        case 3:
            userInfo["adb_media"] = maybe(url())
        case 4:
            var media: [String: Any] = [:]
            if chance(0.5) {
                media["urls"] = maybe(
                    (0..<Int.random(in: 0...4, using: &rng)).map { i in
                        ["url": maybe(url()), "url_id": maybe(pick(["expanded", "thumbnail", "\(i)"]))] as [String: Any]
                    })
            } else {
                media["url"] = chance(0.5) ? maybe(url()) : maybe([url(), url()])
            }
            if chance(0.5) { media["thumbnail_id"] = maybe(pick(["thumbnail", "expanded", "0"])) }
            if chance(0.5) {
                let r = rect()
                media["options"] = maybe(
                    [
                        "crop": maybe(["x": r[0], "y": r[1], "width": r.count > 2 ? r[2] : 0.5, "height": r.count > 3 ? r[3] : 0.5]),
                        "time": maybe(Double.random(in: 0...10, using: &rng)), "hidden": maybe(chance(0.5)),
                    ] as [String: Any])
            }
            userInfo[pick(["com.urbanairship.media_attachment", "media_attachment"])] = chance(0.95) ? media : scalar()
        case 5:
            var att: [String: Any] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &rng) { att[pick(["1", "2", "10", "expanded", "thumbnail", "id"])] = maybe(url()) }
            userInfo[pick(["att", "ios_attachments"])] = maybe(att)
        case 6:
            userInfo["fcm_options"] = maybe(["image": maybe(url())] as [String: Any])
        default:
            for (key, value) in object(depth: 0) { userInfo[key] = value }
        }
        return userInfo
    }
}

@Suite("Planner: fuzzed and malformed userInfo (property tests)")
struct PlannerFuzzTests {
    /// What must hold for any plan, whatever the input.
    static func checkInvariants(_ plan: AttachmentPlan, policy: DownloadPolicy = .standard, _ label: String) {
        #expect(plan.attachments.count <= policy.maxAttachments, "\(label)")
        #expect(!plan.attachments.isEmpty || !plan.problems.isEmpty, "\(label): no attachment and no reason")
        #expect(Set(plan.attachments.map(\.identifier)).count == plan.attachments.count, "\(label): duplicate identifiers")
        for a in plan.attachments {
            #expect(a.url.scheme?.lowercased() == "https", "\(label): \(a.url)")
            #expect(a.url.host?.isEmpty == false, "\(label): \(a.url)")
            #expect(AttachmentFileType.all.contains(a.type), "\(label)")
            #expect(a.type.fileExtensions.contains(a.fileExtension), "\(label): .\(a.fileExtension) for \(a.typeHint)")
            #expect(a.options.clippingRect.map(\.isValid) ?? true, "\(label): \(String(describing: a.options.clippingRect))")
            #expect(a.options.thumbnailTime.map { $0.isFinite && $0 >= 0 } ?? true, "\(label)")
            #expect(a.optionsDictionary[AttachmentOptionKey.typeHint] as? String == a.typeHint)
        }
        #expect(plan.download.steps.map(\.index) == Array(plan.attachments.indices), "\(label)")
        #expect(plan.download.steps.allSatisfy { $0.timeout > 0 && $0.timeout <= plan.download.overallDeadline }, "\(label)")
        #expect(plan.download.steps.map(\.maxBytes) == plan.attachments.map(\.maxBytes), "\(label)")
        for p in plan.problems { #expect(!p.message.isEmpty && !p.path.isEmpty, "\(label)") }
    }

    @Test("600 generated payloads: invariants hold, JSON and userInfo agree")
    func generatedPayloads() throws {
        var generator = PayloadGenerator(rng: SeededRandom(seed: 0x5EED_0001))
        let planner = AttachmentPlanner()
        var planned = 0
        var refused = 0
        var viaJSON = 0
        for i in 0..<600 {
            let userInfo = generator.payload()
            let plan = planner.plan(userInfo: userInfo)
            Self.checkInvariants(plan, "case \(i)")
            #expect(planner.plan(userInfo: userInfo) == plan, "case \(i): not deterministic")
            if !plan.attachments.isEmpty { planned += 1 }
            if !plan.problems.isEmpty { refused += 1 }
            // The same payload as JSON data plans the same (when it can be JSON at all).
            let stringKeyed = Dictionary(uniqueKeysWithValues: userInfo.compactMap { k, v in (k.base as? String).map { ($0, v) } })
            if JSONSerialization.isValidJSONObject(stringKeyed),
                let data = try? JSONSerialization.data(withJSONObject: stringKeyed)
            {
                viaJSON += 1
                let fromJSON = planner.plan(jsonData: data)
                #expect(fromJSON.attachments == plan.attachments, "case \(i): JSON and userInfo disagree")
                #expect(fromJSON.source == plan.source, "case \(i)")
            }
        }
        // The generator must exercise both sides, or the test proves nothing.
        #expect(planned > 60, "only \(planned) plans had attachments")
        #expect(refused > 200, "only \(refused) plans had problems")
        #expect(viaJSON > 100, "only \(viaJSON) payloads went through JSON")
    }

    nonisolated(unsafe) static let validPayloads: [[String: Any]] = [
        [
            "aps": ["alert": "x", "mutable-content": 1],
            "pm": [
                "v": 1,
                "a": [
                    ["u": "https://c.example/e.jpg", "t": "public.jpeg", "h": 1, "c": [0.25, 0, 0.5, 1]],
                    ["u": "https://c.example/t.jpg", "t": "public.jpeg", "s": 2],
                ],
            ],
        ],
        ["ab": ["att": ["url": "https://c.example/e.jpg", "type": "jpg"]]],
        ["adb_media": "https://c.example/e.gif"],
        [
            "com.urbanairship.media_attachment": [
                "urls": [["url": "https://c.example/e.jpg", "url_id": "expanded"], ["url": "https://c.example/t.jpg", "url_id": "thumbnail"]],
                "thumbnail_id": "thumbnail", "options": ["crop": ["x": 0.1, "y": 0.1, "width": 0.5, "height": 0.5], "time": 1],
            ]
        ],
        ["att": ["expanded": "https://c.example/e.jpg", "thumbnail": "https://c.example/t.jpg"]],
        ["fcm_options": ["image": "https://c.example/e.png"]],
    ]

    /// Replaces, deletes or re-types one value somewhere in the tree.
    static func mutate(_ value: Any, _ generator: inout PayloadGenerator, depth: Int = 0) -> Any {
        if var dict = value as? [String: Any], !dict.isEmpty, depth < 6 {
            let key = dict.keys.sorted()[Int.random(in: 0..<dict.count, using: &generator.rng)]
            switch Int.random(in: 0..<4, using: &generator.rng) {
            case 0: dict.removeValue(forKey: key)
            case 1: dict[key] = generator.value(depth: 3)
            default: dict[key] = mutate(dict[key]!, &generator, depth: depth + 1)
            }
            return dict
        }
        if var array = value as? [Any], !array.isEmpty, depth < 6 {
            let i = Int.random(in: 0..<array.count, using: &generator.rng)
            switch Int.random(in: 0..<4, using: &generator.rng) {
            case 0: array.remove(at: i)
            case 1: array[i] = generator.scalar()
            default: array[i] = mutate(array[i], &generator, depth: depth + 1)
            }
            return array
        }
        return generator.scalar()
    }

    @Test("600 mutated valid payloads: invariants hold")
    func mutatedPayloads() {
        var generator = PayloadGenerator(rng: SeededRandom(seed: 0x5EED_0002))
        let planner = AttachmentPlanner()
        var changed = 0
        for i in 0..<600 {
            let original = Self.validPayloads[i % Self.validPayloads.count]
            var mutated: Any = original
            for _ in 0..<Int.random(in: 1...3, using: &generator.rng) { mutated = Self.mutate(mutated, &generator) }
            let userInfo = (mutated as? [String: Any]) ?? [:]
            let plan = planner.plan(userInfo: userInfo)
            Self.checkInvariants(plan, "mutation \(i)")
            if plan != planner.plan(userInfo: original) { changed += 1 }
        }
        #expect(changed > 300, "only \(changed) mutations changed the plan")
    }

    @Test("every valid payload plans cleanly")
    func validPayloadsAreClean() {
        for (i, payload) in Self.validPayloads.enumerated() {
            let plan = AttachmentPlanner().plan(userInfo: payload)
            #expect(plan.problems.isEmpty, "payload \(i): \(plan.problems)")
            #expect(!plan.attachments.isEmpty, "payload \(i)")
        }
    }

    @Test("500 damaged JSON documents never crash")
    func damagedJSON() throws {
        var generator = PayloadGenerator(rng: SeededRandom(seed: 0x5EED_0003))
        let planner = AttachmentPlanner()
        let documents = try Self.validPayloads.map { try JSONSerialization.data(withJSONObject: $0) }
        var malformed = 0
        for i in 0..<500 {
            var bytes = [UInt8](documents[i % documents.count])
            switch i % 3 {
            case 0: bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator.rng)))
            case 1:
                for _ in 0..<Int.random(in: 1...4, using: &generator.rng) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator.rng)] = UInt8.random(in: 0...255, using: &generator.rng)
                }
            default:
                let nesting = Int.random(in: 1...200, using: &generator.rng)
                bytes = Array(String(repeating: "{\"pm\":[", count: nesting).utf8) + bytes
            }
            let plan = planner.plan(jsonData: Data(bytes))
            Self.checkInvariants(plan, "document \(i)")
            if plan.problems.contains(where: { $0.code == .malformedPayload }) { malformed += 1 }
        }
        #expect(malformed > 150)
    }
}
