import Foundation
import PushMediaModel
import Testing

/// A real `process` output: small generated images (JPEGs, an odd-sized PNG) and two tiny
/// movies, processed by the debug `pushmedia` with URLs on a placeholder base that each test
/// moves to its own server.
struct ProcessedCampaign: Sendable {
    static let placeholder = "https://localhost:1/cdn/"
    static let jpegs = [
        "clean.jpg", "type.jpg", "missing.jpg", "denied.jpg", "cut.jpg", "extra.jpg", "swapped.jpg", "downgrade.jpg", "loop.jpg",
        "endless.jpg", "silent.jpg", "unsized.jpg", "deaf.jpg", "wrongname.jpg", "moved.jpg", "br.jpg",
        "garbled.jpg",
    ]
    static let others = ["odd.png", "clean.mp4", "drip.mp4"]

    let out: URL
    /// What `process` printed.
    let output: String
    let items: [Item]

    /// Made once for the suite.
    static let shared = Task { try await make(jpegs: jpegs, others: others) }

    /// Processes the files into `destination` (default: a folder; `s3://…` for a bucket, with
    /// `environment`'s AWS variables and the state folder beside the input).
    static func make(jpegs: [String], others: [String], destination: String? = nil, environment: [String: String]? = nil) async throws
        -> ProcessedCampaign
    {
        let folder = try Support.temporaryFolder("campaign")
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        let ffmpeg = ["ffmpeg", "-hide_banner", "-v", "error", "-y", "-f", "lavfi"]
        try await Support.tool(
            ffmpeg + ["-i", "testsrc2=s=320x240:r=1", "-frames:v", "\(jpegs.count)", "-q:v", "4", input.appendingPathComponent("f%02d.jpg").path],
            in: folder)
        for (index, name) in jpegs.enumerated() {
            try FileManager.default.moveItem(
                at: input.appendingPathComponent(String(format: "f%02d.jpg", index + 1)), to: input.appendingPathComponent(name))
        }
        for (index, name) in others.enumerated() {
            let target = input.appendingPathComponent(name).path
            if name.hasSuffix(".png") {
                try await Support.tool(ffmpeg + ["-i", "testsrc2=s=33x17", "-frames:v", "1", target], in: folder)
            } else {
                let pattern = index % 2 == 0 ? "testsrc2" : "testsrc"
                try await Support.tool(
                    ffmpeg + [
                        "-i", "\(pattern)=s=64x64:r=10", "-t", "1", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart", target,
                    ],
                    in: folder)
            }
        }
        let out = folder.appendingPathComponent("out")
        let state = destination == nil ? [] : ["--state", folder.appendingPathComponent("state").path]
        let run = try await Support.pushmedia(
            [
                "process", input.path, "--out", destination ?? out.path, "--base-url", String(placeholder.dropLast()), "--crop", "centre", "--jobs",
                "2",
            ]
                + state, in: folder, environment: environment)
        guard run.status == 0 else { throw SupportError("process: \(run.status)\n\(run.output)\n\(run.error)") }
        var items: [Item] = []
        if FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.ndjson").path) {
            try Manifest.forEachLine(ofNDJSON: out.appendingPathComponent("manifest.ndjson")) {
                items.append($0)
                return true
            }
        }
        return ProcessedCampaign(out: out, output: run.output, items: items)
    }

    /// The attachment of `source` with `role`.
    func attachment(_ source: String, _ role: ModelAttachment.Role) -> ModelAttachment {
        items.first { $0.source == source }!.attachment(role)!
    }

    /// The NDJSON manifest with every URL on `base`, but those `moved` names ((source, role) →
    /// another base), written into `folder`.
    func manifest(base: String, moved: [String: String] = [:], in folder: URL) throws -> URL {
        try Self.rehost(items, base: base, moved: moved, into: folder.appendingPathComponent("manifest.ndjson"))
    }

    static func rehost(_ items: [Item], base: String, moved: [String: String], into file: URL) throws -> URL {
        var text = ""
        for var item in items {
            for index in item.attachments.indices {
                let attachment = item.attachments[index]
                let to = moved["\(item.source) \(attachment.role.rawValue)"] ?? base
                item.attachments[index].url = attachment.url.map { to + $0.dropFirst(placeholder.count) }
            }
            text += String(decoding: try item.jsonData(), as: UTF8.self) + "\n"
        }
        try Data(text.utf8).write(to: file)
        return file
    }
}
