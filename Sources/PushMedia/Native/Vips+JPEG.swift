import CReduce
import CVips

extension Vips.Image {
    /// The JPEG behind `source` decoded by libjpeg with its DCT scaled by 1/`shrink` and reduced to
    /// `size` as it is decoded (`pm_jpeg_decode_reduced`: Lanczos3 down, then across, row by
    /// row), into memory, with the fields of `like` (the same file opened by libvips' loader with
    /// that shrink: its header only, which said 8-bit sRGB or grey; the size at most
    /// ``DecodePath/mostReduction`` times smaller on a side, ``DecodePath/still(_:format:target:colourManaged:)``'s
    /// choice). Nil when libvips must decode it (what libjpeg makes is not what `like` describes). Throws ``Vips/Error`` for a
    /// damaged or truncated file, or once `deadline` passes. `vectorized: false` runs the plain C
    /// loops alone (the vector loops give the same bytes).
    static func jpegReduced(
        from source: Vips.Source, like: Vips.Image, shrink: Int, to size: PixelSize, until deadline: Deadline,
        vectorized: Bool = true
    ) throws -> Vips.Image? {
        var image: UnsafeMutablePointer<VipsImage>?
        var message = [CChar](repeating: 0, count: 256)
        let status = pm_jpeg_decode_reduced(
            source.descriptor, like.pointer, Int32(shrink), Int32(size.width), Int32(size.height), deadline.native,
            vectorized ? 1 : 0, &image, &message, message.count)
        switch status {
        case 0:
            guard let image else { throw Vips.Error(operation: "jpegload", message: "no image") }
            return Vips.Image(owning: image)
        case 1:
            return nil
        default:
            throw Vips.Error(operation: "jpegload", message: String(cBuffer: message))
        }
    }
}
