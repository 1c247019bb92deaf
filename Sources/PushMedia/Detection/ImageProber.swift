import PushMediaModel

/// Header-only image probing, shared by the pipeline and `pushmedia probe`.
/// The header is read by the loader for the format sniffed from the file's own bytes (see
/// ``Vips/Loader``); a file whose bytes no longer match `format` fails. Only GIF and WebP have
/// frames: a multi-page TIFF or HEIF gives its first (primary) image, with a warning.
enum ImageProber {
    static func probe(path: String, format: MediaFormat, warnings: inout [String]) throws -> Probe {
        let header: Vips.Image
        do {
            try Vips.start()
            // HEIF's (and AVIF's) loader lives in a libvips module, opened by the first HEIF file:
            // if it could not be opened (said once on stderr), the file is not corrupt, this host
            // cannot read the format.
            if Vips.Loader(format) == .heif { Vips.loadHEIFModule() }
            if Vips.Loader(format) == .heif, Vips.isBlocked("heifload_source") == nil {
                throw ItemError(
                    .unsupportedType, "\(format.rawValue) images cannot be read here: libvips' HEIF module is not available")
            }
            let source = try Vips.Source(path: path)
            guard source.format == format else {
                throw ItemError(
                    .corruptInput, "the file changed while it was read: it is now \(source.format?.rawValue ?? "unknown"), not \(format.rawValue)")
            }
            header = try Vips.Image.header(from: source, allPages: format.mayHavePages)
        } catch let error as Vips.Error {
            throw ItemError(.corruptInput, "cannot read the \(format.rawValue) header: \(error.message)")
        }
        return try probe(header: header, format: format, warnings: &warnings)
    }

    /// The probe of a GIF PushMedia's decoder took (``GIFFile``), from its scan: what libvips'
    /// loader reports for the same file (`pm_gif_load`'s image carries the same header), without
    /// opening the file again.
    static func probe(gif: GIFFile) throws -> Probe {
        var warnings: [String] = []
        let header: Vips.Image
        do {
            header = try gif.frames()
        } catch let error as Vips.Error {
            throw ItemError(.corruptInput, "cannot read the gif header: \(error.message)")
        }
        return try probe(header: header, format: .gif, warnings: &warnings)
    }

    private static func probe(header: Vips.Image, format: MediaFormat, warnings: inout [String]) throws -> Probe {
        let orientation = header.int(field: "orientation") ?? 1
        let documentPages = header.int(field: "n-pages") ?? 1
        let pages = format.mayHavePages ? documentPages : 1
        if documentPages > 1, !format.mayHavePages {
            warnings.append("the \(format.rawValue) file has \(documentPages) pages; only the first is used")
        }
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
