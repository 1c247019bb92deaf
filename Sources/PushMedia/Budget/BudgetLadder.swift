/// The settings of one encoding attempt.
public struct EncodeSettings: Sendable, Equatable, CustomStringConvertible {
    /// JPEG quality.
    public var quality: Int?
    /// Palette bits (PNG palette or GIF): 2^bits colours. Nil is true colour.
    public var paletteBits: Int?
    /// Scale relative to the planned output size.
    public var scale: Double
    /// Animations: keep every n-th frame (1 keeps all).
    public var frameStep: Int
    /// GIF: pixels within this error of the previous frame are written transparent (nil: the
    /// encoder's default, ``defaultInterframeMaxError``). Higher is smaller: slow changes
    /// (gradients, grain) are held from the frame before.
    public var interframeMaxError: Double?

    /// The GIF encoder's inter-frame error when the ladder sets none.
    public static let defaultInterframeMaxError = 8.0

    public init(quality: Int? = nil, paletteBits: Int? = nil, scale: Double = 1, frameStep: Int = 1, interframeMaxError: Double? = nil) {
        self.quality = quality
        self.paletteBits = paletteBits
        self.scale = scale
        self.frameStep = frameStep
        self.interframeMaxError = interframeMaxError
    }

    public var colours: Int? { paletteBits.map { 1 << $0 } }

    public var description: String {
        var parts: [String] = []
        if let quality { parts.append("quality \(quality)") }
        if let colours { parts.append("\(colours) colours") }
        if frameStep > 1 { parts.append("every \(frameStep) frames") }
        if let interframeMaxError { parts.append("inter-frame error \(Int(interframeMaxError))") }
        parts.append(scale == 1 ? "full size" : "scale \(String(format: "%.3g", scale))")
        return parts.joined(separator: ", ")
    }
}

/// Decides, attempt by attempt, how to encode an output so it fits its byte limit: a pure state
/// machine, fed the size of each attempt, so it is tested without encoding anything.
///
/// - JPEG: the profile quality first; if too big, bisection of the quality between the floor and
///   the profile quality; when even the floor is too big, downscale a step and search again.
/// - PNG: true colour, then a palette (libimagequant), then downscale steps.
/// - GIF: three kinds of rung, fewer colours (256 down to the floor), fewer frames (every 2nd …
///   every `maxFrameStep`-th) and downscale steps, walked in the given ``GIFRung`` order, each
///   kind starting from where the ones before it ended.
///
/// The limit is the smaller of the budget and the type's hard limit, so nothing over Apple's
/// limit is ever accepted.
public struct BudgetLadder: Sendable {
    public enum Format: Sendable, Equatable {
        case jpeg(quality: Int, minQuality: Int)
        case png
        /// `frames`: frames in the animation; the ladder keeps at least two. `order`: which kind
        /// of rung is walked first.
        case gif(frames: Int, minColours: Int, maxFrameStep: Int, order: [GIFRung] = GIFRung.coloursFirst)
    }

    /// A kind of GIF rung.
    public enum GIFRung: Sendable, Equatable {
        /// A higher inter-frame error (``interframeErrors``).
        case interframe
        case colours, frames, scale

        /// The inter-frame errors the `.interframe` rungs try, after the default.
        public static let interframeErrors: [Double] = [16, 32]

        /// Colours, then frames, then downscaling.
        public static let coloursFirst: [GIFRung] = [.colours, .frames, .scale]
        /// What costs the eye least per byte saved first, measured (docs/benchmarks/gifs.md;
        /// SSIM of every source frame against the output frame shown at the same time, at
        /// the output size) on a 960x480 product shot with a moving badge, per 100 KB saved:
        /// inter-frame error 8 → 16 −0.0018 SSIM, every 2nd frame −0.003, scale 0.8 −0.010, 128
        /// colours −0.035 (fewer colours band gradients and photos without dithering). Downscaling
        /// stops at ``scaleBeforeColours`` until the colours were tried.
        public static let measured: [GIFRung] = [.interframe, .frames, .scale, .colours]

        /// How far a `.scale` rung goes while a `.colours` rung is still to come (SSIM at the
        /// output size does not see the detail a smaller GIF loses).
        public static let scaleBeforeColours = 0.5
    }

    public enum Decision: Sendable, Equatable {
        /// Encode with these settings and report the size.
        case attempt(EncodeSettings)
        /// This earlier attempt fits: use it.
        case accept(EncodeSettings, bytes: Int)
        /// Nothing fits; the smallest attempt is given for the message.
        case fail(smallest: EncodeSettings, bytes: Int)
    }

    public let format: Format
    /// Bytes the output must not exceed.
    public let limit: Int
    /// Smallest scale allowed (keeps the short side at ``minimumSide`` pixels or more).
    public let minScale: Double
    /// Factor of each downscale step.
    public static let scaleStep = 0.8
    public static let minimumSide = 16

    /// Every attempt so far with its size.
    public private(set) var attempts: [(settings: EncodeSettings, bytes: Int)] = []

    // JPEG search state at the current scale.
    private var scale = 1.0
    private var low = 0
    private var high = 0
    private var best: (settings: EncodeSettings, bytes: Int)?
    private var phase = Phase.top
    private enum Phase { case top, floor, bisect }
    // PNG and GIF: a fixed sequence, walked in order.
    private var sequence: [EncodeSettings] = []
    private var position = 0

    /// - Parameters:
    ///   - size: the planned output size in pixels (to bound downscaling).
    public init(format: Format, budget: Int, hardLimit: Int, size: PixelSize) {
        self.format = format
        self.limit = min(budget, hardLimit)
        let shortSide = Double(max(1, min(size.width, size.height)))
        self.minScale = min(1, Double(Self.minimumSide) / shortSide)
        var scales: [Double] = [1]
        while let last = scales.last, last * Self.scaleStep >= minScale { scales.append(last * Self.scaleStep) }
        switch format {
        case .jpeg:
            break
        case .png:
            sequence = [EncodeSettings()] + scales.map { EncodeSettings(paletteBits: 8, scale: $0) }
        case .gif(let frames, let minColours, let maxFrameStep, let order):
            var current = EncodeSettings(paletteBits: 8)
            var steps = [current]
            // Keep at least two frames, so the result is still an animation.
            let stepLimit = min(maxFrameStep, max(1, frames / 2))
            for rung in order {
                switch rung {
                case .interframe:
                    for error in GIFRung.interframeErrors {
                        current.interframeMaxError = error
                        steps.append(current)
                    }
                case .colours:
                    for bits in (Self.bits(for: minColours)..<8).reversed() {
                        current.paletteBits = bits
                        steps.append(current)
                    }
                case .frames where stepLimit >= 2:
                    for step in 2...stepLimit {
                        current.frameStep = step
                        steps.append(current)
                    }
                case .frames:
                    break
                case .scale:
                    let coloursLater = order.drop(while: { $0 != rung }).contains(.colours)
                    for scale in scales.dropFirst() where scale < current.scale {
                        if coloursLater && scale < GIFRung.scaleBeforeColours { break }
                        current.scale = scale
                        steps.append(current)
                    }
                }
            }
            // Downscaling held back for the colours goes on afterwards.
            if order.contains(.scale) {
                for scale in scales.dropFirst() where scale < current.scale {
                    current.scale = scale
                    steps.append(current)
                }
            }
            sequence = steps
        }
    }

    /// The first attempt.
    public func start() -> EncodeSettings {
        switch format {
        case .jpeg(let quality, _): EncodeSettings(quality: quality)
        case .png, .gif: sequence[0]
        }
    }

    /// The frames a GIF attempt has written at least before its encoder may give up on it (with
    /// one still to write): what was written by then is the size the ladder predicts from, and
    /// from one frame alone (the first, written whole) it would say little of the frames after.
    public static let giveUpAfterFrames = 2

    /// How many times the limit a GIF attempt may grow before its encoder gives up on it. The
    /// writer's bytes are counted before the re-packing pass, so an attempt given up could fit
    /// only if that pass removed half of them (it removes far less: ``repackReach``).
    public static let giveUpFactor = 2

    /// The bytes past which the encoder may give up the attempt just asked for and ``record``
    /// the bytes written by then instead of its size: an animated GIF attempt twice over the
    /// limit (``giveUpFactor``) cannot fit, and the rest of it (for a large source most of
    /// the work) would only sharpen the prediction of the rungs after it. Those bytes are no
    /// more than the writer's whole output, so rungs predicted from them are tried rather than
    /// skipped (more attempts, not fewer); only what the re-packing pass would have saved is
    /// not seen in them. Nil (finish it) for stills, JPEG, PNG, and the last rung, whose exact
    /// size a failure reports.
    public var giveUpBytes: Int? {
        guard case .gif(let frames, _, _, _) = format, frames > Self.giveUpAfterFrames, position < sequence.count - 1 else {
            return nil
        }
        return limit.multipliedReportingOverflow(by: Self.giveUpFactor).overflow ? nil : limit * Self.giveUpFactor
    }

    /// How far over the limit a GIF may be and still fit once re-packed. Over 89 attempts the
    /// lossless pass after the writer (``GIFRepack``) removed 2 % on average, 21 % at most (a
    /// GIF of 203 bytes), 2 % at most above 100 KB (docs/benchmarks/gifs-cpu.md, "Animated GIFs:
    /// attempts given up at twice the limit"); 1.3 reaches attempts it would take 23 % from.
    public static let repackReach = 1.3

    /// The sizes of a GIF attempt whose fitting the re-packing pass may decide: over the limit
    /// by at most ``repackReach``. An attempt that fits is accepted as the writer made it; one
    /// further over cannot fit re-packed either. Run on every attempt, the pass cost 39 % of the
    /// CPU of a 960×480 product shot for 0.9 % of its bytes. Whether each attempt fits is decided
    /// as when every attempt was re-packed; rungs predicted from one further over start from the
    /// writer's bytes, a few percent more, which can move a rung across ``predictionSlack``.
    /// Empty when nothing is over the limit (a limit of `Int.max`); nil for JPEG and PNG.
    public var repackBytes: Range<Int>? {
        guard case .gif = format else { return nil }
        guard limit < Int.max - 1 else { return limit..<limit }
        let reach = Double(limit) * Self.repackReach
        let last = reach < Double(Int.max - 1) ? max(limit + 1, Int(reach)) : Int.max - 1
        return (limit + 1)..<(last + 1)
    }

    /// Records the size of an attempt (the bytes written by then when its encoder gave up past
    /// ``giveUpBytes``) and says what to do next.
    public mutating func record(_ settings: EncodeSettings, bytes: Int) -> Decision {
        attempts.append((settings, bytes))
        let fits = bytes <= limit
        switch format {
        case .png, .gif:
            if fits { return .accept(settings, bytes: bytes) }
            position += 1
            // Skip rungs the sizes seen so far say cannot fit (each GIF encode is expensive);
            // the last rung is always tried.
            while position < sequence.count - 1, let predicted = predictedBytes(sequence[position]),
                predicted > Double(limit) * Self.predictionSlack
            {
                position += 1
            }
            return position < sequence.count ? .attempt(sequence[position]) : failure()
        case .jpeg(let quality, let minQuality):
            switch phase {
            case .top:
                if fits { return .accept(settings, bytes: bytes) }
                if minQuality >= quality { return downscale() }
                // Quality alone may be enough: search between the floor and just below the top.
                low = minQuality
                high = quality - 1
                phase = .bisect
                best = nil
                return .attempt(EncodeSettings(quality: (low + high + 1) / 2, scale: scale))
            case .floor:
                // After a downscale: if the floor fits, search upwards for the best quality.
                guard fits else { return downscale() }
                best = (settings, bytes)
                low = minQuality + 1
                high = quality
                phase = .bisect
                if low > high { return .accept(settings, bytes: bytes) }
                return .attempt(EncodeSettings(quality: (low + high + 1) / 2, scale: scale))
            case .bisect:
                let q = settings.quality ?? minQuality
                if fits {
                    if best == nil || q > best!.settings.quality! { best = (settings, bytes) }
                    low = q + 1
                } else {
                    high = q - 1
                }
                if low <= high { return .attempt(EncodeSettings(quality: (low + high + 1) / 2, scale: scale)) }
                if let best { return .accept(best.settings, bytes: best.bytes) }
                // Nothing between the floor and the top fits at this scale.
                return downscale()
            }
        }
    }

    /// How far above the limit a prediction may be and still be tried.
    public static let predictionSlack = 1.25

    /// The size of `settings` predicted from the nearest attempt of the same kind (palette or
    /// true colour): bytes scale with pixels, kept frames and palette bits.
    func predictedBytes(_ settings: EncodeSettings) -> Double? {
        guard let reference = attempts.last(where: { ($0.settings.paletteBits == nil) == (settings.paletteBits == nil) }) else {
            return nil
        }
        let r = reference.settings
        var factor = (settings.scale * settings.scale) / (r.scale * r.scale)
        if case .gif(let frames, _, _, _) = format {
            let kept = { (step: Int) in Double((frames + step - 1) / step) }
            factor *= kept(settings.frameStep) / kept(r.frameStep)
        }
        if let bits = settings.paletteBits, let referenceBits = r.paletteBits {
            factor *= Double(bits) / Double(referenceBits)
        }
        // A higher inter-frame error: bytes fall about as its square root rises (measured 8 → 16:
        // 0.64, 16 → 32: 0.92 on a product shot; content that does not change gains less).
        let error = settings.interframeMaxError ?? EncodeSettings.defaultInterframeMaxError
        let referenceError = r.interframeMaxError ?? EncodeSettings.defaultInterframeMaxError
        factor *= (referenceError / error).squareRoot()
        return Double(reference.bytes) * factor
    }

    private mutating func downscale() -> Decision {
        guard case .jpeg(_, let minQuality) = format else { return failure() }
        let next = scale * Self.scaleStep
        guard next >= minScale else { return failure() }
        scale = next
        phase = .floor
        best = nil
        return .attempt(EncodeSettings(quality: minQuality, scale: scale))
    }

    private func failure() -> Decision {
        let smallest = attempts.min { $0.bytes < $1.bytes }!
        return .fail(smallest: smallest.settings, bytes: smallest.bytes)
    }

    /// Palette bits for a number of colours (rounded up).
    static func bits(for colours: Int) -> Int {
        var bits = 1
        while (1 << bits) < colours { bits += 1 }
        return min(8, bits)
    }
}
