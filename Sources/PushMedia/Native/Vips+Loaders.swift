import CPushMediaShims
import CVips
import Foundation

extension Vips {
    /// The libvips loader for each image format PushMedia accepts. Images are only ever opened
    /// through one of these, picked from the sniffed bytes; libvips never guesses the format
    /// (and every other loader is blocked at start-up, see `pm_vips_block_loaders`).
    enum Loader: Equatable {
        case jpeg, png, gif, webp, heif, tiff

        /// The loader for `format`, or nil when it is not an image format.
        init?(_ format: MediaFormat) {
            switch format {
            case .jpeg: self = .jpeg
            case .png: self = .png
            case .gif: self = .gif
            case .webp: self = .webp
            case .heif, .avif: self = .heif
            case .tiff: self = .tiff
            case .mp4, .quicktime, .matroska, .avi, .mpegProgramStream, .mpegTransportStream,
                .mp3, .m4a, .wav, .aiff, .ogg, .flac, .aac:
                return nil
            }
        }

        var value: pm_image_loader {
            switch self {
            case .jpeg: PM_LOADER_JPEG
            case .png: PM_LOADER_PNG
            case .gif: PM_LOADER_GIF
            case .webp: PM_LOADER_WEBP
            case .heif: PM_LOADER_HEIF
            case .tiff: PM_LOADER_TIFF
            }
        }

        /// Whether the loader decodes at a reduced size itself (JPEG's DCT scaling, WebP's scale).
        var shrinksOnLoad: Bool { self == .jpeg || self == .webp }

        /// The shrink-on-load factor for a decode of `source` (as stored) that must still cover
        /// `target` (upright) once `swapsAxes` (EXIF orientation 5…8) is applied: for JPEG the
        /// largest of 1, 2, 4 or 8 whose decode (libjpeg rounds sizes up) still covers the target,
        /// the smallest useful scale, as Pillow's draft mode and `djpeg -scale` decode
        /// (`vips_thumbnail` would stay a factor of two above the target: a 12 MP photo decoded at
        /// full size, for 0.04–0.18 dB after the JPEG encode, docs/benchmarks/still-images.md); for WebP the whole
        /// shrink (libwebp's scaler filters), never below 1. Pure.
        func shrinkFactor(source: PixelSize, target: PixelSize, swapsAxes: Bool) -> Double {
            guard shrinksOnLoad, target.width > 0, target.height > 0 else { return 1 }
            let wanted = swapsAxes ? PixelSize(width: target.height, height: target.width) : target
            guard self == .jpeg else {
                return max(1, min(Double(source.width) / Double(wanted.width), Double(source.height) / Double(wanted.height)))
            }
            // libjpeg rounds a scaled size up; libvips 8.14's jpegload makes an image it cannot
            // build (an assertion that aborts the process) when the factor exceeds a side, as
            // 8 does a 1×1 JPEG: no factor larger than the shorter side.
            let covering = [8, 4, 2].first { factor in
                factor <= min(source.width, source.height)
                    && (source.width + factor - 1) / factor >= wanted.width && (source.height + factor - 1) / factor >= wanted.height
            }
            return Double(covering ?? 1)
        }
    }

    /// What ``start()`` first does to the environment (VIPSHOME, unless set, points at a prefix
    /// without modules), for a caller to do on its main thread before other threads run.
    static func setEnvironment() {
        pm_vips_set_environment()
    }

    /// Opens libvips' HEIF module, once per process, when PushMedia loads it itself (the HEIF
    /// loaders also do this on their first call): a process that meets no HEIF or AVIF file never
    /// maps libheif and its codecs.
    static func loadHEIFModule() {
        pm_vips_load_heif()
    }

    /// Whether libvips refuses to run the operation named `nickname` (e.g. `svgload_buffer`):
    /// true for every loader but PushMedia's, once ``start()`` has run; nil for unknown names.
    static func isBlocked(_ nickname: String) -> Bool? {
        switch pm_vips_operation_blocked(nickname) {
        case 1: true
        case 0: false
        default: nil
        }
    }

    /// A file that is none of the image formats PushMedia loads.
    static func notAnImage(_ operation: String) -> Error {
        Error(operation: operation, message: "not a JPEG, PNG, GIF, WebP, HEIF/AVIF or TIFF image")
    }
}

extension Vips.Image {
    /// Opens an image from a source with the loader for the source's sniffed format, reading only
    /// its header (pixels are decoded lazily). `allPages`: every frame of a GIF or WebP; TIFF and
    /// HEIF give their first (primary) image only. `shrink`: the loader's shrink-on-load (JPEG:
    /// 1, 2, 4 or 8; WebP: any), 1 for the stored size.
    static func header(from source: Vips.Source, failOn: Vips.FailOn = .truncated, allPages: Bool = false, shrink: Double = 1)
        throws -> Vips.Image
    {
        try load(source, failOn: failOn, allPages: allPages, shrink: shrink)
    }

    private static func load(_ source: Vips.Source, failOn: Vips.FailOn, allPages: Bool, shrink: Double) throws -> Vips.Image {
        guard let format = source.format, let loader = Vips.Loader(format) else { throw Vips.notAnImage("load") }
        guard let image = pm_load_source(source.pointer, loader.value, failOn.rawValue, allPages ? -1 : 1, shrink)
        else {
            throw Vips.Error(operation: "load \(format.rawValue)", message: Vips.takeError())
        }
        return Vips.Image(owning: image)
    }

    /// Decodes an encoded image held in memory (cover art, re-reading outputs) with the loader for
    /// its sniffed format. Starts libvips if nothing has yet (its operations looked up before
    /// `vips_init` abort the process when another thread is starting it).
    static func decode(_ data: Data) throws -> Vips.Image {
        try Vips.start()
        guard let format = MediaSniffer.detect(data.prefix(MediaSniffer.headerLength)), let loader = Vips.Loader(format) else {
            throw Vips.notAnImage("load_buffer")
        }
        let image: UnsafeMutablePointer<VipsImage>? = data.withUnsafeBytes { raw in
            // vips keeps a pointer to the buffer for lazy decoding: copy it into memory vips owns.
            guard let copy = g_memdup2(raw.baseAddress, gsize(raw.count)) else { return nil }
            let image = pm_load_buffer(copy, raw.count, loader.value)
            if let image {
                // Free the copy when the image goes.
                g_signal_connect_data(
                    image, "close", unsafeBitCast(freeBufferCallback, to: GCallback.self), copy, nil,
                    GConnectFlags(rawValue: 0))
            } else {
                g_free(copy)
            }
            return image
        }
        guard let image else { throw Vips.Error(operation: "load_buffer", message: Vips.takeError()) }
        return Vips.Image(owning: image)
    }

    /// Shrink-on-load decode to fit `width`×`height` (never larger than the source), upright
    /// (EXIF orientation applied) and colour-managed to sRGB, through the loader for the source's
    /// sniffed format (JPEG and WebP decode at a reduced size when the target allows).
    /// With `allPages`, every frame of an animation is decoded and resized (frames stacked
    /// vertically, `page-height` set).
    /// `colourManaged`: transform through the embedded ICC profile (or libvips' CMYK one) to sRGB;
    /// untagged images are taken as sRGB already.
    static func thumbnail(
        from source: Vips.Source, width: Int, height: Int, allPages: Bool = false, failOn: Vips.FailOn = .truncated,
        colourManaged: Bool = true
    ) throws -> Vips.Image {
        try shrunkOnLoad(source, width: width, height: height, allPages: allPages, failOn: failOn).image
            .thumbnailImage(width: width, height: height, colourManaged: colourManaged)
    }

    /// ``thumbnail(from:width:height:allPages:failOn:colourManaged:)`` of every frame of a GIF,
    /// decoded by PushMedia's own GIF decoder (``gifFrames(path:)``) instead of libvips' loader;
    /// nil for a file that decoder leaves to libvips.
    static func gifThumbnail(path: String, width: Int, height: Int, colourManaged: Bool) throws -> Vips.Image? {
        try gifFrames(path: path)?.gifFitted(width: width, height: height, colourManaged: colourManaged)
    }

    /// Every frame of a GIF as PushMedia's own GIF decoder draws it (``GIFFile/frames()``:
    /// libvips' pixels, each frame costing only its own rectangle), stacked; nil for a file that
    /// decoder leaves to libvips (a frame outside the picture, a malformed or truncated block).
    static func gifFrames(path: String) throws -> Vips.Image? {
        try GIFFile.open(path: path)?.frames()
    }

    /// These decoded GIF frames fitted inside width × height and colour-managed, as
    /// `vips_thumbnail_image` does; this very image when there is nothing to do (it reads its
    /// input sequentially: every frame, whatever is asked).
    func gifFitted(width: Int, height: Int, colourManaged: Bool) throws -> Vips.Image {
        if self.width <= width && pageHeight <= height && !colourManaged { return self }
        return try thumbnailImage(width: width, height: height, colourManaged: colourManaged)
    }

    /// `vips_thumbnail_image` of an image opened by ``shrunkOnLoad(_:width:height:allPages:failOn:)``.
    private func thumbnailImage(width: Int, height: Int, colourManaged: Bool) throws -> Vips.Image {
        try Vips.call("thumbnail") { pm_thumbnail_image(pointer, $0, Int32(width), Int32(height), colourManaged ? 1 : 0) }
    }

    /// ``thumbnail(from:width:height:allPages:failOn:colourManaged:)`` of a still, computed into
    /// memory (libvips reads the source sequentially; a JPEG it only opens, and libjpeg reads the
    /// file through its descriptor); the decode stops at `deadline`. The common
    /// photo (8-bit sRGB or grey, no alpha, nothing to colour-manage) is resized in two passes:
    /// down while the file is decoded, then across: a JPEG by libjpeg itself, each row reduced
    /// down and across as it comes (``jpegReduced(from:like:shrink:to:until:vectorized:)``);
    /// other formats by libvips' vertical reduce, then ``reducedWidth(to:)`` in memory, where
    /// `vips_thumbnail_image` would spend most of its time in libvips' scalar reduceh.
    static func still(
        from source: Vips.Source, width: Int, height: Int, colourManaged: Bool, until deadline: ContinuousClock.Instant
    ) throws -> Vips.Image {
        let (image, shrink) = try shrunkOnLoad(source, width: width, height: height, allPages: false, failOn: .truncated)
        return try still(
            image, width: width, height: height, colourManaged: colourManaged, until: deadline,
            jpeg: source.format == .jpeg ? { try jpegReduced(from: source, like: image, shrink: Int(shrink), to: $0, until: deadline) } : nil)
    }

    /// ``still(from:width:height:colourManaged:until:)`` of an image already opened (lazily),
    /// such as the one frame of a GIF from PushMedia's decoder (``GIFFile/frames()``).
    static func still(
        decoded image: Vips.Image, width: Int, height: Int, colourManaged: Bool, until deadline: ContinuousClock.Instant
    ) throws -> Vips.Image {
        try still(image, width: width, height: height, colourManaged: colourManaged, until: deadline, jpeg: nil)
    }

    private static func still(
        _ image: Vips.Image, width: Int, height: Int, colourManaged: Bool, until deadline: ContinuousClock.Instant,
        jpeg: ((PixelSize) throws -> Vips.Image?)?
    ) throws -> Vips.Image {
        guard image.isPlain8BitSRGBOrGrey && !colourManaged else {
            let thumbnail = try image.thumbnailImage(width: width, height: height, colourManaged: colourManaged)
            thumbnail.stopEvaluation(at: deadline)
            return try thumbnail.copyMemory()
        }
        let orientation = image.int(field: "orientation") ?? 1
        let size = ImagePlan.fitted(
            PixelSize(width: image.width, height: image.height),
            inside: (5...8).contains(orientation) ? PixelSize(width: height, height: width) : PixelSize(width: width, height: height))
        let result = try jpeg?(size) ?? image.reduced(to: size, until: deadline)
        return orientation == 1 ? result : try result.autorotated().copyMemory()
    }

    /// Opened with the loader's shrink-on-load for a decode that still covers `width`×`height`
    /// (upright), pixels not yet decoded, and the shrink it was opened with.
    private static func shrunkOnLoad(
        _ source: Vips.Source, width: Int, height: Int, allPages: Bool, failOn: Vips.FailOn
    ) throws -> (image: Vips.Image, shrink: Double) {
        guard let format = source.format, let loader = Vips.Loader(format) else { throw Vips.notAnImage("thumbnail") }
        let image = try load(source, failOn: failOn, allPages: allPages, shrink: 1)
        let stored = PixelSize(width: image.width, height: image.pageHeight > 0 ? image.pageHeight : image.height)
        let orientation = image.int(field: "orientation") ?? 1
        let shrink = loader.shrinkFactor(
            source: stored, target: PixelSize(width: width, height: height), swapsAxes: (5...8).contains(orientation))
        return (shrink > 1 ? try load(source, failOn: failOn, allPages: allPages, shrink: shrink) : image, shrink)
    }
}

private let freeBufferCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = {
    _, data in g_free(data)
}
