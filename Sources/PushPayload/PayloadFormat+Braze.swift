import PushMediaModel

extension PayloadBuilder {
    /// `braze`: an APNs payload with `ab.att {url, type}`, where `type` is the file extension
    /// (Braze's extension sample saves the download under that suffix). One URL, no options.
    static func braze(_ c: FormatContext) throws(PayloadError) -> Payload {
        var json: [String: PayloadJSON] = ["aps": c.aps]
        guard let primary = c.primary else { return c.payload(.braze, json, carries: []) }
        json["ab"] = .object([
            "att": .object(["url": .string(primary.url), "type": .string(primary.fileExtension)])
        ])
        return c.payload(.braze, json, carries: [primary], warnings: droppedOptionsWarning(c, .braze))
    }

    /// A warning when the selection had options the format cannot carry.
    static func droppedOptionsWarning(_ c: FormatContext, _ format: PayloadFormat) -> [String] {
        guard let first = c.selected.first else { return [] }
        var dropped: [String] = []
        if first.clippingRect != nil { dropped.append("clipping rect") }
        if first.thumbnailTime != nil { dropped.append("thumbnail time") }
        guard !dropped.isEmpty else { return [] }
        return ["\(format.rawValue) carries no attachment options: the \(dropped.joined(separator: " and ")) is not sent"]
    }
}
