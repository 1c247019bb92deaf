/// A JSON value as PushPayload writes it: a tree with a stable, byte-exact serialization.
///
/// PushPayload serializes its own JSON rather than going through `JSONEncoder` so that the bytes
/// counted against a push service's limit are exactly the bytes printed, keys are always sorted
/// (stable golden files), slashes are never escaped (`https://` stays 8 bytes) and whole-number
/// doubles are written without a fraction (`12`, not `12.0`).
public indirect enum PayloadJSON: Sendable, Equatable {
    case string(String)
    case int(Int)
    /// Must be finite: the builders never put NaN or infinity in a payload.
    case double(Double)
    case bool(Bool)
    case array([PayloadJSON])
    case object([String: PayloadJSON])

    /// The member `key` of an object, or `nil`.
    public subscript(key: String) -> PayloadJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array, or `nil`.
    public subscript(index: Int) -> PayloadJSON? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// The string value, if this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The number as a `Double`, if this is a number.
    public var doubleValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    /// Compact JSON (no whitespace, keys sorted): what is sent and what the limits count.
    public var compactString: String {
        var out = ""
        write(to: &out, indent: nil, level: 0)
        return out
    }

    /// Indented JSON (two spaces, keys sorted), for people and golden files.
    public var prettyString: String {
        var out = ""
        write(to: &out, indent: "  ", level: 0)
        return out
    }

    /// The UTF-8 byte count of ``compactString``.
    public var compactByteCount: Int { compactString.utf8.count }

    /// The largest leaf (a string, number or boolean) in the tree, by the compact bytes of
    /// `"key":value`, with its path such as `pm.a[0].u`. `nil` for a tree without leaves.
    public var largestLeaf: (path: String, bytes: Int)? {
        var best: (path: String, bytes: Int)?
        func visit(_ value: PayloadJSON, path: String, keyBytes: Int) {
            switch value {
            case .object(let members):
                for key in members.keys.sorted() {
                    let childPath = path.isEmpty ? key : "\(path).\(key)"
                    // `"key":` is the key's escaped form plus the colon.
                    visit(members[key]!, path: childPath, keyBytes: PayloadJSON.string(key).compactByteCount + 1)
                }
            case .array(let elements):
                for (index, element) in elements.enumerated() {
                    visit(element, path: "\(path)[\(index)]", keyBytes: 0)
                }
            default:
                let bytes = keyBytes + value.compactByteCount
                if best == nil || bytes > best!.bytes { best = (path, bytes) }
            }
        }
        visit(self, path: "", keyBytes: 0)
        return best
    }

    private func write(to out: inout String, indent: String?, level: Int) {
        switch self {
        case .string(let s): PayloadJSON.writeEscaped(s, to: &out)
        case .int(let i): out += String(i)
        case .double(let d): out += PayloadJSON.format(d)
        case .bool(let b): out += b ? "true" : "false"
        case .array(let elements):
            if elements.isEmpty {
                out += "[]"
                return
            }
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent: indent, level: level + 1)
                element.write(to: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent: indent, level: level)
            out += "]"
        case .object(let members):
            if members.isEmpty {
                out += "{}"
                return
            }
            out += "{"
            for (i, key) in members.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent: indent, level: level + 1)
                PayloadJSON.writeEscaped(key, to: &out)
                out += indent == nil ? ":" : ": "
                members[key]!.write(to: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent: indent, level: level)
            out += "}"
        }
    }

    private func newline(_ out: inout String, indent: String?, level: Int) {
        guard let indent else { return }
        out += "\n" + String(repeating: indent, count: level)
    }

    /// Whole numbers below 2^53 without a fraction; others in Swift's shortest round-trip form.
    static func format(_ d: Double) -> String {
        precondition(d.isFinite, "PayloadJSON cannot write \(d)")
        if d == d.rounded(), abs(d) < 9_007_199_254_740_992 { return String(Int64(d)) }
        return "\(d)"
    }

    static func writeEscaped(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
