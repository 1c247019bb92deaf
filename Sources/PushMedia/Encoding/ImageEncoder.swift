import Foundation
import PushMediaModel

/// The formats PushMedia writes images in.
public enum OutputImageFormat: String, Sendable {
    case jpeg, png, gif

    public var attachmentType: AttachmentType {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .gif: .gif
        }
    }
}

/// An encoded variant, ready to store.
struct EncodedImage {
    var role: Attachment.Role
    var data: Data
    var format: OutputImageFormat
    var width: Int
    var height: Int
    var frames: Int?
    var budget: Int
    var settings: EncodeSettings
    var encoding: Attachment.Encoding
}

/// The one place pixels become bytes, for every format: the ``BudgetLadder`` says which settings
/// to try, this renders them, until an attempt fits `min(budget, hard limit)`. Outputs never
/// carry metadata (EXIF, GPS, XMP, ICC): the savers run with `strip`.
enum ImageEncoder {
    /// JPEG for opaque stills, PNG when the alpha is real, GIF for animations.
    static func format(for pixels: Pixels, keepsAlpha: Bool) -> OutputImageFormat {
        if case .animation = pixels { return .gif }
        return keepsAlpha ? .png : .jpeg
    }

    static func encode(
        _ pixels: Pixels, role: Attachment.Role, as format: OutputImageFormat, budget: Int,
        profile: Profile, deadline: Deadline, scratch: URL? = nil
    ) throws -> EncodedImage {
        let hardLimit = format.attachmentType.maxBytes
        // Frames of the source, before the frame-rate cap or the ladder dropped any.
        let framesTotal = pixels.frameCount
        var pixels = pixels
        if case .animation(let animation) = pixels {
            // Frames the eye cannot tell apart cost bytes on every rung: cap the rate first.
            let capped = animation.cappingFrameRate(profile.animation.maxFramesPerSecond)
            // Large frames that the cut resizes are resized once, not on every rung.
            if let scratch, capped.directCut == nil, capped.fitsOnce(source: capped.sourceSize) {
                pixels = .animation(try Vips.attributed(until: deadline) { try capped.fittedOnce(in: scratch) })
            } else {
                pixels = .animation(capped)
            }
        }
        let ladderFormat: BudgetLadder.Format =
            switch (format, pixels) {
            case (.jpeg, _): .jpeg(quality: profile.jpeg.quality, minQuality: profile.jpeg.minQuality)
            case (.png, _): .png
            case (.gif, .animation(let animation)):
                .gif(
                    frames: animation.frameCount, minColours: profile.animation.minColours, maxFrameStep: profile.animation.maxFrameStep,
                    order: BudgetLadder.GIFRung.measured)
            case (.gif, .still): .gif(frames: 1, minColours: profile.animation.minColours, maxFrameStep: 1)
            }
        var ladder = BudgetLadder(
            format: ladderFormat, budget: budget, hardLimit: hardLimit,
            size: PixelSize(width: pixels.width, height: pixels.height))
        var settings = ladder.start()
        // Attempts that fit, so the accepted one need not be encoded again.
        var fitting: [(settings: EncodeSettings, rendered: Rendered, data: Data)] = []
        // Attempts given up part way, whose sizes are the bytes written by then.
        var givenUp: [EncodeSettings] = []
        while true {
            if deadline.hasPassed {
                throw ItemError(.timeout, "time limit reached while fitting the \(role.rawValue) into \(budget) bytes")
            }
            let giveUpAbove = ladder.giveUpBytes
            let repackOnly = ladder.repackBytes
            let rendered = try Vips.attributed(until: deadline) {
                try render(pixels, format: format, settings: settings, profile: profile, giveUpAbove: giveUpAbove, repackOnly: repackOnly)
            }
            if let data = rendered.data, data.count <= ladder.limit { fitting.append((settings, rendered, data)) }
            if rendered.data == nil { givenUp.append(settings) }
            switch ladder.record(settings, bytes: rendered.bytes) {
            case .attempt(let next):
                settings = next
            case .accept(let accepted, _):
                guard let (_, chosen, data) = fitting.last(where: { $0.settings == accepted }), data.count <= hardLimit else {
                    throw ItemError(.internalError, "budget ladder accepted an attempt that was not kept")
                }
                return EncodedImage(
                    role: role, data: data, format: format, width: chosen.width, height: chosen.height,
                    frames: chosen.frames, budget: ladder.limit, settings: accepted,
                    encoding: Attachment.Encoding(
                        quality: accepted.quality, colours: accepted.colours, scale: accepted.scale,
                        framesKept: chosen.frames, framesTotal: framesTotal,
                        interframeMaxError: format == .gif ? accepted.interframeMaxError ?? EncodeSettings.defaultInterframeMaxError : nil,
                        attempts: ladder.attempts.count))
            case .fail(let smallest, let bytes):
                func size(_ settings: EncodeSettings, _ bytes: Int) -> String {
                    givenUp.contains(settings) ? "over \(bytes) (given up part way)" : "\(bytes)"
                }
                throw ItemError(
                    .overBudget,
                    "the \(role.rawValue) cannot fit \(ladder.limit) bytes: the smallest of \(ladder.attempts.count) attempts "
                        + "was \(size(smallest, bytes)) bytes (\(smallest)); tried "
                        + ladder.attempts.map { "\($0.settings): \(size($0.settings, $0.bytes))" }.joined(separator: "; "))
            }
        }
    }

    struct Rendered {
        /// The encoded bytes; nil when the GIF writer gave up past the ladder's bound.
        var data: Data?
        /// `data`'s length, or the bytes written by then when given up (a lower bound).
        var bytes: Int
        var width: Int
        var height: Int
        var frames: Int?
    }

    static func render(
        _ pixels: Pixels, format: OutputImageFormat, settings: EncodeSettings, profile: Profile, giveUpAbove: Int? = nil,
        repackOnly: Range<Int>? = nil
    ) throws -> Rendered {
        switch pixels {
        case .still(let image):
            let scaled = try image.scaled(by: settings.scale)
            let data: Data =
                switch format {
                case .jpeg: try scaled.jpegData(quality: settings.quality ?? profile.jpeg.quality, optimizeCoding: true)
                case .png:
                    try settings.paletteBits.map {
                        try scaled.pngData(
                            compression: profile.png.compression, paletteBits: $0, quality: Self.pngPaletteQuality,
                            effort: Self.pngPaletteEffort)
                    } ?? scaled.pngData(compression: profile.png.compression)
                case .gif: try scaled.gifData(gifSettings(settings, repackOnly: repackOnly))
                }
            return Rendered(data: data, bytes: data.count, width: scaled.width, height: scaled.height)
        case .animation(let animation):
            let kept = animation.keepingEvery(settings.frameStep)
            let gif = try kept.gifAttempt(scale: settings.scale, gifSettings(settings, giveUpAbove: giveUpAbove, repackOnly: repackOnly))
            return Rendered(data: gif.attempt.data, bytes: gif.attempt.bytes, width: gif.width, height: gif.height, frames: kept.frameCount)
        }
    }

    /// The GIF saver's settings for an attempt: inter-frame optimisation and no dithering (see
    /// ``GIFSettings``), with the ladder's bounds (``BudgetLadder/giveUpBytes``,
    /// ``BudgetLadder/repackBytes``).
    /// libimagequant's target quality for a palette PNG (0…100: here the best it can do, the
    /// palette's size being the ladder's rung) and its effort (1…10, libvips' default 7).
    static let pngPaletteQuality = 100
    static let pngPaletteEffort = 7

    static func gifSettings(_ settings: EncodeSettings, giveUpAbove: Int? = nil, repackOnly: Range<Int>? = nil) -> GIFSettings {
        var gif = GIFSettings(
            paletteBits: settings.paletteBits ?? 8, interframeMaxError: settings.interframeMaxError ?? EncodeSettings.defaultInterframeMaxError)
        gif.giveUpAbove = giveUpAbove
        gif.repackOnly = repackOnly
        return gif
    }
}
