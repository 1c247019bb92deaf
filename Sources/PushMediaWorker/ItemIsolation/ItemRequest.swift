import Foundation
import PushMedia
import PushMediaModel

/// What an item process is asked to do: one file under one profile, its outputs into a folder.
/// The supervisor keeps everything else (the queue, the results cache, storage, the manifest).
/// A path that is not UTF-8 travels escaped (`pathEncoding`), and the item process opens it by
/// its bytes (``OpenedInput``): a descriptor opened here would not be the child's.
struct ItemRequest: Codable, Sendable {
    var path: String
    var pathEncoding: SourceEncoding?
    var source: String
    var sourceEncoding: SourceEncoding?
    var sha256: String?
    var profile: Profile
    var outputDirectory: String
    var layout: OutputLayout
    /// The ledger file the outputs are recorded in (``OutputLedger``), if any.
    var ledger: String?

    init(_ input: InputFile, profile: Profile, outputDirectory: String, layout: OutputLayout, ledger: String? = nil) {
        path = input.path
        pathEncoding = input.pathEncoding
        source = input.source
        sourceEncoding = input.sourceEncoding
        sha256 = input.sha256
        self.profile = profile
        self.outputDirectory = outputDirectory
        self.layout = layout
        self.ledger = ledger
    }

    var input: InputFile {
        InputFile(path: path, source: source, sha256: sha256, pathEncoding: pathEncoding, sourceEncoding: sourceEncoding)
    }
}

/// Length-prefixed frames on a pipe between a supervisor and its item processes: a 4-byte
/// big-endian length, then that many bytes (a JSON ``ItemRequest`` one way, a manifest `Item`
/// the other).
enum ItemFrames {
    /// A frame larger than this is a broken stream, not a message (an item is a few KB).
    static let maxBytes = 16 << 20

    struct BrokenStream: Error, CustomStringConvertible {
        var description: String
    }

    /// Writes one frame, all of it (retrying short writes and EINTR).
    static func write(_ data: Data, to descriptor: Int32) throws {
        var length = UInt32(data.count).bigEndian
        var frame = Data(bytes: &length, count: 4)
        frame.append(data)
        try frame.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw BrokenStream(description: "write: \(String(cString: strerror(errno)))")
                }
                offset += written
            }
        }
    }

    /// Reads one frame; nil at the end of the stream before a frame begins.
    /// - Throws: ``BrokenStream`` when the stream ends inside a frame or a length is absurd.
    static func read(from descriptor: Int32) throws -> Data? {
        guard let header = try readExactly(4, from: descriptor, endAllowed: true) else { return nil }
        let length = header.withUnsafeBytes { Int(UInt32(bigEndian: $0.loadUnaligned(as: UInt32.self))) }
        guard length <= maxBytes else { throw BrokenStream(description: "a frame of \(length) bytes") }
        return try readExactly(length, from: descriptor, endAllowed: false)
    }

    private static func readExactly(_ count: Int, from descriptor: Int32, endAllowed: Bool) throws -> Data? {
        var data = Data(count: count)
        var offset = 0
        while offset < count {
            let got = data.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + offset, count - offset) }
            if got < 0 {
                if errno == EINTR { continue }
                throw BrokenStream(description: "read: \(String(cString: strerror(errno)))")
            }
            if got == 0 {
                if offset == 0 && endAllowed { return nil }
                throw BrokenStream(description: "the stream ended inside a frame (\(offset) of \(count) bytes)")
            }
            offset += got
        }
        return data
    }
}
