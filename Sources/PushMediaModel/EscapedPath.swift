/// How an item's ``Item/source`` is written when the file's name is not valid UTF-8.
public enum SourceEncoding: String, Codable, Sendable, Hashable {
    /// Every byte that is not part of valid UTF-8 is written `%XX` (two uppercase hex digits),
    /// and so is every `%` (`%25`); everything else is the UTF-8 text itself. Decode by turning
    /// each `%XX` back into its byte.
    case percent
}

/// A path as the file system's bytes, written as text. Linux names files with bytes, not text: a
/// name written in Latin-1 (`café.jpg` as `63 61 66 E9 2E 6A 70 67`) is no valid UTF-8, so no
/// Swift `String` (nor JSON string) holds it as it is. A path that is valid UTF-8 is its own
/// text, unchanged (``encoding`` nil); one that is not is percent-escaped (``SourceEncoding/percent``):
/// `caf%E9.jpg`. Lossless both ways: ``bytes`` gives back exactly the bytes it was made from.
///
/// The text alone does not say which: `caf%E9.jpg` may also be a file named so in UTF-8. So
/// the encoding travels with the text: as `sourceEncoding` next to `source` in the manifest and
/// the events, and as a prefix in the queue's job source (``jobSource``), which is one string.
public struct EscapedPath: Sendable, Hashable, CustomStringConvertible {
    /// The path as text: the path itself when it is valid UTF-8, else its percent-escaped form.
    public var text: String
    /// Nil when ``text`` is the path itself; ``SourceEncoding/percent`` when it is escaped.
    public var encoding: SourceEncoding?

    public init(text: String, encoding: SourceEncoding? = nil) {
        self.text = text
        self.encoding = encoding
    }

    /// The text of `bytes`: themselves when they are valid UTF-8, else percent-escaped.
    public init<Bytes: Collection<UInt8>>(bytes: Bytes) {
        if let text = Self.utf8Text(bytes) {
            self.init(text: text)
        } else {
            self.init(text: Self.percentEscaped(bytes), encoding: .percent)
        }
    }

    /// The path's bytes; nil when an escaped text holds a `%` that is not followed by two hex
    /// digits (no escape made it).
    public var bytes: [UInt8]? {
        switch encoding {
        case nil: Array(text.utf8)
        case .percent: Self.percentDecoded(text)
        }
    }

    public var description: String { text }

    /// Whether the path is valid UTF-8 (its text is the path itself).
    public var isUTF8: Bool { encoding == nil }

    /// `self` + `/` + `other` (`other` alone when `self` is empty), escaped as a whole: a folder
    /// named in UTF-8 with a file that is not makes an escaped path, its `%` escaped too.
    /// Nil when either cannot be decoded.
    public func appending(_ other: EscapedPath) -> EscapedPath? {
        guard let head = bytes, let tail = other.bytes else { return nil }
        if head.isEmpty { return EscapedPath(bytes: tail) }
        return EscapedPath(bytes: head + [UInt8(ascii: "/")] + tail)
    }

    // MARK: - The queue's job source

    /// What marks an escaped path in a queue's job source, before its text. A relative path that
    /// a folder walk or `enqueue` makes never holds `//` (nor does a normalised absolute one),
    /// so no file's own name reads as this prefix.
    public static let jobSourcePrefix = "percent://"

    /// The path as one string that says how it is written, for the queue's job source (the
    /// job's identity): the text itself when the path is UTF-8, else ``jobSourcePrefix`` + the
    /// escaped text. A UTF-8 file named `caf%E9.jpg` and a Latin-1 `café.jpg` stay two jobs.
    public var jobSource: String {
        switch encoding {
        case nil: text
        case .percent: Self.jobSourcePrefix + text
        }
    }

    /// Reads a queue's job source back (``jobSource``); any other string (a UTF-8 path, a URL)
    /// is its own text.
    public init(jobSource: String) {
        // By bytes: `hasPrefix` compares characters, and an escaped text that begins with a
        // combining mark (U+0301) makes one character of it and the prefix's last `/`.
        let prefix = Self.jobSourcePrefix.utf8
        if jobSource.utf8.starts(with: prefix) {
            self.init(text: String(decoding: jobSource.utf8.dropFirst(prefix.count), as: UTF8.self), encoding: .percent)
        } else {
            self.init(text: jobSource)
        }
    }

    // MARK: - The escape

    /// `bytes` as a string when they are valid UTF-8 (Unicode's well-formed sequences, Table 3-7:
    /// no overlong forms, surrogates or values past U+10FFFF), else nil.
    static func utf8Text<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String? {
        let array = Array(bytes)
        var index = 0
        while index < array.count {
            guard let length = wellFormedLength(array, at: index) else { return nil }
            index += length
        }
        return String(decoding: array, as: UTF8.self)
    }

    /// Every byte outside a well-formed UTF-8 sequence as `%XX`, every `%` as `%25`, the rest as is.
    static func percentEscaped<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        let array = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity(array.count + 8)
        var index = 0
        while index < array.count {
            if let length = wellFormedLength(array, at: index) {
                if array[index] == UInt8(ascii: "%") {
                    out += Array("%25".utf8)
                } else {
                    out += array[index..<index + length]
                }
                index += length
            } else {
                out += [UInt8(ascii: "%"), hexDigit(array[index] >> 4), hexDigit(array[index] & 0xF)]
                index += 1
            }
        }
        // Only well-formed sequences and ASCII were written: valid UTF-8.
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of a percent-escaped text: each `%XX` (hex, either case) one byte, the rest its
    /// UTF-8. Nil when a `%` is not followed by two hex digits.
    static func percentDecoded(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%") {
                guard index + 2 < utf8.count, let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2])
                else { return nil }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(utf8[index])
                index += 1
            }
        }
        return out
    }

    /// The length of the well-formed UTF-8 sequence at `index`, or nil when the byte there does
    /// not begin one (Unicode 15, Table 3-7).
    private static func wellFormedLength(_ bytes: [UInt8], at index: Int) -> Int? {
        let first = bytes[index]
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            index + offset < bytes.count && range.contains(bytes[index + offset])
        }
        switch first {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return continuation(1) ? 2 : nil
        case 0xE0: return continuation(1, 0xA0...0xBF) && continuation(2) ? 3 : nil
        case 0xE1...0xEC, 0xEE...0xEF: return continuation(1) && continuation(2) ? 3 : nil
        case 0xED: return continuation(1, 0x80...0x9F) && continuation(2) ? 3 : nil
        case 0xF0: return continuation(1, 0x90...0xBF) && continuation(2) && continuation(3) ? 4 : nil
        case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : nil
        case 0xF4: return continuation(1, 0x80...0x8F) && continuation(2) && continuation(3) ? 4 : nil
        default: return nil
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
