import Foundation

/// The prefix `--base-url` gives: an attachment's URL is the prefix, `/` (unless it ends in one)
/// and the file's name. So it must be a URL that stays one when a path is appended: https, a
/// host, no userinfo, no query or fragment (the file would land in them), and only characters
/// a URL holds unescaped (what it copies goes into every manifest and payload as it is).
public enum BaseURL {
    /// Why `string` cannot be a base URL, as the end of a sentence that names it ("has a
    /// query"), or nil when it can.
    public static func problem(_ string: String) -> String? {
        if string.isEmpty { return "is empty" }
        if let reason = characterProblem(string) { return reason }
        guard let components = URLComponents(string: string), URL(string: string) != nil else { return "is not a valid URL" }
        guard let scheme = components.scheme else { return "is not absolute (no scheme)" }
        guard scheme.lowercased() == "https" else { return "uses \(scheme), not https" }
        if components.percentEncodedUser != nil || components.percentEncodedPassword != nil {
            return "has userinfo (user:password@): a phone would send it to every host, give the host alone"
        }
        guard let host = components.host, !host.isEmpty else { return "has no host" }
        // After the character checks, `?` and `#` can only begin a query and a fragment.
        if string.contains("?") { return "has a query (?…): the files' names would be appended to it" }
        if string.contains("#") { return "has a fragment (#…): the files' names would be appended to it, and never sent" }
        return nil
    }

    /// A character a URL cannot hold as it is: a control character, whitespace, one outside
    /// ASCII, one RFC 3986 allows nowhere (`"`, `<`, `>`, `\`, `^`, `` ` ``, `{`, `|`, `}`), or a
    /// `%` that begins no escape.
    private static func characterProblem(_ string: String) -> String? {
        let scalars = Array(string.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F: return "contains a control character (\(codePoint(scalar)))"
            case 0x20: return "contains whitespace (a space): write it %20"
            case 0x25:
                let hex = { (offset: Int) in
                    index + offset < scalars.count && scalars[index + offset].properties.isASCIIHexDigit
                }
                if !(hex(1) && hex(2)) { return "has a % that is not followed by two hex digits" }
            case 0x21...0x7E:
                if "\"<>\\^`{|}".unicodeScalars.contains(scalar) {
                    let byte = String(scalar.value, radix: 16, uppercase: true)
                    return "contains \(scalar), which a URL cannot hold unescaped: write it %\(byte)"
                }
            default:
                if scalar.properties.isWhitespace { return "contains whitespace (\(codePoint(scalar)))" }
                if TerminalText.needsEscape(scalar) { return "contains a control character (\(codePoint(scalar)))" }
                return "contains \(codePoint(scalar)), outside ASCII: percent-encode it (a host in its xn-- form)"
            }
        }
        return nil
    }

    /// `U+000A`: the character named, never printed as it is.
    private static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
