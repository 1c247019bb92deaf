import PushMediaModel

/// Images, still or animated: probe the header, check the limits, decode once, then the
/// variants. Each stage takes the value the one before it made; the item's deadline is checked
/// between stages.
enum ImagePath {
    static func process(_ source: Source, _ run: ItemRun) throws -> [Attachment] {
        let image = try run.stage("probe") { try ProbedImage.probe(source, run) }
        try run.stage("limits") { try run.profile.limits.check(image) }
        let decoded = try run.stage("decode") { try Decoded.decode(image, run) }
        return try variants(of: consume decoded, run)
    }

    /// The thumbnail and the expanded variant of a decoded picture (an image, a movie's poster
    /// frame or audio's cover art), stored as attachments.
    static func variants(of decoded: consuming Decoded, _ run: ItemRun) throws -> [Attachment] {
        let encoded = try encode(consume decoded, run)
        return try run.stage("store") { try encoded.store(run) }
    }

    /// Subject, both crops, encode within budget. The pixels are released when this returns,
    /// before the files are written.
    private static func encode(_ decoded: consuming Decoded, _ run: ItemRun) throws -> Encoded {
        let subject = try run.stage("subject") { try Subject.find(in: decoded, run) }
        let framed = try run.stage("crop") { try Framed.cut(decoded, around: subject, run) }
        return try run.stage("encode") { try Encoded.encode(framed, run) }
    }
}
