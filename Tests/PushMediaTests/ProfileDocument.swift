import Foundation
import PushMediaModel
import PushMediaTesting
import Testing

@testable import PushMedia

/// A random profile file as a tree, written as JSON, YAML flow style or YAML block style.
indirect enum ProfileDocument {
    case int(Int)
    case double(Double)
    case string(String)
    case bool(Bool)
    case null
    case list([ProfileDocument])
    case map([(String, ProfileDocument)])

    enum Format: CaseIterable { case json, yamlFlow, yamlBlock }

    /// A field: its section (nil: top level), its key and the values a clean case draws from:
    /// valid, and such that fields that bound each other agree (minQuality ≤ quality, …).
    struct Field {
        enum Kind {
            case int(ClosedRange<Int>)
            case double(ClosedRange<Double>)
            case choice([String])
            case bool
            case aspect
        }
        var section: String?
        var key: String
        var kind: Kind
    }

    static let fields: [Field] = {
        let image = AttachmentType.maxBytes(for: .image)
        func f(_ section: String?, _ key: String, _ kind: Field.Kind) -> Field { Field(section: section, key: key, kind: kind) }
        return [
            f(nil, "name", .choice(["default", "wide", "a:b", "x y"])),
            f(nil, "crop", .choice(CropStrategy.allCases.map(\.rawValue))),
            f("thumbnail", "size", .int(16...4096)),
            f("expanded", "aspect", .aspect),
            f("expanded", "maxWidth", .int(16...8192)),
            f("jpeg", "quality", .int(40...100)),
            f("jpeg", "minQuality", .int(1...40)),
            f("png", "compression", .int(0...9)),
            f("animation", "stillThumbnail", .bool),
            f("animation", "minColours", .int(2...256)),
            f("animation", "maxFrameStep", .int(1...8)),
            f("animation", "maxFramesPerSecond", .int(0...50)),
            f("video", "maxLongSide", .int(16...7680)),
            f("video", "maxFrameRate", .double(0.5...240)),
            f("video", "preset", .choice(Profile.Video.presets)),
            f("video", "audioBitRate", .int(16_000...512_000)),
            f("video", "minBitRate", .int(50_000...50_000_000)),
            f("video", "trimToSeconds", .double(0.1...86400)),
            f("video", "posterWindowSeconds", .double(0.1...600)),
            f("audio", "bitRate", .int(64_000...512_000)),
            f("audio", "minBitRate", .int(16_000...64_000)),
            f("budgets", "thumbnail", .int(1_000...image)),
            f("budgets", "expanded", .int(1_000...image)),
            f("budgets", "animated", .int(1_000...image)),
            f("budgets", "movie", .int(10_000...AttachmentType.maxBytes(for: .movie))),
            f("budgets", "audio", .int(10_000...AttachmentType.maxBytes(for: .audio))),
            f("delivery", "linkBitsPerSecond", .int(16_000...10_000_000_000)),
            f("delivery", "seconds", .double(10...600)),
            f("delivery", "imageSeconds", .double(1...5)),
            f("limits", "maxInputBytes", .int(1...(1 << 40))),
            f("limits", "maxPixels", .int(1...(1 << 40))),
            f("limits", "maxFrames", .int(1...100_000)),
            f("limits", "maxAnimationPixels", .int(1...(1 << 42))),
            f("limits", "timeoutSeconds", .double(0.001...3600)),
            f("limits", "maxDurationSeconds", .double(0.001...86400)),
            f("limits", "mediaTimeoutSeconds", .double(0.001...3600)),
            f("limits", "faceNetMilliseconds", .double(0...60_000)),
        ]
    }()

    static let hostileInts: [Int] = [0, -1, 1, 15, 101, 4097, .min, .max, .max - 1, .min + 1, 1 << 62, -(1 << 62), 1 << 53, 10_000_000_001]
    static let hostileDoubles: [Double] = [
        0, -0.0, -1, .nan, .infinity, -.infinity, 1e308, -1e308, .greatestFiniteMagnitude, .leastNonzeroMagnitude, 1e-300, 0x1p63, -0x1p63,
    ]

    /// A random value for `kind`: in a hostile case sometimes a hostile number or a value of the
    /// wrong type, else one from the clean values.
    static func value(_ kind: Field.Kind, hostile: Bool, using random: inout SeededRandom) -> ProfileDocument {
        let roll = hostile ? Int.random(in: 0..<100, using: &random) : 100
        if roll < 8 { return wrongType(using: &random) }
        let clean = roll >= 30
        switch kind {
        case .int(let range):
            return .int(clean ? Int.random(in: range, using: &random) : hostileInts.randomElement(using: &random)!)
        case .double(let range):
            if clean { return .double(Bool.random(using: &random) ? range.upperBound : Double.random(in: range, using: &random)) }
            return Bool.random(using: &random)
                ? .double(hostileDoubles.randomElement(using: &random)!) : .int(hostileInts.randomElement(using: &random)!)
        case .choice(let choices):
            return .string(clean ? choices.randomElement(using: &random)! : "nope")
        case .bool:
            return clean ? .bool(Bool.random(using: &random)) : .int(1)
        case .aspect:
            if clean { return .string("\(Int.random(in: 1...100, using: &random)):\(Int.random(in: 1...100, using: &random))") }
            return .string(["0:1", "1:0", "-1:2", "9223372036854775807:1", "2x1", ":", ""].randomElement(using: &random)!)
        }
    }

    static func wrongType(using random: inout SeededRandom) -> ProfileDocument {
        [.string("12"), .bool(true), .null, .list([.int(1)]), .map([("a", .int(1))]), .double(1.5), .string("")]
            .randomElement(using: &random)!
    }

    /// A random file: a random subset of the keys. Half the cases are hostile: some values are
    /// hostile numbers or of the wrong type, and some have an unknown key or a section that is
    /// not a mapping.
    static func random(using random: inout SeededRandom) -> ProfileDocument {
        let hostile = Bool.random(using: &random)
        var top: [(String, ProfileDocument)] = []
        var sections: [String: [(String, ProfileDocument)]] = [:]
        var order: [String] = []
        let keep = Double.random(in: 0.05...0.6, using: &random)
        for field in fields where Double.random(in: 0..<1, using: &random) < keep {
            let value = value(field.kind, hostile: hostile, using: &random)
            if let section = field.section {
                if sections[section] == nil { order.append(section) }
                sections[section, default: []].append((field.key, value))
            } else {
                top.append((field.key, value))
            }
        }
        for section in order { top.append((section, .map(sections[section]!))) }
        let roll = hostile ? Int.random(in: 0..<100, using: &random) : 100
        if roll < 8 {
            top.append(("unknownKey", .int(1)))
        } else if roll < 16, let index = top.indices.randomElement(using: &random), case .map(var entries) = top[index].1 {
            entries.append(("typo", .int(1)))
            top[index].1 = .map(entries)
        } else if roll < 22 {
            top.append((["jpeg", "delivery", "limits"].randomElement(using: &random)!, wrongType(using: &random)))
        }
        return .map(top)
    }

    /// A profile with every field set directly: in half the cases from clean values only, in the
    /// other half with hostile values mixed in.
    static func randomProfile(using random: inout SeededRandom) -> Profile {
        let hostileShare = Bool.random(using: &random) ? 0 : 10
        var values: [String: ProfileDocument] = [:]
        for field in fields {
            let roll = Int.random(in: 0..<100, using: &random)
            switch field.kind {
            case .int(let range):
                values[field.key + "@" + (field.section ?? "")] =
                    .int(roll < hostileShare ? hostileInts.randomElement(using: &random)! : Int.random(in: range, using: &random))
            case .double(let range):
                values[field.key + "@" + (field.section ?? "")] =
                    .double(roll < hostileShare ? hostileDoubles.randomElement(using: &random)! : Double.random(in: range, using: &random))
            default: break
            }
        }
        func int(_ section: String, _ key: String) -> Int {
            guard case .int(let value) = values[key + "@" + section] else { return 0 }
            return value
        }
        func double(_ section: String, _ key: String) -> Double {
            guard case .double(let value) = values[key + "@" + section] else { return 0 }
            return value
        }
        var p = Profile()
        p.thumbnail.size = int("thumbnail", "size")
        p.expanded.maxWidth = int("expanded", "maxWidth")
        p.expanded.aspect =
            Int.random(in: 0..<100, using: &random) < hostileShare
            ? AspectRatio(width: hostileInts.randomElement(using: &random)!, height: hostileInts.randomElement(using: &random)!)
            : AspectRatio(width: Int.random(in: 1...100, using: &random), height: Int.random(in: 1...100, using: &random))
        p.jpeg.quality = int("jpeg", "quality")
        p.jpeg.minQuality = int("jpeg", "minQuality")
        p.png.compression = int("png", "compression")
        p.animation.minColours = int("animation", "minColours")
        p.animation.maxFrameStep = int("animation", "maxFrameStep")
        p.animation.maxFramesPerSecond = int("animation", "maxFramesPerSecond")
        p.video.maxLongSide = int("video", "maxLongSide")
        p.video.maxFrameRate = double("video", "maxFrameRate")
        p.video.audioBitRate = int("video", "audioBitRate")
        p.video.minBitRate = int("video", "minBitRate")
        p.video.trimToSeconds = Bool.random(using: &random) ? nil : double("video", "trimToSeconds")
        p.video.posterWindowSeconds = double("video", "posterWindowSeconds")
        p.audio.bitRate = int("audio", "bitRate")
        p.audio.minBitRate = int("audio", "minBitRate")
        p.budgets.thumbnail = int("budgets", "thumbnail")
        p.budgets.expanded = int("budgets", "expanded")
        p.budgets.animated = int("budgets", "animated")
        p.budgets.movie = int("budgets", "movie")
        p.budgets.audio = int("budgets", "audio")
        p.delivery.linkBitsPerSecond = int("delivery", "linkBitsPerSecond")
        p.delivery.seconds = double("delivery", "seconds")
        p.delivery.imageSeconds = double("delivery", "imageSeconds")
        p.limits.maxInputBytes = int("limits", "maxInputBytes")
        p.limits.maxPixels = int("limits", "maxPixels")
        p.limits.maxFrames = int("limits", "maxFrames")
        p.limits.maxAnimationPixels = int("limits", "maxAnimationPixels")
        p.limits.timeoutSeconds = double("limits", "timeoutSeconds")
        p.limits.maxDurationSeconds = double("limits", "maxDurationSeconds")
        p.limits.mediaTimeoutSeconds = double("limits", "mediaTimeoutSeconds")
        p.limits.faceNetMilliseconds = double("limits", "faceNetMilliseconds")
        return p
    }

    func text(_ format: Format) -> String {
        switch format {
        case .json: json
        case .yamlFlow:
            // Top-level keys one a line, each section in flow style (a file opening with `{`
            // would be read as JSON).
            if case .map(let entries) = self, !entries.isEmpty {
                entries.map { $0.0 + ": " + $0.1.yaml }.joined(separator: "\n")
            } else {
                yaml
            }
        case .yamlBlock: block(indent: 0)
        }
    }

    private var json: String {
        switch self {
        case .int(let value): "\(value)"
        case .double(let value): "\(value)" // NaN and inf are not JSON: refused
        case .string(let value): Self.quoted(value)
        case .bool(let value): "\(value)"
        case .null: "null"
        case .list(let values): "[" + values.map(\.json).joined(separator: ", ") + "]"
        case .map(let entries): "{" + entries.map { Self.quoted($0.0) + ": " + $0.1.json }.joined(separator: ", ") + "}"
        }
    }

    private var yaml: String {
        switch self {
        case .double(let value): Self.yamlNumber(value)
        case .list(let values): "[" + values.map(\.yaml).joined(separator: ", ") + "]"
        case .map(let entries): "{" + entries.map { $0.0 + ": " + $0.1.yaml }.joined(separator: ", ") + "}"
        default: json
        }
    }

    private func block(indent: Int) -> String {
        guard case .map(let entries) = self else { return yaml }
        if entries.isEmpty { return "{}" }
        let pad = String(repeating: " ", count: indent)
        return entries.map { key, value in
            if case .map(let inner) = value, !inner.isEmpty { return pad + key + ":\n" + value.block(indent: indent + 2) }
            return pad + key + ": " + value.yaml
        }.joined(separator: "\n")
    }

    private static func yamlNumber(_ value: Double) -> String {
        if value.isNaN { return ".nan" }
        if value.isInfinite { return value > 0 ? ".inf" : "-.inf" }
        return "\(value)"
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
