import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

/// A GIF output checked frame by frame against its source. The output is decoded by
/// libvips (libnsgif) and by an independent decoder (Pillow's, through /usr/bin/python3); the
/// source by libvips, each frame cut to the attachment's rectangle and resized as the pipeline
/// does (`Framed.cut`). Every output frame is compared with the source frame shown at the
/// output frame's start time. Pixels are compared as a GIF shows them: alpha on (≥ 128) or off,
/// a see-through pixel as (0, 0, 0, 0), so a pixel that should be see-through and is not (or
/// the reverse) costs a whole channel.
enum GIFOracle {
    /// Decoded frames as packed RGBA, see-through pixels (0, 0, 0, 0), the others alpha 255.
    struct Frames {
        var width: Int
        var height: Int
        var rgba: [[UInt8]]
        /// Milliseconds each frame is shown.
        var delays: [Int]

        /// The frame shown `time` milliseconds after the start (the last one past the end).
        func shown(at time: Int) -> Int {
            var start = 0
            for (k, delay) in delays.enumerated() {
                if time < start + delay { return k }
                start += delay
            }
            return rgba.count - 1
        }

        /// When each frame starts, in milliseconds.
        var starts: [Int] { delays.indices.map { delays[..<$0].reduce(0, +) } }
    }

    /// `pixels` pixels of `bands` bands (3: opaque) as the oracle compares them.
    static func normalised(_ bytes: some Collection<UInt8>, bands: Int, pixels: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: pixels * 4)
        var i = bytes.startIndex
        for p in 0..<pixels {
            let r = bytes[i]
            let g = bytes[bytes.index(i, offsetBy: 1)]
            let b = bytes[bytes.index(i, offsetBy: 2)]
            let a = bands == 4 ? bytes[bytes.index(i, offsetBy: 3)] : 255
            if a >= 128 {
                out[p * 4] = r
                out[p * 4 + 1] = g
                out[p * 4 + 2] = b
                out[p * 4 + 3] = 255
            }
            i = bytes.index(i, offsetBy: bands)
        }
        return out
    }

    /// The GIF's frames as libvips' loader makes them.
    static func libvips(_ data: Data) throws -> Frames {
        let gif = try GIFReader.read(data)
        let bytes = [UInt8](try gif.image.memoryBytes())
        let (bands, pixels) = (gif.image.bands, gif.width * gif.frameHeight)
        let frames = (0..<gif.frames).map { f in
            normalised(bytes[(f * pixels * bands)..<((f + 1) * pixels * bands)], bands: bands, pixels: pixels)
        }
        let delays = (0..<gif.frames).map { $0 < gif.delays.count ? gif.delays[$0] : 100 }
        return Frames(width: gif.width, height: gif.frameHeight, rgba: frames, delays: delays)
    }

    /// Pillow's reading of a GIF: its size, each frame's delay (ms), then its RGBA bytes.
    static let pillowScript = """
        import sys, json
        from PIL import Image, ImageSequence
        im = Image.open(sys.argv[1])
        delays, raw = [], bytearray()
        for frame in ImageSequence.Iterator(im):
            delays.append(frame.info.get("duration", 100))
            raw += frame.convert("RGBA").tobytes()
        open(sys.argv[2], "wb").write(raw)
        print(json.dumps({"width": im.size[0], "height": im.size[1], "delays": delays}))
        """

    /// The GIF's frames as Pillow decodes them (an independent decoder: disposal, transparency
    /// and partial frames are its own code, not libnsgif's).
    static func pillow(_ data: Data) throws -> Frames {
        let folder = try Fixtures.temporaryFolder()
        let input = folder.appendingPathComponent("in.gif")
        let raw = folder.appendingPathComponent("frames.rgba")
        try data.write(to: input)
        let run = try CommandRunner.run("/usr/bin/python3", ["-c", pillowScript, input.path, raw.path])
        guard run.status == 0, let header = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any],
            let width = header["width"] as? Int, let height = header["height"] as? Int, let delays = header["delays"] as? [Int]
        else { throw Fixtures.FixtureError(message: "Pillow could not read the GIF: \(run.error)") }
        let bytes = [UInt8](try Data(contentsOf: raw))
        let pixels = width * height
        let frames = (0..<delays.count).map { f in normalised(bytes[(f * pixels * 4)..<((f + 1) * pixels * 4)], bands: 4, pixels: pixels) }
        return Frames(width: width, height: height, rgba: frames, delays: delays)
    }

    /// The source's frames decoded by libvips, each cut to `rect` (source pixels) and resized
    /// to `size` as the pipeline resizes a GIF's frames: the whole frame's Lanczos3 reduction
    /// (`pm_reduce_area`, which JPEGDecodeTests check against Lanczos3 in double) where that
    /// takes the sizes, else libvips' (`Framed.cut`); alpha weighted: a decoded see-through
    /// pixel is 0 in every band, so the resized colour divided by the resized alpha is the
    /// colour of the opaque pixels alone (no dark fringe). A pixel whose alpha lands near 128
    /// is shown or not by a hair, so the resize must be the pipeline's.
    static func source(_ path: String, rect: PixelRect, size: PixelSize) throws -> Frames {
        let gif = try GIFReader.read(try Data(contentsOf: URL(fileURLWithPath: path)))
        let reduces = size != rect.size && DecodePath.within(DecodePath.mostReduction, from: rect.size, to: size)
        let frames = try (0..<gif.frames).map { f -> [UInt8] in
            let frame = try gif.frame(f)
            let cut = try reduces ? frame.copyMemory().reduced(rect, to: size) : Framed.cut(frame, rect, to: size).copyMemory()
            var bytes = [UInt8](try cut.memoryBytes())
            if cut.bands == 4 { unpremultiply(&bytes) }
            return normalised(bytes, bands: cut.bands, pixels: size.width * size.height)
        }
        let delays = (0..<gif.frames).map { $0 < gif.delays.count && gif.delays[$0] > 0 ? gif.delays[$0] : 100 }
        return Frames(width: size.width, height: size.height, rgba: frames, delays: delays)
    }

    /// RGBA pixels whose colour is weighted by their alpha, divided back by it (rounded); a
    /// see-through one 0 in every band.
    static func unpremultiply(_ rgba: inout [UInt8]) {
        for p in stride(from: 0, to: rgba.count - 3, by: 4) {
            let a = Int(rgba[p + 3])
            if a == 0 { (rgba[p], rgba[p + 1], rgba[p + 2]) = (0, 0, 0) }
            guard a > 0, a < 255 else { continue }
            for b in 0..<3 { rgba[p + b] = UInt8(min(255, (Int(rgba[p + b]) * 255 + a / 2) / a)) }
        }
    }

    /// The source rectangle, in source pixels, of a unit `sourceRect` (whole when nil).
    static func pixelRect(_ unit: UnitRect?, width: Int, height: Int) -> PixelRect {
        guard let unit else { return PixelRect(x: 0, y: 0, width: width, height: height) }
        func px(_ v: Double, _ side: Int) -> Int { Int((v * Double(side)).rounded()) }
        return PixelRect(x: px(unit.x, width), y: px(unit.y, height), width: px(unit.width, width), height: px(unit.height, height))
    }

    /// Peak signal-to-noise ratio of two normalised frames (99 when identical).
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        var sum = 0.0
        for i in 0..<min(a.count, b.count) {
            let d = Double(Int(a[i]) - Int(b[i]))
            sum += d * d
        }
        if sum == 0 { return 99 }
        return 10 * log10(255 * 255 / (sum / Double(a.count)))
    }

    /// Each output frame's PSNR against the source frame shown at its start time, under both
    /// decoders (libvips', then Pillow's), and how many frames each decoder found.
    struct Report: CustomStringConvertible {
        var libvips: [Double]
        var pillow: [Double]
        var worst: Double { (libvips + pillow).min() ?? 99 }
        var description: String {
            func worstFrame(_ values: [Double]) -> String {
                guard let low = values.min(), let k = values.firstIndex(of: low) else { return "no frames" }
                return String(format: "%.1f dB (frame %d of %d)", low, k, values.count)
            }
            return "libvips \(worstFrame(libvips)), Pillow \(worstFrame(pillow))"
        }
    }

    /// Compares `output` with the source at `path` cut to `rect`.
    static func compare(_ output: Data, source path: String, rect: PixelRect) throws -> Report {
        let decoded = [try libvips(output), try pillow(output)]
        let first = decoded[0]
        let source = try source(path, rect: rect, size: PixelSize(width: first.width, height: first.height))
        var scores: [[Double]] = []
        for frames in decoded {
            #expect(
                frames.width == first.width && frames.height == first.height && frames.rgba.count == first.rgba.count,
                "the decoders disagree on the GIF's size or frame count")
            scores.append(
                zip(frames.rgba, frames.starts).map { frame, start in
                    psnr(frame, source.rgba[source.shown(at: start)])
                })
        }
        return Report(libvips: scores[0], pillow: scores[1])
    }
}
