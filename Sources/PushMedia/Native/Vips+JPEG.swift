import CReduce
import CVips

extension Vips.Image {
    /// The JPEG behind `source` decoded by libjpeg with its DCT scaled by 1/`shrink` and reduced to
    /// `size` as it is decoded (`pm_jpeg_decode_reduced`: Lanczos3 down, then across, row by
    /// row), into memory, with the fields of `like` (the same file opened by libvips' loader with
    /// that shrink: its header only, which said 8-bit sRGB or grey; the size at most
    /// ``DecodePath/mostReduction`` times smaller on a side, ``DecodePath/still(_:format:target:colourManaged:)``'s
    /// choice). Nil when libvips must decode it (what libjpeg makes is not what `like` describes). Throws ``Vips/Error`` for a
    /// damaged or truncated file (also one libjpeg decodes with too many rows left grey,
    /// ``JPEGDamage``), or once `deadline` passes. `vectorized: false` runs the plain C
    /// loops alone (the vector loops give the same bytes).
    static func jpegReduced(
        from source: Vips.Source, like: Vips.Image, shrink: Int, to size: PixelSize, until deadline: Deadline,
        vectorized: Bool = true
    ) throws -> Vips.Image? {
        var image: UnsafeMutablePointer<VipsImage>?
        var message = [CChar](repeating: 0, count: 256)
        var damage = pm_jpeg_damage()
        let status = pm_jpeg_decode_reduced(
            source.descriptor, like.pointer, Int32(shrink), Int32(size.width), Int32(size.height), deadline.native,
            vectorized ? 1 : 0, &image, &damage, &message, message.count)
        switch status {
        case 0:
            guard let image else { throw Vips.Error(operation: "jpegload", message: "no image") }
            let decoded = Vips.Image(owning: image)
            try JPEGDamage(damage).check()
            return decoded
        case 1:
            return nil
        default:
            throw Vips.Error(operation: "jpegload", message: String(cBuffer: message))
        }
    }
}

extension Vips {
    /// What libjpeg steps over in the JPEG behind `source` (`pm_jpeg_scan_damage`: every scan
    /// entropy-decoded, the pixels at 1/8 scale and dropped), for a JPEG whose pixels libvips
    /// decodes. Throws ``Vips/Error`` where libjpeg fails (truncated, broken structure) or once
    /// `deadline` passes.
    static func jpegDamage(of source: Vips.Source, until deadline: Deadline) throws -> JPEGDamage {
        var damage = pm_jpeg_damage()
        var message = [CChar](repeating: 0, count: 256)
        guard pm_jpeg_scan_damage(source.descriptor, deadline.native, &damage, &message, message.count) == 0 else {
            throw Vips.Error(operation: "jpegload", message: String(cBuffer: message))
        }
        return JPEGDamage(damage)
    }
}

extension JPEGDamage {
    init(_ facts: pm_jpeg_damage) {
        let warning = withUnsafeBytes(of: facts.first_warning) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        self.init(
            size: PixelSize(width: Int(facts.width), height: Int(facts.height)), rows: Int(facts.rows),
            rowsWithData: Int(facts.rows_with_data), warnings: Int(facts.warnings), firstWarning: warning)
    }

    /// Throws ``Vips/Error`` (a damaged file: `corrupt_input`) when ``problem`` finds one.
    func check() throws {
        if let problem { throw Vips.Error(operation: "jpegload", message: problem) }
    }
}
