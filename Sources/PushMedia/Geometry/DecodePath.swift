import PushMediaModel

/// Pure: how a decode reaches its size, from what the image's header says. The loaders, the
/// reductions and libvips' thumbnail carry it out (`Native/`); which of them runs, and at what
/// size, is decided here, once.
enum DecodePath {
    /// What an opened image's header says (nothing decoded yet).
    struct Header: Equatable {
        /// As stored (one frame's size).
        var size: PixelSize
        /// EXIF orientation, 1…8.
        var orientation: Int
        /// 8-bit sRGB in 3 bands or grey in 1, no alpha (``Vips/Image/isPlain8BitSRGBOrGrey``):
        /// pixels PushMedia's own reductions take as they are.
        var isPlain8Bit: Bool

        /// Orientations 5…8 turn the image a quarter: its width becomes its height.
        var swapsAxes: Bool { (5...8).contains(orientation) }
    }

    /// The most a side may shrink in PushMedia's own reductions (`PM_REDUCE_MOST`, CReduce.h,
    /// which a test holds this to): past it their 14-bit weights round to nothing, and libvips'
    /// resize (which box-shrinks first) takes over.
    static let mostReduction = 16

    /// How a still reaches `target` (upright) from an image opened with its loader's shrink.
    enum Still: Equatable {
        /// libvips' `vips_thumbnail_image`: the resize, the orientation and the conversion to
        /// sRGB in one (ICC profiles, CMYK, 16-bit, alpha).
        case thumbnail
        /// Reduced to `size` (as stored) in two passes, down then across, then turned upright:
        /// a JPEG by libjpeg as its rows are decoded (`libjpeg`), anything else through
        /// ``reduction(eightBit:inMemory:from:to:)``.
        case reduce(to: PixelSize, libjpeg: Bool)
    }

    /// A still's path: the two passes for plain 8-bit pixels with nothing to colour-manage
    /// (libjpeg's for a JPEG, within ``mostReduction``), else libvips' thumbnail.
    static func still(_ header: Header, format: MediaFormat?, target: PixelSize, colourManaged: Bool) -> Still {
        guard header.isPlain8Bit && !colourManaged else { return .thumbnail }
        let size = ImagePlan.fitted(
            header.size, inside: header.swapsAxes ? PixelSize(width: target.height, height: target.width) : target)
        let libjpeg = format == .jpeg && within(mostReduction, from: header.size, to: size)
        return .reduce(to: size, libjpeg: libjpeg)
    }

    /// How an area of `from` pixels is reduced to `to` (at most its size) into memory.
    enum Reduction: Equatable {
        /// 8-bit pixels in memory: down then across on the calling thread (`pm_reduce_area`).
        case inPlace
        /// 8-bit pixels a pipeline computes: libvips' vertical reduce (its vector path) into
        /// memory, then PushMedia's across (`pm_reduce_width`).
        case downThenAcross
        /// Anything else, and past ``mostReduction``: libvips' resize.
        case resize
    }

    static func reduction(eightBit: Bool, inMemory: Bool, from: PixelSize, to: PixelSize) -> Reduction {
        guard eightBit && within(mostReduction, from: from, to: to) else { return .resize }
        return inMemory ? .inPlace : .downThenAcross
    }

    /// Whether `to` is no larger than `from` and at most `factor` times smaller on each side.
    static func within(_ factor: Int, from: PixelSize, to: PixelSize) -> Bool {
        to.width <= from.width && to.height <= from.height && to.width * factor >= from.width
            && to.height * factor >= from.height
    }

    /// The shrink-on-load factor for a decode of `source` pixels (as stored) that must still
    /// cover `target` (upright) once `swapsAxes` (EXIF orientation 5…8) is applied: for JPEG the
    /// largest of 1, 2, 4 or 8 whose decode (libjpeg rounds sizes up) still covers the target,
    /// the smallest useful scale, as Pillow's draft mode and `djpeg -scale` decode
    /// (`vips_thumbnail` would stay a factor of two above the target: a 12 MP photo decoded at
    /// full size, for 0.04–0.18 dB after the JPEG encode, docs/benchmarks/still-images.md); for
    /// WebP the whole shrink (libwebp's scaler filters), never below 1; 1 for other formats.
    static func shrinkOnLoad(format: MediaFormat?, source: PixelSize, target: PixelSize, swapsAxes: Bool) -> Double {
        guard format == .jpeg || format == .webp, target.width > 0, target.height > 0 else { return 1 }
        let wanted = swapsAxes ? PixelSize(width: target.height, height: target.width) : target
        guard format == .jpeg else {
            return max(1, min(Double(source.width) / Double(wanted.width), Double(source.height) / Double(wanted.height)))
        }
        // libjpeg rounds a scaled size up; libvips' jpegload makes an image it cannot
        // build (an assertion that aborts the process) when the factor exceeds a side, as 8 does
        // a 1×1 JPEG: no factor larger than the shorter side.
        let covering = [8, 4, 2].first { factor in
            factor <= min(source.width, source.height)
                && (source.width + factor - 1) / factor >= wanted.width && (source.height + factor - 1) / factor >= wanted.height
        }
        return Double(covering ?? 1)
    }

    /// Whether a GIF decoder's frames of `frame` pixels must go through libvips' thumbnail to fit
    /// `inside` or to be colour-managed; when not, they are read as the decoder draws them.
    static func gifNeedsFitting(frame: PixelSize, inside: PixelSize, colourManaged: Bool) -> Bool {
        frame.width > inside.width || frame.height > inside.height || colourManaged
    }
}
