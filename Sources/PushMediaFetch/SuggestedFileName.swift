import Foundation

/// Derives a safe file name for a downloaded source from its URL path (and content type).
public enum SuggestedFileName {
    /// The last path component of `url`, percent-decoded and made safe
    /// (no path separators, control characters or leading dots; at most 200 bytes).
    /// Falls back to `download` plus an extension guessed from `contentType`.
    public static func make(for url: URL, contentType: String? = nil) -> String {
        let raw = url.path.split(separator: "/").last.map(String.init) ?? ""
        let decoded = raw.removingPercentEncoding ?? raw
        var name = String(
            decoded.unicodeScalars.filter {
                !CharacterSet.controlCharacters.contains($0) && $0 != "/" && $0 != "\\" && $0 != ":"
            }.map(Character.init))
        while name.hasPrefix(".") { name.removeFirst() }
        name = name.trimmingCharacters(in: .whitespaces)
        while name.utf8.count > 200 { name.removeFirst() }
        if name.isEmpty {
            name = "download" + (fileExtension(for: contentType).map { ".\($0)" } ?? "")
        }
        return name
    }

    /// A file extension for common media content types (`image/jpeg` → `jpg`), or `nil`.
    public static func fileExtension(for contentType: String?) -> String? {
        guard
            let type = contentType?.split(separator: ";").first?
                .trimmingCharacters(in: .whitespaces).lowercased()
        else { return nil }
        let known: [String: String] = [
            "image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/webp": "webp",
            "image/heic": "heic", "image/heif": "heif", "image/avif": "avif",
            "video/mp4": "mp4", "video/quicktime": "mov", "video/webm": "webm",
            "audio/mpeg": "mp3", "audio/mp4": "m4a", "audio/aac": "aac", "audio/wav": "wav",
        ]
        return known[type]
    }
}
