/// The ranges a manifest's numbers must be in, checked on reading (``Item/valueProblem()``):
/// a manifest is input to `verify`, `payload` and `preview`, which may be handed one made by
/// hand or by another tool, and a number past what any run writes would otherwise overflow a sum
/// or a conversion later (a byte count near `Int.max`, a deadline of 10^18 s).
public enum ManifestNumbers {
    /// The most bytes a file the manifest names may have (1 TiB): far above any attachment a
    /// platform takes (50 MB), low enough that a million of them add up without overflow.
    public static let maxBytes = 1 << 40
    /// The largest width or height (pixels) an attachment or a probe may state.
    public static let maxSide = 1 << 24
    /// The most frames an attachment or a probe may state.
    public static let maxFrames = 1 << 24
    /// The longest duration (seconds) a movie or audio file may state (about 116 days).
    public static let maxSeconds = 1e7
    /// The most attachments an item may have: a run writes at most four (thumbnail, expanded,
    /// media, Android image).
    public static let maxAttachments = 16
    /// The link speeds a profile accepts (``Profile/Delivery/linkBitsPerSecond``), bits per second.
    public static let linkBitsPerSecond = 8_000...10_000_000_000
}

/// A value of a manifest item no run writes: a number outside its range, a file path that is
/// not inside the output folder. The field, the value and what it must be, in words.
public struct ManifestValueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the value is: `attachments[1].bytes`, `delivery.linkBitsPerSecond`.
    public var field: String
    public var value: String
    /// What the value must be: `in 0…1099511627776`, `a path inside the output folder`.
    public var expected: String

    public var description: String { "\(field) is \(value), which is not \(expected)" }
}

extension Item {
    /// The first value of this item that no run writes: a number outside its range
    /// (``ManifestNumbers``), an attachment's `file` that is not a relative path inside the
    /// output folder (``Attachment/isContainedPath(_:)``); nil when there is none.
    public func valueProblem() -> ManifestValueError? {
        var checks = ValueChecks()
        checks.whole("sourceBytes", sourceBytes, 0...ManifestNumbers.maxBytes)
        checks.whole("attachments.count", attachments.count, 0...ManifestNumbers.maxAttachments)
        for (index, attachment) in attachments.enumerated() {
            let at = "attachments[\(index)]"
            checks.path("\(at).file", attachment.file)
            checks.whole("\(at).bytes", attachment.bytes, 0...ManifestNumbers.maxBytes)
            checks.whole("\(at).width", attachment.width, 1...ManifestNumbers.maxSide)
            checks.whole("\(at).height", attachment.height, 1...ManifestNumbers.maxSide)
            checks.whole("\(at).frames", attachment.frames, 1...ManifestNumbers.maxFrames)
            checks.whole("\(at).budget", attachment.budget, 0...ManifestNumbers.maxBytes)
            checks.real("\(at).durationSeconds", attachment.durationSeconds, 0...ManifestNumbers.maxSeconds)
            checks.real("\(at).options.thumbnailTime", attachment.options.thumbnailTime, 0...ManifestNumbers.maxSeconds)
        }
        if let probe {
            checks.whole("probe.width", probe.width, 0...ManifestNumbers.maxSide)
            checks.whole("probe.height", probe.height, 0...ManifestNumbers.maxSide)
            checks.whole("probe.frames", probe.frames, 0...ManifestNumbers.maxFrames)
            checks.real("probe.durationSeconds", probe.durationSeconds, 0...ManifestNumbers.maxSeconds)
        }
        if let delivery {
            checks.whole("delivery.bytes", delivery.bytes, 0...ManifestNumbers.maxBytes)
            checks.whole("delivery.budget", delivery.budget, 0...ManifestNumbers.maxBytes)
            checks.real("delivery.seconds", delivery.seconds, 0...ManifestNumbers.maxSeconds)
            checks.whole("delivery.linkBitsPerSecond", delivery.linkBitsPerSecond, ManifestNumbers.linkBitsPerSecond)
        }
        return checks.problem
    }
}

extension Attachment {
    /// Whether `file` is a path a manifest may name: relative, inside the output folder, and
    /// harmless where a page or a URL joins it to a base. Not absolute (`/etc/passwd`), not
    /// scheme-relative (`//evil.example/x.jpg`), no scheme (`javascript:`), no `.` or `..`
    /// component, no empty component, no backslash or control character.
    public static func isContainedPath(_ file: String) -> Bool {
        guard !file.isEmpty, !file.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\\" || $0.value == 0x7F }) else {
            return false
        }
        let components = file.split(separator: "/", omittingEmptySubsequences: false)
        guard let first = components.first, !first.contains(":") else { return false }
        return components.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }
}

/// Collects the first value no run writes.
private struct ValueChecks {
    var problem: ManifestValueError?

    mutating func path(_ field: String, _ file: String) {
        guard problem == nil, !Attachment.isContainedPath(file) else { return }
        problem = ManifestValueError(
            field: field, value: "\"\(TerminalText.escaped(file))\"",
            expected: "a relative path inside the output folder (no leading /, no .., no scheme)")
    }

    mutating func whole(_ field: String, _ value: Int?, _ range: ClosedRange<Int>) {
        guard problem == nil, let value, !range.contains(value) else { return }
        problem = ManifestValueError(field: field, value: "\(value)", expected: "in \(range.lowerBound)…\(range.upperBound)")
    }

    mutating func real(_ field: String, _ value: Double?, _ range: ClosedRange<Double>) {
        guard problem == nil, let value, !(value.isFinite && range.contains(value)) else { return }
        problem = ManifestValueError(field: field, value: "\(value)", expected: "in \(range.lowerBound)…\(range.upperBound)")
    }
}

extension Int {
    /// `self + other`, held at `Int.max` (or `Int.min`) instead of trapping: for totals over a
    /// manifest's items, whose count nothing bounds.
    public func addingSaturated(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `value` rounded, held within `Int`'s range (NaN: 0): a conversion that never traps.
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= 9.223372036854775e18 {
            self = .max
        } else if value <= -9.223372036854775e18 {
            self = .min
        } else {
            self = Int(value.rounded())
        }
    }
}
