import PushMediaModel

// The faces found in the source, drawn as boxes on the large thumbnail of the compare row.
extension PreviewRenderer {
    /// The thumbnail file with the item's faces drawn on it (the plain thumbnail when none shows
    /// on it), and the caption's note on the faces.
    func thumbnailWithFaces(_ item: Item, _ thumbnail: Attachment, prefix: String) -> (HTML, String) {
        let boxes = faceBoxes(item.probe?.faces ?? [], on: thumbnail)
        let found = item.probe?.faces?.count ?? 0
        let caption = found == 0 ? "" : " · \(found) face\(found == 1 ? "" : "s") found, \(boxes.count) shown"
        guard !boxes.isEmpty else { return (thumbImage(thumbnail, prefix: prefix), caption) }
        return (
            PreviewTemplate.thumbFaces.fill([
                "count": .number(Double(boxes.count)), "src": .url(prefix + thumbnail.file),
                "alt": .attribute("\(thumbnail.role.rawValue) \(thumbnail.file)"), "boxes": .html(HTML.joined(boxes)),
            ]), caption
        )
    }

    /// The faces (unit rects of the source) that show on `thumbnail`, as boxes over it: placed
    /// through the thumbnail's `sourceRect` and clipped to it.
    func faceBoxes(_ faces: [UnitRect], on thumbnail: Attachment) -> [HTML] {
        guard let crop = thumbnail.sourceRect, crop.width > 0, crop.height > 0 else { return [] }
        return faces.compactMap { face in
            let left = max(0, (face.x - crop.x) / crop.width)
            let top = max(0, (face.y - crop.y) / crop.height)
            let right = min(1, (face.maxX - crop.x) / crop.width)
            let bottom = min(1, (face.maxY - crop.y) / crop.height)
            guard right > left, bottom > top else { return nil }
            return PreviewTemplate.faceBox.fill([
                "x": .number(face.x), "y": .number(face.y), "w": .number(face.width), "h": .number(face.height),
                "leftPercent": .number(left * 100), "topPercent": .number(top * 100),
                "widthPercent": .number((right - left) * 100), "heightPercent": .number((bottom - top) * 100),
            ])
        }
    }
}
