import PushMediaModel

/// How a decode is carried out: the path ``DecodePath`` chooses from the header, run with the
/// loaders and reductions of `Native/`.
extension Vips.Image {
    /// Shrink-on-load decode to fit `width`×`height` (never larger than the source), upright
    /// (EXIF orientation applied) and colour-managed to sRGB, through the loader for the source's
    /// sniffed format (JPEG and WebP decode at a reduced size when the target allows:
    /// ``DecodePath/shrinkOnLoad(format:source:target:swapsAxes:)``). With `allPages`, every
    /// frame of an animation is decoded and resized (frames stacked vertically, `page-height`
    /// set). `colourManaged`: transform through the embedded ICC profile (or libvips' CMYK one)
    /// to sRGB; untagged images are taken as sRGB already.
    static func thumbnail(
        from source: Vips.Source, width: Int, height: Int, allPages: Bool = false, failOn: Vips.FailOn = .truncated,
        colourManaged: Bool = true
    ) throws -> Vips.Image {
        try shrunkOnLoad(source, width: width, height: height, allPages: allPages, failOn: failOn).image
            .thumbnailImage(width: width, height: height, colourManaged: colourManaged)
    }

    /// ``thumbnail(from:width:height:allPages:failOn:colourManaged:)`` of every frame of a GIF,
    /// decoded by PushMedia's own GIF decoder (``GIFFile/frames()``) instead of libvips' loader,
    /// as drawn when nothing needs fitting (``DecodePath/gifNeedsFitting(frame:inside:colourManaged:)``);
    /// nil for a file that decoder leaves to libvips.
    static func gifThumbnail(path: String, width: Int, height: Int, colourManaged: Bool) throws -> Vips.Image? {
        guard let frames = try GIFFile.open(path: path)?.frames() else { return nil }
        let frame = PixelSize(width: frames.width, height: frames.pageHeight)
        guard DecodePath.gifNeedsFitting(frame: frame, inside: PixelSize(width: width, height: height), colourManaged: colourManaged)
        else { return frames }
        return try frames.thumbnailImage(width: width, height: height, colourManaged: colourManaged)
    }

    /// ``thumbnail(from:width:height:allPages:failOn:colourManaged:)`` of a still, computed into
    /// memory (libvips reads the source sequentially; a JPEG it only opens, and libjpeg reads the
    /// file through its descriptor); the decode stops at `deadline`. The path is
    /// ``DecodePath/still(_:format:target:colourManaged:)``'s: the common photo (8-bit sRGB or
    /// grey, no alpha, nothing to colour-manage) is reduced in two passes, down while the file
    /// is decoded, then across: a JPEG by libjpeg itself, each row reduced down and across as it
    /// comes (``jpegReduced(from:like:shrink:to:until:vectorized:)``); other formats by libvips'
    /// vertical reduce, then ``reducedWidth(to:vectorized:)`` in memory, where
    /// `vips_thumbnail_image` would spend most of its time in libvips' scalar reduceh.
    ///
    /// A JPEG's damage is judged by ``JPEGDamage``: libjpeg's own decode reports what it stepped
    /// over; libvips' loader is run failing on any libjpeg warning, and only when a decode fails is
    /// the file scanned (``Vips/jpegDamage(of:until:)``) and, unless that finds damage, decoded
    /// again as libvips' `truncated` level does for every other format. A clean JPEG costs
    /// nothing more.
    static func still(
        from source: Vips.Source, width: Int, height: Int, colourManaged: Bool, until deadline: Deadline
    ) throws -> Vips.Image {
        let decode = { (failOn: Vips.FailOn) throws -> Vips.Image in
            let (image, shrink) = try shrunkOnLoad(source, width: width, height: height, allPages: false, failOn: failOn)
            return try still(
                image, format: source.format, width: width, height: height, colourManaged: colourManaged, until: deadline,
                jpeg: { try jpegReduced(from: source, like: image, shrink: Int(shrink), to: $0, until: deadline) })
        }
        guard source.format == .jpeg else { return try decode(.truncated) }
        do {
            return try decode(.warning)
        } catch is Vips.Error where !deadline.hasPassed {
            // Damage fails the file; anything else ends as libvips' `truncated` level decides (a
            // scan libjpeg fails, such as a truncated file's, leaves the verdict to it too).
            try (try? Vips.jpegDamage(of: source, until: deadline))?.check()
            return try decode(.truncated)
        }
    }

    /// ``still(from:width:height:colourManaged:until:)`` of an image already opened (lazily),
    /// such as the one frame of a GIF from PushMedia's decoder (``GIFFile/frames()``).
    static func still(
        decoded image: Vips.Image, width: Int, height: Int, colourManaged: Bool, until deadline: Deadline
    ) throws -> Vips.Image {
        try still(image, format: nil, width: width, height: height, colourManaged: colourManaged, until: deadline, jpeg: nil)
    }

    private static func still(
        _ image: Vips.Image, format: MediaFormat?, width: Int, height: Int, colourManaged: Bool, until deadline: Deadline,
        jpeg: ((PixelSize) throws -> Vips.Image?)?
    ) throws -> Vips.Image {
        let header = DecodePath.Header(
            size: PixelSize(width: image.width, height: image.height), orientation: image.int(field: "orientation") ?? 1,
            isPlain8Bit: image.isPlain8BitSRGBOrGrey)
        switch DecodePath.still(
            header, format: format, target: PixelSize(width: width, height: height), colourManaged: colourManaged)
        {
        case .thumbnail:
            let thumbnail = try image.thumbnailImage(width: width, height: height, colourManaged: colourManaged)
            thumbnail.stopEvaluation(at: deadline)
            return try thumbnail.copyMemory()
        case .reduce(let size, let libjpeg):
            // libjpeg declines (nil) a file it decodes otherwise than libvips' header says.
            let reduced = try (libjpeg ? jpeg?(size) : nil) ?? image.reduced(to: size, until: deadline)
            return header.orientation == 1 ? reduced : try reduced.autorotated().copyMemory()
        }
    }

    /// Opened with the loader's shrink-on-load for a decode that still covers `width`×`height`
    /// (upright), pixels not yet decoded, and the shrink it was opened with.
    private static func shrunkOnLoad(
        _ source: Vips.Source, width: Int, height: Int, allPages: Bool, failOn: Vips.FailOn
    ) throws -> (image: Vips.Image, shrink: Double) {
        guard let format = source.format, Vips.Loader(format) != nil else { throw Vips.notAnImage("thumbnail") }
        let image = try header(from: source, failOn: failOn, allPages: allPages)
        let stored = PixelSize(width: image.width, height: image.pageHeight > 0 ? image.pageHeight : image.height)
        let orientation = image.int(field: "orientation") ?? 1
        let shrink = DecodePath.shrinkOnLoad(
            format: format, source: stored, target: PixelSize(width: width, height: height),
            swapsAxes: (5...8).contains(orientation))
        return (shrink > 1 ? try header(from: source, failOn: failOn, allPages: allPages, shrink: shrink) : image, shrink)
    }
}
