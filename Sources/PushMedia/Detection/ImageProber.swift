import PushMediaModel

/// Header-only image probing, shared by the pipeline and `pushmedia probe`.
enum ImageProber {
    static func probe(path: String, format: MediaFormat) throws -> Probe {
        let header: Vips.Image
        do {
            try Vips.start()
            header = try Vips.Image.header(from: Vips.Source(path: path), allPages: format.mayHavePages)
        } catch let error as Vips.Error {
            throw ItemError(.corruptInput, "cannot read the \(format.rawValue) header: \(error.message)")
        }
        let orientation = header.int(field: "orientation") ?? 1
        let pages = header.int(field: "n-pages") ?? 1
        let frameHeight = pages > 1 ? header.pageHeight : header.height
        var width = header.width
        var height = frameHeight
        if (5...8).contains(orientation) { swap(&width, &height) }
        guard width > 0, height > 0 else {
            throw ItemError(.corruptInput, "the \(format.rawValue) header gives no size")
        }
        var duration: Double?
        if pages > 1, let delays = header.intArray(field: "delay") {
            duration = Double(delays.prefix(pages).reduce(0, +)) / 1000
        }
        return Probe(
            format: format.rawValue, mimeType: format.mimeType, width: width, height: height,
            orientation: orientation == 1 ? nil : orientation, bands: header.bands,
            bitDepth: header.bitDepth, colourSpace: header.interpretationName,
            hasAlpha: header.hasAlpha, hasICCProfile: header.has(field: "icc-profile-data"),
            frames: pages, durationSeconds: duration)
    }
}
