import PushMediaModel

/// Images, still or animated: probe the header, check the limits, decode once, then the
/// variants. Each stage takes the value the one before it made; the item's deadline is checked
/// between stages.
enum ImagePath {
    static func process(_ source: Source, _ run: ItemRun) throws -> [Attachment] {
        let image = try run.stage("probe") { try ProbedImage.probe(source, run) }
        try run.stage("limits") {
            try run.profile.limits.check(image)
            try AnimationCost.check(image, profile: run.profile)
        }
        let decoded = try run.stage("decode") { try Decoded.decode(image, run) }
        let encoded = try encode(consume decoded, within: DeliveryBudget(profile: run.profile, carriesMedia: false), run)
        return try run.stage("store") { try encoded.store(run) }
    }

    /// Subject, both crops, encode within budget: the variants of an image, a movie's poster
    /// frame or audio's cover art. The pixels are released when this returns, before the files
    /// are written.
    static func encode(_ decoded: consuming Decoded, within delivery: DeliveryBudget, _ run: ItemRun) throws -> Encoded {
        let subject = try run.stage("subject") { try Subject.find(in: decoded, run) }
        let framed = try run.stage("crop") { try Framed.cut(decoded, around: subject, run) }
        return try run.stage("encode") { try Encoded.encode(framed, within: delivery, run) }
    }
}
