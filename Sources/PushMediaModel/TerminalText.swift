/// Text from outside (file names, sources, the messages that quote them) made safe to print on
/// a terminal or in a log line. A file may be named with any character but `/` and NUL: a name
/// holding ESC can retitle the operator's terminal or recolour its screen, CR or LF can draw a
/// line of progress that no item made, and a bidi control (U+202E) can show the rest of a line
/// reversed. Each such character is written as a visible escape instead; every other character,
/// `\` included, is left as it is, so escaping twice changes nothing.
///
/// The manifest, the events and the queue keep the true name: escaping there is JSON's job.
public enum TerminalText {
    /// `text` with every control character written as an escape: `\t`, `\n`, `\r`; the other
    /// C0 controls and DEL as `\xNN` (`\x1b` for ESC, `\x07` for BEL); the C1 controls (U+0080–
    /// U+009F), the line and paragraph separators (U+2028, U+2029) and the bidi controls
    /// (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) as `\u{XXXX}`.
    ///
    /// - Parameter keepingLineFeeds: leaves LF as it is, for a message of several lines that
    ///   is printed whole; the names it quotes are escaped on their own, LF included.
    public static func escaped(_ text: String, keepingLineFeeds: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0) && !(keepingLineFeeds && $0 == "\n") }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar), !(keepingLineFeeds && scalar == "\n") else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\u{0}"..."\u{1F}", "\u{7F}": out += "\\x" + hex(scalar.value, digits: 2)
            default: out += "\\u{" + hex(scalar.value, digits: 1) + "}"
            }
        }
        return out
    }

    /// Whether `scalar` is written as an escape by ``escaped(_:keepingLineFeeds:)``.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `value` in hex, lowercase for `\xNN` as terminals' own tools write it, uppercase in
    /// `\u{…}` as Unicode names code points.
    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: digits == 1)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
