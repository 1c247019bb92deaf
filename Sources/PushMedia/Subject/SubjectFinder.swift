import PushMediaModel

/// Pure choice of a representative frame from per-frame detail scores.
enum RepresentativeFrame {
    static func choose(indices: [Int], scores: [Double], share: Double = 0.8) -> Int {
        guard let best = scores.max(), best > 0 else { return indices.first ?? 0 }
        let position = scores.firstIndex { $0 >= best * share } ?? 0
        return indices[position]
    }
}

enum SubjectFinder {
    /// The subject as a unit point of `image`.
    static func find(in image: Vips.Image, strategy: CropStrategy, proxySide: Int) throws -> UnitPoint {
        if strategy == .centre { return UnitPoint(x: 0.5, y: 0.5) }
        let longSide = max(image.width, image.height)
        let proxy =
            longSide > proxySide
            ? try image.resize(horizontal: Double(proxySide) / Double(longSide), vertical: Double(proxySide) / Double(longSide))
            : image
        let width = proxy.width
        let height = proxy.height
        // A region half the proxy's size: its placement says where the interest is.
        let cropWidth = max(1, width / 2)
        let cropHeight = max(1, height / 2)
        switch strategy {
        case .attention:
            let result = try proxy.smartcrop(width: cropWidth, height: cropHeight, interesting: .attention)
            return UnitPoint(
                x: clampUnit((Double(result.attentionX) + 0.5) / Double(width)),
                y: clampUnit((Double(result.attentionY) + 0.5) / Double(height)))
        case .entropy:
            let result = try proxy.smartcrop(width: cropWidth, height: cropHeight, interesting: .entropy)
            let left = -(result.image.int(field: "xoffset") ?? -((width - cropWidth) / 2))
            let top = -(result.image.int(field: "yoffset") ?? -((height - cropHeight) / 2))
            return UnitPoint(
                x: clampUnit((Double(left) + Double(cropWidth) / 2) / Double(width)),
                y: clampUnit((Double(top) + Double(cropHeight) / 2) / Double(height)))
        case .centre:
            return UnitPoint(x: 0.5, y: 0.5)
        }
    }

    private static func clampUnit(_ value: Double) -> Double { min(1, max(0, value)) }
}
