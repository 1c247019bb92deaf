#if canImport(UserNotifications) && !os(tvOS)
import Foundation
import UserNotifications

@available(iOS 10.0, macOS 10.14, watchOS 3.0, *)
extension PlannedAttachment {
    /// The options under UserNotifications' own constants.
    public var notificationAttachmentOptions: [AnyHashable: Any] {
        var options: [AnyHashable: Any] = [
            UNNotificationAttachmentOptionsTypeHintKey: type.typeHint,
            UNNotificationAttachmentOptionsThumbnailHiddenKey: self.options.thumbnailHidden,
        ]
        if let rect = self.options.clippingRect {
            // The dictionary form of a CGRect, as CGRectCreateDictionaryRepresentation makes it.
            options[UNNotificationAttachmentOptionsThumbnailClippingRectKey] = rect.dictionary as NSDictionary
        }
        if let time = self.options.thumbnailTime {
            options[UNNotificationAttachmentOptionsThumbnailTimeKey] = time
        }
        return options
    }

    /// Creates the attachment from a downloaded file. The file must carry ``fileExtension``
    /// (``DownloadStep/fileName`` does); iOS moves it into its own store.
    public func notificationAttachment(fileURL: URL) throws -> UNNotificationAttachment {
        try UNNotificationAttachment(identifier: identifier, url: fileURL, options: notificationAttachmentOptions)
    }
}

@available(iOS 10.0, macOS 10.14, watchOS 3.0, *)
extension AttachmentPlan {
    /// The `UNNotificationAttachment`s for the downloads that finished (`files[index]` is the
    /// saved file of attachment `index`), in plan order, after ``delivery(downloaded:)``'s rules.
    /// Empty means: deliver the original content. Files iOS refuses are left out.
    public func notificationAttachments(files: [Int: URL]) -> [UNNotificationAttachment] {
        var sizes: [Int: Int] = [:]
        for (index, url) in files {
            let size = (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
            sizes[index] = size
        }
        guard case .attachments(let chosen) = delivery(downloaded: sizes) else { return [] }
        return chosen.compactMap { planned in
            guard let index = attachments.firstIndex(where: { $0.identifier == planned.identifier }),
                let file = files[index]
            else { return nil }
            return try? planned.notificationAttachment(fileURL: file)
        }
    }
}
#endif
