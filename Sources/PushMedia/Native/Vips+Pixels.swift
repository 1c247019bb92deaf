import CVips
import CVipsShims
import Foundation

extension Vips.Image {
    /// An 8-bit sRGB image copied from packed RGB bytes (`width * height * 3`). Starts libvips if
    /// nothing has yet (as ``decode(_:)``).
    static func fromRGB(_ pixels: [UInt8], width: Int, height: Int) throws -> Vips.Image {
        try fromPixels(pixels, width: width, height: height, bands: 3)
    }

    /// An 8-bit sRGB image copied from packed pixels of `bands` bytes (3: RGB, 4: RGBA).
    static func fromPixels(_ pixels: [UInt8], width: Int, height: Int, bands: Int) throws -> Vips.Image {
        try Vips.start()
        precondition(pixels.count == width * height * bands, "buffer size does not match \(width)×\(height)×\(bands)")
        let image = pixels.withUnsafeBytes { raw in
            vips_image_new_from_memory_copy(raw.baseAddress, raw.count, Int32(width), Int32(height), Int32(bands), VIPS_FORMAT_UCHAR)
        }
        guard let image else { throw Vips.Error(operation: "new_from_memory", message: Vips.takeError()) }
        image.pointee.Type = VIPS_INTERPRETATION_sRGB
        return Vips.Image(owning: image)
    }

    /// The 8-bit pixels where they lie in memory (computed into it first when the image is a
    /// pipeline: one frame's worth), band-interleaved rows of `width * bands` bytes, for the
    /// duration of `body`. Throws for any other band format.
    func withMemoryBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) throws -> Result {
        guard bandFormat == VIPS_FORMAT_UCHAR else {
            throw Vips.Error(operation: "wio_input", message: "8-bit pixels expected, the image has \(bitDepth)-bit")
        }
        guard vips_image_wio_input(pointer) == 0, let data = pointer.pointee.data else {
            throw Vips.Error(operation: "wio_input", message: Vips.takeError())
        }
        return try withExtendedLifetime(self) {
            try body(UnsafeBufferPointer(start: data, count: width * bands * height))
        }
    }

    /// Every pixel, computed and copied out, band-interleaved, row by row.
    func memoryBytes() throws -> Data {
        var size = 0
        guard let memory = vips_image_write_to_memory(pointer, &size) else {
            throw Vips.Error(operation: "write_to_memory", message: Vips.takeError())
        }
        return Data(bytesNoCopy: memory, count: size, deallocator: .custom { pointer, _ in g_free(pointer) })
    }

    /// Rotated clockwise by a multiple of 90 degrees.
    func rotated(clockwise degrees: Int) throws -> Vips.Image {
        let angle: VipsAngle =
            switch ((degrees % 360) + 360) % 360 {
            case 90: VIPS_ANGLE_D90
            case 180: VIPS_ANGLE_D180
            case 270: VIPS_ANGLE_D270
            default: VIPS_ANGLE_D0
            }
        if angle == VIPS_ANGLE_D0 { return self }
        return try Vips.call("rot") { pm_rot(pointer, $0, angle) }
    }
}
