import PushMediaModel

extension PayloadBuilder {
    /// `adobe`: an APNs payload with Adobe Journey Optimizer's `adb_media` (the URL as a string).
    /// The device infers the type from the URL's extension. One URL, no options.
    static func adobe(_ c: FormatContext) throws(PayloadError) -> Payload {
        var json: [String: PayloadJSON] = ["aps": c.aps]
        guard let primary = c.primary else { return c.payload(.adobe, json, carries: []) }
        json["adb_media"] = .string(primary.url)
        let warnings = droppedOptionsWarning(c, .adobe) + [primary.extensionWarning].compactMap { $0 }
        return c.payload(.adobe, json, carries: [primary], warnings: warnings)
    }
}
