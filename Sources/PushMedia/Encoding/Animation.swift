import CReduce
import Foundation
import PushMediaModel

/// An animation: which source frames it shows, for how long (milliseconds), its loop count
/// (0 = forever), and the cuts applied to every frame. It holds no pixels.
///
/// Frames come from ``frames``, decided once by the decode stage: PushMedia's GIF decoder over
/// a file opened once per item, or libvips' loader. ``openFrames()`` is a lazy decode of the whole
/// animation (frames stacked, each ``sourceSize`` high); only what a consumer pulls is computed,
/// a strip at a time. ``gifData(scale:_:)`` feeds the GIF saver, which takes a frame at a time,
/// and builds each frame's cut only when the saver reaches it; ``frame(_:)`` and
/// ``proxies(_:longSide:)`` copy out one frame or small proxies. When the frames are the GIF
/// decoder's as drawn and every cut keeps its size, all three read the decoder directly
/// (``directCut``). Memory is a few frames, never frames × pixels, and no per-frame state piles up.
struct Animation {
    /// Where the frames come from.
    enum Frames {
        /// PushMedia's GIF decoder over a file opened and scanned once (``GIFFile``): its frames
        /// as drawn, or fitted inside `fit` and colour-managed when `fit` says so.
        case gif(GIFFile, fit: GIFFit?)
        /// Any other decode: a fresh lazy decode of every frame, stacked, on each call (libvips'
        /// loader reading the file again).
        case decode(() throws -> Vips.Image)
    }

    /// How a GIF decoder's frames are brought to the decode size (`vips_thumbnail_image`).
    struct GIFFit {
        var inside: PixelSize
        var colourManaged: Bool
    }

    /// One cut applied to every frame: `rect` resized to `size` (``Framed/cut(_:_:to:now:)``).
    struct FrameCut: Equatable {
        var rect: PixelRect
        var size: PixelSize
    }

    var frames: Frames
    /// A source frame's size (what ``openFrames()`` stacks).
    var sourceSize: PixelSize
    /// A frame's size once ``cuts`` are applied.
    var size: PixelSize
    /// The source frames shown, in order (dropping frames removes indices).
    var indices: [Int]
    var delays: [Int]
    var loop: Int
    /// The cuts applied to every frame, in order (none for a decode).
    var cuts: [FrameCut] = []
    /// When every pass over the frames stops (libvips' kill flag on the decode), if any.
    var deadline: Deadline?

    /// An animation decoded from `frames` (frames of `frameSize`, stacked), uncut.
    init(frames: Frames, frameSize: PixelSize, delays: [Int], loop: Int, deadline: Deadline? = nil) {
        self.frames = frames
        self.deadline = deadline
        self.sourceSize = frameSize
        self.size = frameSize
        self.indices = Array(delays.indices)
        self.delays = delays
        self.loop = loop
    }

    /// An animation of frames already at hand (tests, benchmarks), joined lazily when read.
    init(frames: [Vips.Image], delays: [Int], loop: Int) {
        let size = PixelSize(width: frames.first?.width ?? 0, height: frames.first?.height ?? 0)
        self.init(
            frames: .decode { try Vips.Image.animation(frames: frames, delays: delays, loop: loop) }, frameSize: size,
            delays: delays, loop: loop)
    }

    /// A fresh lazy decode of every source frame, stacked top to bottom, stopping at
    /// ``deadline``.
    func openFrames() throws -> Vips.Image {
        switch frames {
        case .decode(let open):
            return try open()
        case .gif(let file, let fit):
            let drawn = try file.frames()
            let fitted =
                try fit.map { try drawn.thumbnailImage(width: $0.inside.width, height: $0.inside.height, colourManaged: $0.colourManaged) } ?? drawn
            if let deadline { fitted.stopEvaluation(at: deadline) }
            return try fitted.srgb8()
        }
    }

    /// The GIF file, the rectangle of its frames this animation shows and the size it shows it
    /// at, when its frames are PushMedia's decoder's as drawn and its cuts are rectangles of
    /// them, the last one perhaps resized (by no more than CReduce's reduction takes): the GIF
    /// writer, the proxies and a single frame then read the decoder directly.
    var directCut: GIFFileCut? {
        guard case .gif(let file, nil) = frames else { return nil }
        var rect = PixelRect(x: 0, y: 0, width: sourceSize.width, height: sourceSize.height)
        var size = rect.size
        for cut in cuts {
            // A rectangle of resized frames is not a rectangle of the file's.
            guard size == rect.size else { return nil }
            rect = PixelRect(x: rect.x + cut.rect.x, y: rect.y + cut.rect.y, width: cut.rect.width, height: cut.rect.height)
            size = cut.size
        }
        let direct = GIFFileCut(file: file, rect: rect, size: size)
        return direct.reduces ? direct.reducible : direct
    }

    var frameCount: Int { indices.count }

    var durationMilliseconds: Int { delays.reduce(0, +) }

    /// Every `step`-th frame, each kept frame taking the delays of the frames dropped after it,
    /// so the total duration stays the same.
    func keepingEvery(_ step: Int) -> Animation {
        guard step > 1 else { return self }
        let kept = Array(stride(from: 0, to: indices.count, by: step))
        return keeping(kept, delays: kept.map { start in delays[start..<min(start + step, delays.count)].reduce(0, +) })
    }

    /// At most `maxFramesPerSecond`: frames shown for less than a frame interval are merged
    /// into the one before (``FrameRateCap``), so the total duration stays the same.
    func cappingFrameRate(_ maxFramesPerSecond: Int) -> Animation {
        let merged = FrameRateCap.merge(delays: delays, maxFramesPerSecond: maxFramesPerSecond)
        guard merged.count < indices.count else { return self }
        return keeping(merged.map(\.position), delays: merged.map(\.delay))
    }

    private func keeping(_ positions: [Int], delays: [Int]) -> Animation {
        var copy = self
        copy.indices = positions.map { indices[$0] }
        copy.delays = delays
        return copy
    }

    /// `rect` of every frame, resized to `size` (``Framed/cut(_:_:to:now:)``), lazily.
    func cut(_ rect: PixelRect, to size: PixelSize) -> Animation {
        var copy = self
        copy.cuts.append(FrameCut(rect: rect, size: size))
        copy.size = size
        return copy
    }

    /// Runs `body` on lazy frames at `positions` (of ``indices``) from a fresh decode,
    /// transformed; the decode stops at ``deadline`` (whatever computes the frames signals its
    /// progress to it).
    func withFrames<T>(at positions: [Int], _ body: ([Vips.Image]) throws -> T) throws -> T {
        // A frame computed in one piece signals its progress only once it is done.
        if deadline?.hasPassed == true { throw Vips.Error(operation: "frames", message: "time limit reached") }
        let stacked = try openFrames()
        let cut = frameCutter(stacked)
        return try withExtendedLifetime(stacked) { try body(try positions.map(cut)) }
    }

    /// Makes the frame at a position (of ``indices``) of `stacked` (a decode from ``open``),
    /// transformed: lazily, holding no pixels.
    private func frameCutter(_ stacked: Vips.Image) -> (Int) throws -> Vips.Image {
        let (indices, sourceSize, cuts) = (self.indices, self.sourceSize, self.cuts)
        return { position in
            let top = indices[position] * sourceSize.height
            let frame = try stacked.extractArea(left: 0, top: top, width: sourceSize.width, height: sourceSize.height)
            return try cuts.reduce(frame) { try Framed.cut($0, $1.rect, to: $1.size) }
        }
    }

    /// Every frame, scaled by `scale`, as a GIF: the frames are stacked lazily into one image
    /// with their timing, and the GIF saver pulls a frame at a time, so only a few frames are
    /// ever decoded at once. Returns the bytes and the frame size.
    func gifData(scale: Double = 1, _ settings: GIFSettings) throws -> (data: Data, width: Int, height: Int) {
        let written = try gifAttempt(scale: scale, settings.unbounded)
        return (written.attempt.wholeGIF, written.width, written.height)
    }

    /// ``gifData(scale:_:)``, given up part way past ``GIFSettings/giveUpAbove``.
    func gifAttempt(scale: Double = 1, _ settings: GIFSettings) throws -> (attempt: GIFAttempt, width: Int, height: Int) {
        // Frames cut (and reduced) from a GIF PushMedia decodes: no libvips in between, and only
        // what moved is looked at (at their own size, the same bytes).
        if !settings.dithers, let cut = directCut?.scaled(by: scale) {
            let written = try cut.writtenGIF(frames: indices, delays: delays, loop: loop, settings, until: deadline)
            return (written.finished(settings), cut.size.width, cut.size.height)
        }
        let stacked = try openFrames()
        let cut = frameCutter(stacked)
        let joined = try Vips.Image.animation(count: indices.count, delays: delays, loop: loop) { position in
            try cut(position).scaled(by: scale)
        }
        let frameHeight = joined.height / max(1, indices.count)
        return try withExtendedLifetime(stacked) { (try joined.gifAttempt(settings, until: deadline), joined.width, frameHeight) }
    }

    /// One frame (position in ``indices``), transformed, copied into memory.
    func frame(_ position: Int) throws -> Vips.Image {
        // From a GIF PushMedia decodes: the decoder draws up to the frame and its cut is copied
        // from the canvas (the same pixels), with no libvips threads in between.
        if let cut = directCut, indices.indices.contains(position) {
            return try cut.frame(indices[position], until: deadline)
        }
        return try withFrames(at: [position]) { try $0[0].copyMemory() }
    }

    /// Small copies of the frames at `positions`, in memory: one pass over the file, holding only
    /// the proxies. Each is box-shrunk by the whole factor that brings its long side down to
    /// between `longSide` and twice that (a frame already smaller stays as it is): a libvips
    /// Lanczos resize to exactly `longSide` took a sixth of a small GIF's CPU for 48 proxies,
    /// most of it building the operations.
    func proxies(_ positions: [Int], longSide: Int) throws -> [Vips.Image] {
        // From a GIF PushMedia decodes: straight from the decoder, averaging only what moved
        // (the same pixels).
        let factor = max(1, max(size.width, size.height) / max(1, longSide))
        if let cut = directCut, !cut.reduces, !positions.isEmpty, cut.proxyFactorFits(factor) {
            let joined = try cut.proxies(frames: positions.map { indices[$0] }, factor: factor, until: deadline)
            let height = joined.height / positions.count
            return try positions.indices.map { try joined.extractArea(left: 0, top: $0 * height, width: joined.width, height: height) }
        }
        return try withFrames(at: positions) { frames in
            let small = try frames.map { frame in
                try frame.shrunk(by: max(1, max(frame.width, frame.height) / max(1, longSide)))
            }
            guard let first = small.first else { return [] }
            let joined = try Vips.Image.animation(frames: small, delays: small.map { _ in 100 }, loop: 0).copyMemory()
            return try (0..<small.count).map {
                try joined.extractArea(left: 0, top: $0 * first.height, width: first.width, height: first.height)
            }
        }
    }
}

/// A rectangle of a GIF file's frames, as PushMedia's decoder draws them, at `size` (its own,
/// or reduced to it: ``Animation/directCut``; read straight from the decoder in
/// GIFFileCut+Decoder.swift).
struct GIFFileCut: Equatable, Sendable {
    var file: GIFFile
    var rect: PixelRect
    var size: PixelSize

    init(file: GIFFile, rect: PixelRect, size: PixelSize? = nil) {
        self.file = file
        self.rect = rect
        self.size = size ?? rect.size
    }

    static func == (a: GIFFileCut, b: GIFFileCut) -> Bool { a.file === b.file && a.rect == b.rect && a.size == b.size }

    /// Whether the frames are reduced on the way (not shown at their own size).
    var reduces: Bool { size != rect.size }

    /// Itself when CReduce's reduction takes its sizes (no side larger, none more than
    /// `PM_REDUCE_MOST` times smaller), else nil.
    var reducible: GIFFileCut? {
        pm_reduce_plan_fits(Int32(rect.width), Int32(rect.height), Int32(size.width), Int32(size.height)) != 0 ? self : nil
    }

    /// The cut shown at `scale` of its size (``Vips/Image/scaled(by:)``'s rounding), nil when
    /// that size is more than the reduction takes.
    func scaled(by scale: Double) -> GIFFileCut? {
        guard scale < 1 else { return self }
        let scaled = PixelSize(
            width: max(1, Int((Double(size.width) * scale).rounded())), height: max(1, Int((Double(size.height) * scale).rounded())))
        return GIFFileCut(file: file, rect: rect, size: scaled).reducible
    }

    /// Whether a box factor leaves a pixel at least on each side (libvips' round(size / factor)).
    func proxyFactorFits(_ factor: Int) -> Bool {
        factor >= 1 && 2 * rect.width >= factor && 2 * rect.height >= factor
    }
}
