import PushMediaModel

extension PayloadBuilder {
    /// `onesignal`: a OneSignal create-notification body (without `app_id` and targeting, which
    /// the campaign adds) with `ios_attachments {id: url}`. The ids are the attachment roles,
    /// which sort in the order the attachments are meant (`expanded`/`media` before
    /// `thumbnail`). OneSignal carries no attachment options. The device receives the
    /// dictionary as `att`.
    static func oneSignal(_ c: FormatContext) throws(PayloadError) -> Payload {
        var json: [String: PayloadJSON] = ["contents": .object(["en": .string(c.text.body ?? c.text.title!)])]
        if let title = c.text.title, c.text.body != nil { json["headings"] = .object(["en": .string(title)]) }
        guard !c.selected.isEmpty else { return c.payload(.onesignal, json, carries: []) }
        var attachments: [String: PayloadJSON] = [:]
        for a in c.selected { attachments[a.role.rawValue] = .string(a.url) }
        json["ios_attachments"] = .object(attachments)
        json["mutable_content"] = .bool(true)
        let carries = c.selected.map(\.withoutOptions).sorted { $0.role.rawValue < $1.role.rawValue }
        var warnings = carries.compactMap(\.extensionWarning)
        if c.selected.count > 1 {
            warnings.append(
                "onesignal carries no ThumbnailHidden flag: iOS shows the first attachment (\(carries[0].role.rawValue)) as the thumbnail too; --mode single saves a download"
            )
        } else {
            warnings += droppedOptionsWarning(c, .onesignal)
        }
        return c.payload(.onesignal, json, carries: carries, warnings: warnings)
    }
}
