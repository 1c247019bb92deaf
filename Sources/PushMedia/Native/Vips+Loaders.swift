import CVips
import CVipsShims
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

    /// `vips_thumbnail_image` of an image opened by ``header(from:failOn:allPages:shrink:)``:
    /// downsized to fit `width`×`height`, upright, and (`colourManaged`) through its ICC profile
    /// (or libvips' CMYK one) to sRGB; every frame of an animation.
    func thumbnailImage(width: Int, height: Int, colourManaged: Bool) throws -> Vips.Image {
        try Vips.call("thumbnail") { pm_thumbnail_image(pointer, $0, Int32(width), Int32(height), colourManaged ? 1 : 0) }
    }
}

private let freeBufferCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = {
    _, data in g_free(data)
}
