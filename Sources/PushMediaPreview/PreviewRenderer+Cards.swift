import Foundation
import PushMediaModel

// One item's card: the collapsed and expanded notification, the attachments with their size
// bars, the download estimate and the warnings. The same card on the single page and on the
// pages of a paged preview (PreviewBook).
extension PreviewRenderer {
    // MARK: - One item

    func card(_ item: Item, anchor: String, prefix: String, target: DeliveryTarget) -> HTML {
        let warnings: HTML =
            item.warnings.isEmpty
            ? .empty
            : PreviewTemplate.warnings.fill([
                "items": .html(HTML.joined(item.warnings.map { PreviewTemplate.warning.fill(["text": .text($0)]) }))
            ])
        let seconds = DownloadEstimate.seconds(for: item, bitsPerSecond: target.bitsPerSecond)
        let state = target.state(seconds)
        let download = PreviewTemplate.download.fill([
            "state": .attribute(state),
            "secondsRaw": .number(seconds),
            "link": .text(target.link),
            "bar": .html(
                bar(
                    percent: Format.percent(seconds, of: target.seconds), state: state,
                    label: "\(Format.seconds(seconds)) of \(Format.seconds(target.seconds))")),
        ])
        let sizes: HTML =
            item.attachments.isEmpty
            ? PreviewTemplate.note.fill(["text": "No attachments."])
            : HTML.joined(item.attachments.map { sizeRow($0, prefix: prefix) })
        return PreviewTemplate.item.fill([
            "anchor": .attribute(anchor),
            "sourceAttr": .attribute(item.source),
            "source": .text(item.source),
            "encoding": .html(encodingNote(item.sourceEncoding)),
            "kind": .text(kindLabel(item)),
            "probe": .text(probeLine(item)),
            "collapsed": .html(collapsed(item, prefix: prefix)),
            "compare": .html(compare(item, prefix: prefix)),
            "expanded": .html(expanded(item, prefix: prefix)),
            "android": .html(android(item, prefix: prefix, target: target)),
            "web": .html(web(item, prefix: prefix)),
            "sizes": .html(sizes),
            "download": .html(download),
            "warnings": .html(warnings),
        ])
    }

    /// After a source that is escaped (its name is not valid UTF-8): a note that says so.
    func encodingNote(_ encoding: SourceEncoding?) -> HTML {
        encoding == nil ? .empty : PreviewTemplate.encodedSource.fill([:])
    }

    func kindLabel(_ item: Item) -> String {
        switch item.kind {
        case .image: "image"
        case .animatedImage: "animation"
        case .video: "movie"
        case .audio: "audio"
        case .unknown: "unknown"
        }
    }

    func probeLine(_ item: Item) -> String {
        var parts: [String] = []
        if let probe = item.probe {
            parts.append(probe.format)
            if let w = probe.width, let h = probe.height { parts.append("\(w)×\(h)") }
            if let frames = probe.frames, frames > 1 { parts.append("\(frames) frames") }
            if let d = probe.durationSeconds { parts.append(Format.seconds(d)) }
        }
        if let bytes = item.sourceBytes { parts.append("source \(Format.bytes(bytes))") }
        return parts.joined(separator: " · ")
    }

    // MARK: Collapsed

    /// The banners: the thumbnail file, and the thumbnail iOS cuts from the expanded image.
    func collapsed(_ item: Item, prefix: String) -> HTML {
        var banners: [HTML] = []
        if let thumbnail = item.attachment(.thumbnail) {
            banners.append(
                banner(
                    thumb: thumbImage(thumbnail, prefix: prefix),
                    caption: "Thumbnail file · \(dimensions(thumbnail))"))
        }
        if let expanded = item.attachment(.expanded) {
            var caption: String
            let thumb: HTML
            if let rect = expanded.options.thumbnailClippingRect, let clip = thumbClip(expanded, rect: rect, prefix: prefix) {
                thumb = clip
                caption = "Expanded image through its clipping rect \(rectText(rect))"
            } else {
                thumb = thumbImage(expanded, prefix: prefix)
                caption = "Expanded image, filled from the centre (no clipping rect)"
            }
            if let frame = expanded.options.thumbnailTime { caption += " · frame \(Format.decimal(frame, places: 2))" }
            if expanded.options.thumbnailHidden { caption += " · thumbnail hidden in the payload" }
            banners.append(banner(thumb: thumb, caption: caption))
        }
        if banners.isEmpty, let media = item.attachment(.media), category(media) == .image {
            banners.append(banner(thumb: thumbImage(media, prefix: prefix), caption: "Media image, filled from the centre"))
        }
        if banners.isEmpty {
            let media = item.attachment(.media)
            let isAudio = media.flatMap(category) == .audio
            var caption = media == nil ? "No image attachment" : "No still image: iOS draws its own"
            if let t = media?.options.thumbnailTime { caption += " (frame at \(Format.seconds(t)))" }
            banners.append(
                banner(
                    thumb: PreviewTemplate.thumbPlaceholder.fill([
                        "label": .attribute(isAudio ? "audio" : "movie"),
                        "glyph": .text(isAudio ? "♪" : "▶"),
                    ]),
                    caption: caption))
        }
        return HTML.joined(banners)
    }

    /// Both square thumbnails large, side by side, when the item has both.
    func compare(_ item: Item, prefix: String) -> HTML {
        guard let thumbnail = item.attachment(.thumbnail), let expanded = item.attachment(.expanded),
            let rect = expanded.options.thumbnailClippingRect,
            let clip = thumbClip(expanded, rect: rect, prefix: prefix)
        else { return .empty }
        let (left, facesCaption) = thumbnailWithFaces(item, thumbnail, prefix: prefix)
        return PreviewTemplate.compare.fill([
            "left": .html(left),
            "leftCaption": .text("thumbnail file \(thumbnail.file)\(facesCaption)"),
            "right": .html(clip),
            "rightCaption": .text("\(expanded.file) clipped to \(rectText(rect))"),
        ])
    }

    func banner(thumb: HTML, caption: String) -> HTML {
        PreviewTemplate.banner.fill([
            "title": .text(title), "body": .text(body), "thumb": .html(thumb), "caption": .text(caption),
        ])
    }

    func thumbImage(_ attachment: Attachment, prefix: String) -> HTML {
        PreviewTemplate.thumbFile.fill([
            "src": .url(prefix + attachment.file), "alt": .attribute("\(attachment.role.rawValue) \(attachment.file)"),
        ])
    }

    func thumbClip(_ expanded: Attachment, rect: UnitRect, prefix: String) -> HTML? {
        guard let geometry = ClipGeometry(rect) else { return nil }
        return PreviewTemplate.thumbClip.fill([
            "x": .number(rect.x), "y": .number(rect.y), "w": .number(rect.width), "h": .number(rect.height),
            "src": .url(prefix + expanded.file),
            "alt": .attribute("\(expanded.file) clipped"),
            "widthPercent": .number(geometry.widthPercent),
            "heightPercent": .number(geometry.heightPercent),
            "leftPercent": .number(geometry.leftPercent),
            "topPercent": .number(geometry.topPercent),
        ])
    }

    func rectText(_ rect: UnitRect) -> String {
        "X \(Format.decimal(rect.x, places: 3)) Y \(Format.decimal(rect.y, places: 3)) "
            + "W \(Format.decimal(rect.width, places: 3)) H \(Format.decimal(rect.height, places: 3))"
    }

    // MARK: Expanded

    func expanded(_ item: Item, prefix: String) -> HTML {
        let mediaFile = item.attachment(.media)
        let mediaCategory = mediaFile.flatMap(category)
        // A `media` attachment that is an image (e.g. a GIF) is shown like the expanded image.
        let still = item.attachment(.expanded) ?? item.attachment(.thumbnail) ?? (mediaCategory == .image ? mediaFile : nil)
        var captionParts: [String] = []
        let media: HTML
        if let file = mediaFile, mediaCategory != .image {
            if mediaCategory == .audio {
                media = PreviewTemplate.mediaAudio.fill([
                    "image": .html(still.map { mediaImage($0, prefix: prefix) } ?? .empty),
                    "src": .url(prefix + file.file),
                ])
                captionParts.append("Audio \(file.fileExtension)")
            } else {
                media = PreviewTemplate.mediaVideo.fill([
                    "src": .url(prefix + file.file),
                    "poster": .html(still.map { PreviewTemplate.posterAttribute.fill(["src": .url(prefix + $0.file)]) } ?? .empty),
                ])
                captionParts.append("Movie \(file.fileExtension)")
                if let d = item.probe?.durationSeconds { captionParts.append(Format.seconds(d)) }
                if let t = file.options.thumbnailTime { captionParts.append("poster frame at \(Format.seconds(t))") }
            }
            if let still { captionParts.append("still: \(still.role.rawValue) \(dimensions(still))") }
        } else if let still {
            media = mediaImage(still, prefix: prefix)
            let animated = still.fileExtension.lowercased() == "gif" || item.kind == .animatedImage
            captionParts.append(animated ? "Animated \(still.fileExtension.uppercased())" : "Image")
            captionParts.append(dimensions(still))
            if let frames = item.probe?.frames, frames > 1 { captionParts.append("\(frames) frames") }
            if animated, let t = still.options.thumbnailTime { captionParts.append("thumbnail frame \(Format.decimal(t, places: 0))") }
        } else {
            media = .empty
            captionParts.append("No attachment to show")
        }
        return PreviewTemplate.longLook.fill([
            "media": .html(media), "title": .text(title), "body": .text(body),
            "caption": .text(captionParts.joined(separator: " · ")),
        ])
    }

    func mediaImage(_ attachment: Attachment, prefix: String) -> HTML {
        PreviewTemplate.mediaImage.fill([
            "src": .url(prefix + attachment.file), "alt": .attribute("\(attachment.role.rawValue) \(attachment.file)"),
        ])
    }

    /// Image, audio or movie, from the extension (or the type hint); nil for types iOS refuses.
    func category(_ attachment: Attachment) -> AttachmentType.Category? {
        (AttachmentType.forExtension(attachment.fileExtension) ?? AttachmentType.forTypeHint(attachment.typeHint))?.category
    }

    func dimensions(_ attachment: Attachment) -> String {
        guard let w = attachment.width, let h = attachment.height else { return attachment.fileExtension }
        return "\(w)×\(h)"
    }

    // MARK: Android

    /// The notification as Android draws it from the item's Android image: collapsed, the large
    /// icon cut from the centre square (Firebase's SDK sets the same bitmap as large icon and big
    /// picture); expanded, the big picture centre-cropped; the download against FCM's 5 s.
    func android(_ item: Item, prefix: String, target: DeliveryTarget) -> HTML {
        let text = PreviewTemplate.androidText.fill(["title": .text(title), "body": .text(body)])
        guard let image = item.attachment(.android) else {
            return PreviewTemplate.androidNone.fill([
                "text": .html(text),
                "caption": .text("No Android image: Android shows the text alone"),
            ])
        }
        let seconds = DownloadEstimate.seconds(bytes: image.bytes, bitsPerSecond: target.bitsPerSecond)
        let limit = DownloadEstimate.fcmImageSeconds
        let over = DownloadEstimate.androidOverBudget(item, bitsPerSecond: target.bitsPerSecond)
        let state = over ? "over" : "ok"
        var collapsed = "Collapsed: large icon, the centre square of \(dimensions(image))"
        switch image.subjectInCentreSquare {
        case true?: collapsed += " · holds the subject"
        case false?: collapsed += " · the subject is outside it"
        case nil: break
        }
        return PreviewTemplate.androidCards.fill([
            "text": .html(text),
            "src": .url(prefix + image.file), "file": .attribute(image.file),
            "collapsedCaption": .text(collapsed),
            "expandedCaption": .text(
                "Expanded: big picture, centre-cropped · \(image.fileExtension.uppercased()) \(dimensions(image)) · \(Format.bytes(image.bytes))"),
            "state": .attribute(state),
            "secondsRaw": .number(seconds),
            "link": .text(target.link),
            "bar": .html(
                bar(
                    percent: Format.percent(seconds, of: limit), state: state,
                    label: "\(Format.seconds(seconds)) of FCM's \(Format.seconds(limit))")),
        ])
    }

    // MARK: Web

    /// The web push notification as Chrome on Windows and Android draws it from the payloads'
    /// web keys (`payload --platforms …,web`): the square thumbnail as the icon beside the text,
    /// the Android image (2:1) below it. Only still JPEGs and PNGs are sent to the web.
    func web(_ item: Item, prefix: String) -> HTML {
        func still(_ role: Attachment.Role) -> Attachment? {
            guard let a = item.attachment(role), [AttachmentType.jpeg.typeHint, AttachmentType.png.typeHint].contains(a.typeHint) else {
                return nil
            }
            return a
        }
        let icon = still(.thumbnail)
        let image = still(.android)
        var parts: [String] = []
        if let icon { parts.append("icon \(dimensions(icon))") }
        if let image { parts.append("image \(dimensions(image)) · \(Format.bytes(image.bytes))") }
        let caption =
            parts.isEmpty
            ? "No still image: Chrome shows the text alone"
            : "Chrome on Windows and Android: " + parts.joined(separator: ", ") + " · Firefox and Safari show no image"
        return PreviewTemplate.webCard.fill([
            "title": .text(title), "body": .text(body),
            "icon": .html(icon.map { PreviewTemplate.webIcon.fill(["src": .url(prefix + $0.file), "file": .attribute($0.file)]) } ?? .empty),
            "image": .html(image.map { PreviewTemplate.webImage.fill(["src": .url(prefix + $0.file), "file": .attribute($0.file)]) } ?? .empty),
            "caption": .text(caption),
        ])
    }

    // MARK: Sizes

    func sizeRow(_ attachment: Attachment, prefix: String) -> HTML {
        let type =
            AttachmentType.forExtension(attachment.fileExtension)
            ?? AttachmentType.forTypeHint(attachment.typeHint)
        var detail = [dimensions(attachment), attachment.mimeType, attachment.typeHint]
        if let url = attachment.url { detail.append(url) }
        var bars: [HTML] = []
        let bytes = Double(attachment.bytes)
        // The budget the encoder had to meet (recorded per attachment), else the one given here.
        if let budget = attachment.budget ?? budgets?[attachment.role], budget > 0 {
            let over = attachment.bytes > budget
            let beyondLimit = type.map { attachment.bytes > $0.maxBytes } ?? true
            bars.append(
                bar(
                    percent: Format.percent(bytes, of: Double(budget)),
                    state: !over ? "ok" : beyondLimit ? "over" : "warn",
                    label: "\(percentText(bytes, of: Double(budget))) of \(Format.bytes(budget)) budget"))
        }
        if let type {
            let limit = type.maxBytes
            bars.append(
                bar(
                    percent: Format.percent(bytes, of: Double(limit)),
                    state: attachment.bytes > limit ? "over" : "ok",
                    label: "\(percentText(bytes, of: Double(limit))) of \(Format.bytes(limit)) \(type.category.rawValue) limit"))
        } else {
            bars.append(bar(percent: 100, state: "over", label: "not a type iOS accepts"))
        }
        return PreviewTemplate.sizeRow.fill([
            "role": .text(attachment.role.rawValue),
            "bytesRaw": .attribute(String(attachment.bytes)),
            "href": .url(prefix + attachment.file),
            "file": .text(attachment.file),
            "detail": .text(detail.joined(separator: " · ")),
            "bars": .html(HTML.joined(bars)),
            "bytes": .text(Format.bytes(attachment.bytes)),
        ])
    }

    func bar(percent: Double, state: String, label: String) -> HTML {
        PreviewTemplate.bar.fill(["state": .attribute(state), "percent": .number(percent), "label": .text(label)])
    }

    func percentText(_ a: Double, of b: Double) -> String {
        let p = a / b * 100
        if p > 0 && p < 0.01 { return "<0.01%" }
        return Format.decimal(p, places: p < 1 ? 2 : p < 10 ? 1 : 0) + "%"
    }
}
