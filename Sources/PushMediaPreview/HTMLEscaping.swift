/// The one place where strings become HTML. Every string that reaches the preview page (file
/// names, sources, error messages, warnings, titles) goes through here, through ``HTML/text(_:)``
/// or a ``Template`` value, so a file named `<script>.jpg` is shown, never run.
public enum HTMLEscaping {
    /// Escapes `string` for an HTML text node: `&`, `<`, `>`, `"` and `'` become character
    /// references. Also safe inside a double- or single-quoted attribute value.
    public static func text(_ string: String) -> String {
        var out = ""
        out.reserveCapacity(string.utf8.count)
        for scalar in string.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\u{0}": out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Escapes `string` for a quoted attribute value. The same set as ``text(_:)`` (both quote
    /// characters included), kept as its own name so each call site says which context it fills.
    public static func attribute(_ string: String) -> String {
        text(string)
    }

    /// Percent-encodes one path segment for a relative URL: everything but RFC 3986 unreserved
    /// characters (`A–Z a–z 0–9 - . _ ~`) is encoded as UTF-8 `%XX`, so `/`, `?`, `#`, `%`, `:`,
    /// quotes and spaces in a file name can neither leave the segment nor start a scheme.
    public static func urlSegment(_ segment: String) -> String {
        var out = ""
        for byte in segment.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + hexDigits(byte)
            }
        }
        return out
    }

    /// A relative URL from `/`-separated path components: each segment percent-encoded with
    /// ``urlSegment(_:)``; `..` and `.` segments are kept as they are. The result is still to be
    /// attribute-escaped (it contains no character that needs it, but the template does it anyway).
    public static func relativeURL(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment == ".." || segment == "." ? String(segment) : urlSegment(String(segment))
        }.joined(separator: "/")
    }

    private static func hexDigits(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}

/// A piece of markup that is already safe to insert: made only by ``HTML/text(_:)`` (escaping),
/// by filling a ``Template``, or by joining other `HTML` values. Templates insert it unchanged;
/// plain strings are always escaped. This keeps "already escaped" and "raw" apart in the types.
public struct HTML: Sendable, Equatable, CustomStringConvertible {
    /// The markup.
    public let markup: String

    /// Only this module builds raw markup (templates and constants it owns).
    init(trusted markup: String) {
        self.markup = markup
    }

    /// The string as escaped text.
    public static func text(_ string: String) -> HTML {
        HTML(trusted: HTMLEscaping.text(string))
    }

    /// The string as escaped text in a `<bdi>` element, isolated from the text around it: a
    /// name holding U+202E (RIGHT-TO-LEFT OVERRIDE) shows reversed itself, but cannot reverse
    /// what follows it. Templates isolate each `{{source}}` the same way.
    public static func isolated(_ string: String) -> HTML {
        HTML(trusted: "<bdi>" + HTMLEscaping.text(string) + "</bdi>")
    }

    /// Nothing.
    public static let empty = HTML(trusted: "")

    /// The fragments one after the other, one a line.
    public static func joined(_ parts: [HTML]) -> HTML {
        HTML(trusted: parts.map(\.markup).joined(separator: "\n"))
    }

    public var description: String { markup }
}
