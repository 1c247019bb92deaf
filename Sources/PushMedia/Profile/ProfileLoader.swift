import Foundation
import PushMediaModel
import Yams

/// Reads a profile file (JSON, or YAML which is a superset of it) over the built-in defaults.
///
/// Every way in refuses a bad profile with a ``Failure`` naming what is wrong, and never traps or
/// runs out of memory or stack on one: the text is capped at ``maxBytes`` before it is parsed, its
/// nesting is bounded by a pre-scan before the parser (which recurses) sees it, YAML numbers that
/// the parser would overflow on are refused before it converts them, and the values are checked
/// by ``Profile/problems`` (total) before anything is derived from them.
public enum ProfileLoader {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        /// A message of at most ``maxMessage`` characters: whatever the file holds (a value of a
        /// megabyte, thousands of problems), the message stays readable.
        init(_ description: String) {
            self.description =
                description.count <= ProfileLoader.maxMessage
                ? description : String(description.prefix(ProfileLoader.maxMessage)) + "… (\(description.count) characters in all)"
        }
    }

    /// The longest message a ``Failure`` keeps.
    static let maxMessage = 4000

    /// The largest profile read, in bytes (1 MiB): a full profile is under 2 KB.
    public static let maxBytes = 1 << 20
    /// The deepest a JSON profile may nest `{`/`[` (a profile is 3 levels deep at most).
    public static let maxDepth = 32
    /// The most `[` and `{` a YAML profile may hold (the full profile in flow style has 12): a
    /// bound on its flow nesting that holds whatever the quoting.
    public static let maxFlowBrackets = 64
    /// The most columns of indentation, with the `-`, `?` and `:` indicators that open a nested
    /// block on the same line counted too, that a YAML line may have: a bound on block nesting.
    public static let maxIndent = 64
    /// The most values (scalars, mappings, sequences) a YAML profile may expand to, aliases
    /// counted each time they are used.
    public static let maxValues = 1_000_000

    /// Reads and checks the profile at `path`; a file over ``maxBytes`` is refused after reading
    /// one byte past the limit, never whole.
    public static func load(path: String) throws -> Profile {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Failure("cannot read profile \(path)") }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maxBytes + 1) ?? Data()
        } catch {
            throw Failure("cannot read profile \(path): \(error.localizedDescription)")
        }
        if data.count > maxBytes {
            var info = stat()
            let size =
                fstat(handle.fileDescriptor, &info) == 0 && Int(info.st_size) > maxBytes ? "\(info.st_size) bytes" : "more than \(maxBytes) bytes"
            throw Failure("\(path): the profile is \(size), over the limit of \(maxBytes) bytes (a profile is a few KB)")
        }
        return try parse(data, name: path)
    }

    /// Parses and checks a profile: JSON when the text starts with `{`, else YAML.
    public static func parse(_ data: Data, name: String = "profile") throws -> Profile {
        try checkSize(data, name: name)
        let text = String(decoding: data, as: UTF8.self)
        if text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{") {
            return try decodeJSON(data, name: name)
        }
        return try decodeYAML(text, name: name)
    }

    /// Parses and checks a profile that must be JSON (a queued job's, see `ProfileKey`).
    public static func parseJSON(_ data: Data, name: String = "profile") throws -> Profile {
        try checkSize(data, name: name)
        return try decodeJSON(data, name: name)
    }

    private static func checkSize(_ data: Data, name: String) throws {
        if data.count > maxBytes {
            throw Failure("\(name): the profile is \(data.count) bytes, over the limit of \(maxBytes) bytes (a profile is a few KB)")
        }
    }

    private static func decodeJSON(_ data: Data, name: String) throws -> Profile {
        let (depth, line) = jsonDepth(data)
        if depth > maxDepth {
            throw Failure(
                "\(name): nested \(depth) levels deep at line \(line), more than the \(maxDepth) a profile may have (a profile is at most 3 levels deep)"
            )
        }
        return try checked(name) { try JSONDecoder().decode(Profile.self, from: data) }
    }

    private static func decodeYAML(_ text: String, name: String) throws -> Profile {
        if let problem = yamlNesting(text) { throw Failure("\(name): \(problem)") }
        // Yams converts a plain scalar such as `1:2:3` to an Int in base 60 without checking for
        // overflow (a trap): such numbers are found on the parsed tree first.
        let root: Node?
        do {
            root = try Parser(yaml: text, resolver: Resolver.basic.appending(.merge)).singleRoot()
        } catch {
            throw Failure("\(name): not valid YAML: \(error)")
        }
        if let root, let problem = unsafeScalars(root) { throw Failure("\(name): \(problem)") }
        return try checked(name) { try YAMLDecoder().decode(Profile.self, from: text) }
    }

    /// Decodes, then refuses values out of range (``Profile/problems``).
    private static func checked(_ name: String, _ decode: () throws -> Profile) throws -> Profile {
        let profile: Profile
        do {
            profile = try decode()
        } catch let error as DecodingError {
            throw Failure("\(name): \(describe(error))")
        } catch {
            throw Failure("\(name): \(error)")
        }
        let problems = profile.problems
        guard problems.isEmpty else {
            throw Failure("\(name): " + problems.joined(separator: "; "))
        }
        return profile
    }

    // MARK: Pre-scans, before a parser that recurses sees the text

    /// The deepest `{`/`[` nesting of JSON text outside strings, and the line where it is first
    /// reached. A closer with nothing open counts as nothing (the JSON is invalid there, and the
    /// parser stops at it).
    static func jsonDepth(_ data: Data) -> (depth: Int, line: Int) {
        var depth = 0
        var deepest = 0
        var deepestLine = 1
        var line = 1
        var inString = false
        var escaped = false
        for byte in data {
            if byte == UInt8(ascii: "\n") { line += 1 }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth > deepest { (deepest, deepestLine) = (depth, line) }
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth = max(0, depth - 1)
            default: break
            }
        }
        return (deepest, deepestLine)
    }

    /// Why YAML text may nest too deeply for the parser, or nil. Two bounds that hold whatever
    /// the text means (a quote, a comment or a block scalar cannot hide nesting from them): flow
    /// nesting is at most the number of `[` and `{` in the text, and block nesting needs, per
    /// level, a column more of indentation or an indicator (`- `, `? `, `: `) on the line.
    static func yamlNesting(_ text: String) -> String? {
        var brackets = 0
        var line = 1
        // The leading run of a line: its blanks and indicators, and where its last indicator ends
        // (blanks alone before the end of a line or a comment open nothing).
        var column = 0
        var indicatorsEnd = 0
        var inRun = true
        var widest = (indent: 0, line: 0)
        func endRun(_ indent: Int) {
            if inRun && indent > widest.indent { widest = (indent, line) }
            inRun = false
        }
        for character in text.unicodeScalars {
            switch character {
            // YAML's line breaks (1.1 counts NEL, LS and PS too); lines are numbered by "\n".
            case "\n", "\r", "\u{85}", "\u{2028}", "\u{2029}":
                endRun(indicatorsEnd)
                if character == "\n" { line += 1 }
                (column, indicatorsEnd, inRun) = (0, 0, true)
                continue
            case "[", "{": brackets += 1
            default: break
            }
            guard inRun else { continue }
            switch character {
            case " ", "\t": column += 1
            case "\u{FEFF}": break // a byte order mark takes no column
            case "-", "?", ":":
                column += 1
                indicatorsEnd = column
            case "#": endRun(indicatorsEnd)
            default: endRun(column)
            }
        }
        endRun(indicatorsEnd)
        if brackets > maxFlowBrackets {
            return "\(brackets) '[' or '{', more than the \(maxFlowBrackets) a profile may have (a profile is at most 3 levels deep)"
        }
        if widest.indent > maxIndent {
            return
                "line \(widest.line) is indented \(widest.indent) columns (with its '-', '?' and ':' indicators), more than the \(maxIndent) a profile may have (a profile is at most 3 levels deep)"
        }
        return nil
    }

    /// Why the parsed YAML holds a value Yams cannot decode safely, or nil: a plain scalar with
    /// `:` whose base-60 value (Yams' reading of `1:30` as 90) overflows an Int, or more than
    /// ``maxValues`` values.
    static func unsafeScalars(_ root: Node) -> String? {
        var pending = [root]
        var seen = 0
        while let node = pending.popLast() {
            seen += 1
            if seen > maxValues {
                return "more than \(maxValues) values (aliases counted each time they are used)"
            }
            switch node {
            case .scalar(let scalar):
                if scalar.style == .plain || scalar.style == .any, scalar.string.contains(":"),
                    sexagesimalOverflows(scalar.string)
                {
                    return "the number \(Profile.clipped(scalar.string)) is too large"
                }
            case .mapping(let mapping):
                for (key, value) in mapping {
                    pending.append(key)
                    pending.append(value)
                }
            case .sequence(let sequence):
                pending.append(contentsOf: sequence)
            }
        }
        return nil
    }

    /// True when Yams' base-60 reading of `text` as an Int overflows: what Yams computes (the
    /// `:`-separated fields that read as decimal Ints, `_` removed, last field first, each times a
    /// power of 60, and the sign), with each step checked.
    static func sexagesimalOverflows(_ text: String) -> Bool {
        var scalar = Substring(text.replacingOccurrences(of: "_", with: ""))
        var negative = false
        if scalar.hasPrefix("-") {
            negative = true
            scalar = scalar.dropFirst()
        } else if scalar.hasPrefix("+") {
            scalar = scalar.dropFirst()
        }
        let digits = scalar.components(separatedBy: ":").compactMap { Int($0, radix: 10) }.reversed()
        var base = 1
        var value = 0
        for digit in digits {
            let (term, o1) = digit.multipliedReportingOverflow(by: base)
            let (sum, o2) = value.addingReportingOverflow(term)
            let (next, o3) = base.multipliedReportingOverflow(by: 60)
            if o1 || o2 || o3 { return true }
            (value, base) = (sum, next)
        }
        return negative && value == .min
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map(\.stringValue).joined(separator: ".")
            return keys.isEmpty ? "" : " at \(keys)"
        }
        switch error {
        case .dataCorrupted(let context): return context.debugDescription + path(context)
        case .keyNotFound(let key, let context): return "missing \(key.stringValue)" + path(context)
        case .typeMismatch(let type, let context): return "expected \(type)" + path(context)
        case .valueNotFound(let type, let context): return "expected \(type)" + path(context)
        @unknown default: return "\(error)"
        }
    }
}
