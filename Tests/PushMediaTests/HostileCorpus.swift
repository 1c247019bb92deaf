import Foundation
import Glibc

/// Crafted inputs that try to make FFmpeg or libvips reach past the file: playlists and concat
/// lists under media names (bare and behind an ID3 tag), a file claiming MP3 that is not, an AVI
/// carrying a playlist, SVG and PDF named `.jpg`, a PhotoCD-like image. Each is written by the
/// test, and each names the item code it must fail with.
enum HostileCorpus {
    struct Entry {
        var name: String
        var code: String
    }

    /// An ID3v2.4 tag with no frames (10 bytes).
    static let id3: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0]

    /// Writes the corpus into `folder`. Playlists point at `http://127.0.0.1:<port>/` and at the
    /// files in `secrets` (which must never be opened).
    static func write(into folder: URL, port: UInt16, secrets: URL) throws -> [Entry] {
        let secretMedia = secrets.appendingPathComponent("secret.mp4").path
        let secretText = secrets.appendingPathComponent("secret.txt").path
        let playlist = """
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXT-X-MEDIA-SEQUENCE:0
            #EXTINF:10.0,
            http://127.0.0.1:\(port)/segment0.ts
            #EXTINF:10.0,
            file://\(secretMedia)
            #EXTINF:10.0,
            \(secretText)
            #EXT-X-ENDLIST

            """
        let concat = """
            ffconcat version 1.0
            file 'file:\(secretMedia)'
            file 'http://127.0.0.1:\(port)/clip.mp4'
            file '\(secretText)'

            """
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"400\" height=\"400\"><image href=\"file://\(secretText)\"/></svg>\n"
        let pdf =
            "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
        // RIFF/AVI header, then the playlist where the chunks should be.
        let riffBody = Array("AVI LIST".utf8) + [0, 0, 0, 0] + Array(playlist.utf8)
        let avi = Array("RIFF".utf8) + littleEndian32(UInt32(riffBody.count)) + riffBody
        // Kodak PhotoCD: 2 KB of ff, then its signature; FFmpeg's image2/photocd would take it.
        let photoCD = [UInt8](repeating: 0xFF, count: 2048) + Array("PCD_IPI".utf8) + [UInt8](repeating: 0x80, count: 6000)
        // One MPEG audio frame header, then text: no second frame where the first one ends.
        let oneFrame = [0xFF, 0xFB, 0x90, 0x64] + Array(String(repeating: "not audio at all. ", count: 100).utf8)

        let files: [(String, [UInt8], String)] = [
            ("playlist.mp4", Array(playlist.utf8), "unsupported_type"),
            ("playlist.mp3", id3 + Array(playlist.utf8), "unsupported_type"),
            ("concat.mov", Array(concat.utf8), "unsupported_type"),
            ("concat.mp3", id3 + Array(concat.utf8), "unsupported_type"),
            ("claims-mp3.mp3", oneFrame, "unsupported_type"),
            ("playlist.avi", avi, "no_media_stream"),
            ("drawing.jpg", Array(svg.utf8), "unsupported_type"),
            ("document.jpg", Array(pdf.utf8), "unsupported_type"),
            ("photocd.mp3", photoCD, "unsupported_type"),
        ]
        for (name, bytes, _) in files {
            try Data(bytes).write(to: folder.appendingPathComponent(name))
        }
        return files.map { Entry(name: $0.0, code: $0.2) }
    }

    /// Folders for a run: `input` (empty), `secrets` (holding the files the playlists name, which
    /// must never be opened) and `out`.
    struct Workspace {
        var input: URL
        var secrets: URL
        var out: URL

        init(_ name: String = #function) throws {
            let folder = try Fixtures.temporaryFolder(name)
            input = folder.appendingPathComponent("in")
            secrets = folder.appendingPathComponent("secrets")
            out = folder.appendingPathComponent("out")
            for url in [input, secrets] { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
            try FileManager.default.copyItem(
                at: Fixtures.url("video/black-start.mp4"), to: secrets.appendingPathComponent("secret.mp4"))
            try Data("secret\n".utf8).write(to: secrets.appendingPathComponent("secret.txt"))
        }
    }

    static func littleEndian32(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8((value >> (8 * UInt32($0))) & 0xFF) }
    }
}

/// A TCP listener on 127.0.0.1 that accepts nothing until asked how many connections came in.
final class LoopbackListener {
    let descriptor: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, listen(fd, 64) == 0, named == 0 else {
            close(fd)
            throw Failure("bind/listen: \(errno)")
        }
        _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        descriptor = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }

    /// Connections made since the last call (a connection stays queued even after its client
    /// closed it).
    func takeConnections() -> Int {
        var count = 0
        while true {
            let connection = accept(descriptor, nil, nil)
            guard connection >= 0 else { return count }
            close(connection)
            count += 1
        }
    }

    /// Connects once, as a client would (the listener's own check).
    func connectOnce() throws {
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure("connect: \(errno)") }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// Counts opens and reads of the files in one folder (inotify), to prove nothing reached them.
final class FolderAccessWatch {
    private let descriptor: Int32

    init(_ folder: URL) throws {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0, inotify_add_watch(descriptor, folder.path, UInt32(IN_OPEN | IN_ACCESS)) >= 0 else {
            throw LoopbackListener.Failure("inotify: \(errno)")
        }
    }

    deinit { close(descriptor) }

    /// Opens and reads seen since the last call.
    func takeEvents() -> Int {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var events = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return events }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let length = buffer.withUnsafeBytes {
                    $0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self).len
                }
                events += 1
                offset += MemoryLayout<inotify_event>.size + Int(length)
            }
        }
    }
}
