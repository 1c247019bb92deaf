import Foundation
import PushMediaModel
import PushMediaTesting
import Testing

@testable import PushMedia

/// The escape of paths that are not valid UTF-8 (`EscapedPath`, docs/manifest.md "Names that are
/// not UTF-8") and the folder walk over such names.
@Suite("Names that are not UTF-8")
struct EscapedPathTests {
    /// The bytes of a string, strictly (Swift's `==` on strings compares canonical equivalents).
    static func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test("a path that is valid UTF-8 is its own text, unchanged, % included")
    func validUTF8Unchanged() {
        for name in ["photo.jpg", "100%.jpg", "caf%E9.jpg", "café.jpg", "cafe\u{301}.jpg", "写真/猫.png", "🐈‍⬛.gif", "a b/c\td", ""] {
            let path = EscapedPath(bytes: Self.utf8(name))
            #expect(path.encoding == nil, "\(name)")
            #expect(Self.utf8(path.text) == Self.utf8(name), "\(name)")
            #expect(path.bytes == Self.utf8(name))
            #expect(Self.utf8(path.jobSource) == Self.utf8(name))
        }
    }

    @Test("bytes outside well-formed UTF-8 are %XX, every % is %25, the rest stays text")
    func escapes() {
        let cases: [([UInt8], String)] = [
            ([0x63, 0x61, 0x66, 0xE9, 0x2E, 0x6A, 0x70, 0x67], "caf%E9.jpg"), // Latin-1 café.jpg
            ([0x61, 0x80, 0x62], "a%80b"), // a lone continuation byte
            ([0xFF, 0xFE, 0x2E, 0x6A, 0x70, 0x67], "%FF%FE.jpg"),
            ([0x31, 0x30, 0x30, 0x25, 0xE9], "100%25%E9"), // a % in an escaped path
            ([0xC0, 0xAF], "%C0%AF"), // overlong '/'
            ([0xED, 0xA0, 0x80], "%ED%A0%80"), // a surrogate
            ([0xF4, 0x90, 0x80, 0x80], "%F4%90%80%80"), // past U+10FFFF
            ([0xE2, 0x82, 0x41], "%E2%82A"), // a truncated sequence
            ([0xC3, 0xA9, 0xE9], "é%E9"), // valid UTF-8 stays text next to an escaped byte
            ([0x64, 0xE9, 0x6A, 0xE0, 0x2F, 0x70], "d%E9j%E0/p"),
        ]
        for (bytes, text) in cases {
            let path = EscapedPath(bytes: bytes)
            #expect(path.encoding == .percent, "\(text)")
            #expect(Self.utf8(path.text) == Self.utf8(text))
            #expect(path.bytes == bytes)
            #expect(path.jobSource == "percent://" + text)
        }
    }

    @Test("random byte strings (seeded): escaped exactly when not UTF-8, and decoded back to the same bytes")
    func roundTrip() {
        var random = SeededRandom(seed: 39)
        // Bytes that matter more than their share: '%', '/', hex digits, lead and continuation bytes.
        let interesting: [UInt8] = [0x25, 0x2F, 0x41, 0x46, 0x30, 0x39, 0x66, 0x80, 0xBF, 0xC2, 0xC3, 0xE0, 0xED, 0xF0, 0xF4, 0xFF]
        var escaped = 0
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...24, using: &random)
            var bytes: [UInt8] = []
            while bytes.count < length {
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes.append(interesting.randomElement(using: &random)!)
                case 1: bytes += Array(["é", "€", "𝄞", "%", "%E9", "a"].randomElement(using: &random)!.utf8)
                default: bytes.append(UInt8.random(in: 0...255, using: &random))
                }
            }
            let path = EscapedPath(bytes: bytes)
            // Swift's own validation is the oracle for which byte strings are UTF-8.
            let valid = String(validating: bytes, as: UTF8.self) != nil
            #expect((path.encoding == nil) == valid, "\(bytes)")
            #expect(path.bytes == bytes, "\(bytes) → \(path.text)")
            let again = EscapedPath(jobSource: path.jobSource)
            #expect(again.encoding == path.encoding && Self.utf8(again.text) == Self.utf8(path.text))
            if !valid {
                escaped += 1
                // An escaped text is ASCII where it escapes: every % starts %XX with uppercase hex.
                let text = Self.utf8(path.text)
                for index in text.indices where text[index] == 0x25 {
                    #expect(
                        index + 2 < text.count && text[index + 1...index + 2].allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) })
                }
            }
        }
        #expect(escaped > 10_000, "the generator made too few invalid strings to mean anything")
    }

    @Test("an escaped text with a % that no escape made cannot be decoded")
    func malformedEscapes() {
        for text in ["%", "a%E", "%G0", "%%", "x%zz"] {
            #expect(EscapedPath(text: text, encoding: .percent).bytes == nil, "\(text)")
        }
        #expect(EscapedPath(text: "caf%e9", encoding: .percent).bytes == [0x63, 0x61, 0x66, 0xE9])
        #expect(EscapedPath(jobSource: "https://example.com/a%E9.jpg").encoding == nil)
    }

    @Test("joining a UTF-8 folder with an escaped name escapes the whole, the folder's % too")
    func appending() throws {
        let file = EscapedPath(bytes: [0x63, 0x61, 0x66, 0xE9])
        let joined = try #require(EscapedPath(text: "100%").appending(file))
        #expect(joined.encoding == .percent && joined.text == "100%25/caf%E9")
        #expect(EscapedPath(text: "").appending(file) == file)
        #expect(EscapedPath(text: "a").appending(EscapedPath(text: "b%")) == EscapedPath(text: "a/b%"))
    }

    // MARK: - The folder walk

    @Test("the folder walk lists names that are not UTF-8, in subfolders so named too, escaped and openable")
    func scanning() throws {
        let folder = try Fixtures.temporaryFolder()
        let root = Array(folder.path.utf8) + [0x2F]
        try RawNames.write(Data([1]), to: root + Array("plain.jpg".utf8))
        try RawNames.write(Data([2]), to: root + [0x63, 0x61, 0x66, 0xE9, 0x2E, 0x6A, 0x70, 0x67])
        try RawNames.write(Data([3]), to: root + [0x61, 0x80, 0x2E, 0x6A, 0x70, 0x67])
        try RawNames.write(Data([4]), to: root + [0xFF, 0xFE, 0x2E, 0x6A, 0x70, 0x67])
        try RawNames.write(Data([5]), to: root + Array("caf%E9.jpg".utf8)) // reads like an escape, is UTF-8
        try RawNames.makeFolder(root + [0x64, 0xE9, 0x6A, 0xE0])
        try RawNames.write(Data([6]), to: root + [0x64, 0xE9, 0x6A, 0xE0, 0x2F] + Array("inner.jpg".utf8))
        try RawNames.write(Data([7]), to: root + [0x2E, 0xE9]) // hidden: skipped
        let files = try InputScanner.files(in: folder)
        #expect(files.map(\.source) == ["%FF%FE.jpg", "a%80.jpg", "caf%E9.jpg", "caf%E9.jpg", "d%E9j%E0/inner.jpg", "plain.jpg"])
        #expect(files.map(\.sourceEncoding) == [.percent, .percent, nil, .percent, .percent, nil])
        #expect(Set(files.map(\.jobSource)).count == files.count)
        // Each path decodes to the file's bytes: opened, it holds what was written there.
        var contents: [UInt8] = []
        for file in files {
            #expect(file.pathEncoding == file.sourceEncoding)
            let opened = try OpenedInput(file)
            defer { opened.close() }
            contents += try Data(contentsOf: URL(fileURLWithPath: opened.input.path))
            #expect(opened.input.path.hasPrefix("/proc/self/fd/") == (file.pathEncoding != nil))
            #expect(opened.input.source == file.source && opened.input.sourceEncoding == file.sourceEncoding)
        }
        #expect(contents == [4, 3, 5, 2, 6, 1])
    }

    @Test("an escaped input that is a named pipe, or missing, fails as the same input with a UTF-8 name does")
    func openingFailures() throws {
        let folder = try Fixtures.temporaryFolder()
        let pipe = Array(folder.path.utf8) + [0x2F, 0x70, 0xE9]
        #expect(mkfifo(pipe.map { CChar(bitPattern: $0) } + [0], 0o644) == 0)
        let files = try InputScanner.files(in: folder)
        #expect(files.map(\.source) == ["p%E9"])
        #expect(throws: ItemError.self) { try OpenedInput(files[0]) }
        do {
            _ = try OpenedInput(files[0])
        } catch let error as ItemError {
            #expect(error.code == .unsupportedType && error.message == "p%E9 is not a regular file but a named pipe")
        }
        let gone = InputFile(path: EscapedPath(bytes: Array(folder.path.utf8) + [0x2F, 0xFF]), source: EscapedPath(bytes: [0xFF]))
        do {
            _ = try OpenedInput(gone)
            Issue.record("a missing file was opened")
        } catch let error as ItemError {
            #expect(error.code == .missingInput && error.message == "cannot open %FF: No such file or directory")
        }
    }
}

/// Files and folders named by raw bytes, which Foundation's String paths cannot express.
enum RawNames {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func cPath(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }

    static func write(_ data: Data, to path: [UInt8]) throws {
        let descriptor = open(cPath(path), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Failure(description: "open: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        try data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                guard written > 0 else { throw Failure(description: "write: \(String(cString: strerror(errno)))") }
                offset += written
            }
        }
    }

    static func makeFolder(_ path: [UInt8]) throws {
        guard mkdir(cPath(path), 0o755) == 0 else { throw Failure(description: "mkdir: \(String(cString: strerror(errno)))") }
    }
}
