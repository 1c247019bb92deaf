import Foundation
import PushMediaModel

/// Builders for manifests in the tests.
enum Sample {
    static func image(
        _ source: String, thumbFile: String = "aaaa-thumb.jpg", expandedFile: String = "bbbb-expanded.jpg",
        thumbBytes: Int = 12_000, expandedBytes: Int = 60_000, ext: String = "jpg",
        rect: UnitRect? = UnitRect(x: 0.5, y: 0, width: 0.5, height: 1), warnings: [String] = []
    ) -> Item {
        let type = AttachmentType.forExtension(ext) ?? .jpeg
        return Item(
            source: source, sourceSHA256: String(repeating: "0", count: 64), sourceBytes: 120_000,
            kind: .image, status: .ok,
            probe: Probe(format: "jpeg", mimeType: "image/jpeg", width: 1600, height: 1000, frames: 1),
            attachments: [
                PushMediaModel.Attachment(
                    identifier: "thumbnail", role: .thumbnail, file: thumbFile, typeHint: type.typeHint,
                    fileExtension: ext, mimeType: type.mimeType, bytes: thumbBytes,
                    sha256: String(repeating: "a", count: 64), width: 300, height: 300,
                    options: .init(thumbnailHidden: false)),
                PushMediaModel.Attachment(
                    identifier: "expanded", role: .expanded, file: expandedFile, typeHint: type.typeHint,
                    fileExtension: ext, mimeType: type.mimeType, bytes: expandedBytes,
                    sha256: String(repeating: "b", count: 64), width: 1200, height: 600,
                    options: .init(thumbnailHidden: false, thumbnailClippingRect: rect)),
            ],
            warnings: warnings)
    }

    static func failed(_ source: String, code: ErrorCode = .corruptInput, message: String = "cannot decode") -> Item {
        .failed(source: source, kind: .image, error: ItemError(code, message))
    }

    static func movie(_ source: String, posterFile: String = "cccc-expanded.jpg", movieFile: String = "dddd-media.mp4", bytes: Int = 2_000_000)
        -> Item
    {
        Item(
            source: source, kind: .video, status: .ok,
            probe: Probe(format: "mp4", width: 1280, height: 720, durationSeconds: 12.5),
            attachments: [
                PushMediaModel.Attachment(
                    identifier: "expanded", role: .expanded, file: posterFile, typeHint: "public.jpeg",
                    fileExtension: "jpg", mimeType: "image/jpeg", bytes: 40_000, sha256: "c", width: 1200,
                    height: 600, options: .init(thumbnailHidden: true)),
                PushMediaModel.Attachment(
                    identifier: "media", role: .media, file: movieFile, typeHint: "public.mpeg-4",
                    fileExtension: "mp4", mimeType: "video/mp4", bytes: bytes, sha256: "d",
                    options: .init(thumbnailHidden: false, thumbnailTime: 2.5)),
            ])
    }

    static func audio(_ source: String, file: String = "eeee-media.wav", bytes: Int = 80_000) -> Item {
        Item(
            source: source, kind: .audio, status: .ok, probe: Probe(format: "wav", durationSeconds: 1),
            attachments: [
                PushMediaModel.Attachment(
                    identifier: "media", role: .media, file: file, typeHint: "com.microsoft.waveform-audio",
                    fileExtension: "wav", mimeType: "audio/wav", bytes: bytes, sha256: "e",
                    options: .init(thumbnailHidden: false))
            ])
    }

    static func manifest(_ items: [Item]) -> Manifest {
        Manifest(
            generator: .init(name: "pushmedia", version: "9.9.9"),
            generatedAt: Date(timeIntervalSince1970: 1_800_000_000), profile: .default, items: items)
    }
}

extension String {
    /// How many times `needle` occurs (non-overlapping).
    func occurrences(of needle: String) -> Int {
        guard !needle.isEmpty else { return 0 }
        var count = 0
        var rest = self[...]
        while let r = rest.range(of: needle) {
            count += 1
            rest = rest[r.upperBound...]
        }
        return count
    }

    /// The text from the first `start` up to the next `end` (exclusive), or "".
    func slice(from start: String, to end: String) -> String {
        guard let a = range(of: start), let b = self[a.upperBound...].range(of: end) else { return "" }
        return String(self[a.lowerBound..<b.lowerBound])
    }

    /// Every value of `attribute="…"` in the markup, in order.
    func attributeValues(_ attribute: String) -> [String] {
        var out: [String] = []
        var rest = self[...]
        let key = " \(attribute)=\""
        while let r = rest.range(of: key) {
            let tail = rest[r.upperBound...]
            guard let close = tail.firstIndex(of: "\"") else { break }
            out.append(String(tail[..<close]))
            rest = tail[close...]
        }
        return out
    }
}
