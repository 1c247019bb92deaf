/// A tiny HTML template: markup with named placeholders `{{name}}`, filled in one pass by
/// ``fill(_:)``. Values are escaped for the context they declare (see ``TemplateValue``); a value
/// that itself contains `{{…}}` is inserted as it is, never expanded again.
///
/// Placeholder names are letters, digits and `_`. Filling with a missing name, or with a name the
/// template does not have, is a programming error (caught by `assert` and by the tests, which fill
/// every template).
public struct Template: Sendable {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case placeholder(String)
    }

    let segments: [Segment]

    /// Parses `source` once.
    public init(_ source: String) {
        var segments: [Segment] = []
        var rest = Substring(source)
        while let open = rest.range(of: "{{") {
            guard let close = rest[open.upperBound...].range(of: "}}") else { break }
            let name = rest[open.upperBound..<close.lowerBound]
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                // Not a placeholder (e.g. a literal "{{" in CSS): keep it as text.
                segments.append(.literal(String(rest[..<open.upperBound])))
                rest = rest[open.upperBound...]
                continue
            }
            segments.append(.literal(String(rest[..<open.lowerBound])))
            segments.append(.placeholder(String(name)))
            rest = rest[close.upperBound...]
        }
        segments.append(.literal(String(rest)))
        self.segments = segments.filter { $0 != .literal("") }
    }

    /// The placeholder names, in order of first appearance.
    public var placeholders: [String] {
        var seen: [String] = []
        for case .placeholder(let name) in segments where !seen.contains(name) { seen.append(name) }
        return seen
    }

    /// The template with every placeholder replaced by its value, escaped for its context.
    public func fill(_ values: [String: TemplateValue]) -> HTML {
        assert(
            Set(values.keys) == Set(placeholders),
            "template values \(values.keys.sorted()) do not match placeholders \(placeholders.sorted())")
        var out = ""
        for segment in segments {
            switch segment {
            case .literal(let text): out += text
            case .placeholder(let name): out += values[name]?.rendered ?? ""
            }
        }
        return HTML(trusted: out)
    }
}

/// A value for a ``Template`` placeholder, with the context it is escaped for.
public enum TemplateValue: Sendable, ExpressibleByStringLiteral {
    /// Text content: escaped with ``HTMLEscaping/text(_:)``.
    case text(String)
    /// A quoted attribute value: escaped with ``HTMLEscaping/attribute(_:)``.
    case attribute(String)
    /// A relative URL path (`/`-separated) for `src`/`href`: each segment percent-encoded, then
    /// attribute-escaped.
    case url(String)
    /// A number for CSS or text, written without locale (`.` as decimal point, at most 4 decimals).
    case number(Double)
    /// Markup that is already safe (an escaped or filled fragment): inserted unchanged.
    case html(HTML)

    public init(stringLiteral value: String) {
        self = .text(value)
    }

    var rendered: String {
        switch self {
        case .text(let s): HTMLEscaping.text(s)
        case .attribute(let s): HTMLEscaping.attribute(s)
        case .url(let path): HTMLEscaping.attribute(HTMLEscaping.relativeURL(path))
        case .number(let n): Format.decimal(n, places: 4)
        case .html(let h): h.markup
        }
    }
}
