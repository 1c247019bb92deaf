import Foundation
import PushMediaModel

/// libvips' attention measure (`vips_smartcrop` with `interesting: attention`), scored here
/// on its 32×32 map rather than through libvips.
///
/// libvips resizes the image to a 32×32 map and scores each cell. The score adds three terms:
/// - edges: the Laplacian of luminance Y (CIE XYZ), times 5;
/// - skin: closeness to a skin hue;
/// - saturation: CIELAB a*.
/// Skin and saturation count only where Y > 5. It then blurs the scores with a Gaussian the
/// size of the crop and takes the first maximum.
///
/// That is ~30 libvips operations for 1,024 pixels. Their set-up cost ~10 ms of CPU per image,
/// against microseconds for the arithmetic (docs/benchmarks/still-images.md, "Attention without libvips'
/// operations"). The map itself is still libvips' resize, so the cells are exactly libvips'. The
/// arithmetic follows libvips' steps, to about 1e-6 of a score; where two cells come closer
/// than that allows (``tieMargin``), libvips itself decides. Tests check the cell chosen against
/// `vips_smartcrop` on every fixture, on seeded pictures, and on symmetric ones.
enum Attention {
    /// Cells along each side of the map (libvips' precision: a 32nd of each side).
    static let mapSide = 32

    /// The blur's sigma for a crop of `crop` in an image of `size`, as `vips_smartcrop` sets it:
    /// the crop's diagonal measured in map cells, over 10, at least 1.
    static func sigma(crop: PixelSize, in size: PixelSize) -> Double {
        let across = Double(crop.width) * (Double(mapSide) / Double(size.width))
        let down = Double(crop.height) * (Double(mapSide) / Double(size.height))
        return max((across * across + down * down).squareRoot() / 10, 1)
    }

    /// libvips' Gaussian mask for `sigma` (`vips_gaussmat`, minimum amplitude 0.2, integer
    /// precision): taps out to the last one at ≥ 0.2 of the centre, each 20 × the Gaussian,
    /// rounded half to even. The blur divides each sum by the taps' total, as libvips does.
    static func blurMask(sigma: Double) -> [Double] {
        let twoSigmaSquared = 2 * sigma * sigma
        var reach = 0
        while exp(-Double(reach * reach) / twoSigmaSquared) >= 0.2 { reach += 1 }
        let taps = (-(reach - 1)...(reach - 1)).map { offset in
            (20 * exp(-Double(offset * offset) / twoSigmaSquared)).rounded(.toNearestOrEven)
        }
        return taps
    }

    /// How close, relative to the best score, another cell's score may come before the answer
    /// is left to libvips. Scores here match libvips' to about 1e-6 relative, not bit for bit,
    /// and libvips keeps the first of equal scores: a symmetric picture (a centred logo, a
    /// checkerboard) has mirror cells whose scores are equal in libvips and an ulp apart here.
    static let tieMargin = 1e-4

    /// The map's most interesting cell, as `vips_max` picks it (row-major first among equals);
    /// nil when another cell scores within ``tieMargin`` of it (libvips decides those).
    /// `pixels` are the map's 8-bit bytes, band-interleaved: sRGB when `bands` is 3, grey when it
    /// is 1. (libvips premultiplies an alpha band and scores in float: such images are its own.)
    static func peak(
        pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, bands: Int, sigma: Double
    ) -> (x: Int, y: Int)? {
        precondition(width > 0 && height > 0 && (bands == 1 || bands == 3) && pixels.count >= width * height * bands)
        let scores = scoreMap(pixels: pixels, width: width, height: height, bands: bands)
        let blurred = blur(scores, width: width, height: height, mask: blurMask(sigma: sigma))
        var best = 0
        for index in blurred.indices where blurred[index] > blurred[best] { best = index }
        let margin = tieMargin * abs(Double(blurred[best]))
        for index in blurred.indices where index != best && Double(blurred[best]) - Double(blurred[index]) <= margin {
            return nil
        }
        return (best % width, best / width)
    }

    // MARK: - The score of each cell (single precision, as libvips computes it)

    /// sRGB's 8-bit values as linear light, 0…1, as libvips' table for `sRGB2scRGB` has them
    /// (the value divided by 255 in single precision, the curve in double).
    private static let linear: [Float] = (0..<256).map { value in
        let v = Double(Float(Double(value) / 255))
        return Float(v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4))
    }

    private static func scoreMap(pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, bands: Int) -> [Float] {
        let count = width * height
        var x = [Float](repeating: 0, count: count)
        var y = [Float](repeating: 0, count: count)
        var z = [Float](repeating: 0, count: count)
        let colour = bands >= 3
        for index in 0..<count {
            let at = index * bands
            let r = linear[Int(pixels[at])] * 100
            let g = colour ? linear[Int(pixels[at + 1])] * 100 : r
            let b = colour ? linear[Int(pixels[at + 2])] * 100 : r
            x[index] = 0.4124 * r + 0.3576 * g + 0.1805 * b
            y[index] = 0.2126 * r + 0.7152 * g + 0.0722 * b
            z[index] = 0.0193 * r + 0.1192 * g + 0.9505 * b
        }
        var scores = [Float](repeating: 0, count: count)
        for row in 0..<height {
            for column in 0..<width {
                let index = row * width + column
                // Edges: the Laplacian of Y, edges repeated, times 5; summed in the mask's order
                // in double and rounded once, as libvips' convolution does.
                func luminance(_ c: Int, _ r: Int) -> Double {
                    Double(y[min(max(r, 0), height - 1) * width + min(max(c, 0), width - 1)])
                }
                let laplacian = Float(
                    -luminance(column, row - 1) - luminance(column - 1, row) + 4 * luminance(column, row)
                        - luminance(column + 1, row) - luminance(column, row + 1))
                var score = abs(laplacian * 5)
                guard y[index] > 5 else {
                    scores[index] = score
                    continue
                }
                // Skin: 100 at the skin direction of XYZ, falling with the distance from it.
                let magnitude = (x[index] * x[index] + y[index] * y[index] + z[index] * z[index]).squareRoot()
                let unit = magnitude == 0 ? (Float(0), Float(0), Float(0)) : (x[index] / magnitude, y[index] / magnitude, z[index] / magnitude)
                let dx = unit.0 - 0.78
                let dy = unit.1 - 0.57
                let dz = unit.2 - 0.44
                let distance = (dx * dx + dy * dy + dz * dz).squareRoot()
                let skin = 100 - 100 * distance
                // Saturation: CIELAB a* (D65).
                let saturation = 500 * (labCurve(x[index] / 95.047) - labCurve(y[index] / 100))
                score = score + skin + saturation
                scores[index] = score
            }
        }
        return scores
    }

    private static func labCurve(_ t: Float) -> Float {
        t > 0.008856 ? cbrtf(t) : 7.787 * t + 16 / 116
    }

    // MARK: - The blur (across, then down, edges repeated)

    private static func blur(_ scores: [Float], width: Int, height: Int, mask: [Double]) -> [Float] {
        let across = pass(scores, width: width, height: height, mask: mask, across: true)
        return pass(across, width: width, height: height, mask: mask, across: false)
    }

    /// One pass of `mask` along the rows (`across`) or down the columns, edges repeated: each
    /// sum in double, divided by the taps' total, stored in single precision (as libvips).
    private static func pass(_ values: [Float], width: Int, height: Int, mask: [Double], across: Bool) -> [Float] {
        let reach = mask.count / 2
        let total = mask.reduce(0, +)
        var out = [Float](repeating: 0, count: values.count)
        for row in 0..<height {
            for column in 0..<width {
                var sum = 0.0
                for (k, weight) in mask.enumerated() {
                    let index =
                        across
                        ? row * width + min(max(column + k - reach, 0), width - 1)
                        : min(max(row + k - reach, 0), height - 1) * width + column
                    sum += weight * Double(values[index])
                }
                out[row * width + column] = Float(sum / total)
            }
        }
        return out
    }
}
