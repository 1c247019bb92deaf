import Foundation

/// How a GIF is written: PushMedia's writer (`pm_gif_write`: only the pixels that change are
/// quantised, mapped and written), or libvips' cgif saver when the settings dither (it maps every
/// pixel of every frame); both read the image a frame at a time. Then re-packed losslessly
/// (``GIFRepack``) where ``repacks(_:)`` says so. Every value the writer uses is here.
struct GIFSettings: Equatable, Sendable {
    /// libimagequant's effort when nothing else is asked (1…10, libvips' default 7). Quantising
    /// every frame of both variants, and again on each rung of the budget ladder, was half of an
    /// animation's time; at 3 it is much faster for a barely visible loss.
    static let defaultEffort = 3

    /// 2^bits colours.
    var paletteBits: Int
    /// libimagequant's effort (1…10).
    var effort = GIFSettings.defaultEffort
    /// Dithering, 0…1. Dithered noise changes every pixel of every frame and defeats the
    /// inter-frame optimisation, so PushMedia does not dither by default.
    var dither = 0.0
    /// Pixels that differ from the previous frame by at most this (0…32) are written
    /// transparent: unchanged areas cost almost nothing.
    var interframeMaxError = EncodeSettings.defaultInterframeMaxError
    /// Keep the previous frame's palette while it fits within ``interpaletteMaxError``.
    var reusePalette = true
    var interpaletteMaxError = 3.0
    /// Re-pack the writer's output losslessly (``GIFRepack``).
    var repack = true
    /// Re-pack only a GIF of these sizes (``BudgetLadder/repackBytes``: over the ladder's limit,
    /// by little enough that the pass may bring it under; empty: none); nil: every one.
    var repackOnly: Range<Int>?
    /// PushMedia's writer stops once the GIF passes this many bytes with ``giveUpAfterFrames``
    /// frames written and one still to write (``GIFAttempt/gaveUp(bytesWritten:)``); nil: it
    /// always finishes (``BudgetLadder/giveUpBytes``).
    var giveUpAbove: Int?
    var giveUpAfterFrames = BudgetLadder.giveUpAfterFrames

    /// Whether libvips' saver writes it (PushMedia's writer does not dither).
    var dithers: Bool { dither > 0 }

    /// These settings with no bound: the writer always finishes.
    var unbounded: GIFSettings {
        var settings = self
        settings.giveUpAbove = nil
        return settings
    }

    /// Whether the writer's GIF of `bytes` is re-packed.
    func repacks(_ bytes: Int) -> Bool { repack && (repackOnly?.contains(bytes) ?? true) }

    /// Full dithering, every pixel of every frame written, a palette per frame: libvips' saver
    /// as it is, kept to measure against.
    static func dithered(paletteBits: Int) -> GIFSettings {
        GIFSettings(paletteBits: paletteBits, dither: 1, interframeMaxError: 0, reusePalette: false, repack: false)
    }
}

/// What writing a GIF under a byte bound (``GIFSettings/giveUpAbove``) gives.
enum GIFAttempt: Equatable {
    /// The GIF, finished (and re-packed unless the settings say otherwise).
    case gif(Data)
    /// Given up part way, past the bound: the bytes written by then, more than the bound and no
    /// more than the whole GIF would have had before re-packing. Not an extrapolation: one
    /// costly early frame would make that many times too high, and a budget ladder predicting
    /// from it would skip rungs that fit.
    case gaveUp(bytesWritten: Int)

    /// The GIF, or nil when given up.
    var data: Data? {
        if case .gif(let data) = self { data } else { nil }
    }

    /// The GIF's length, or the bytes written by then when given up (a lower bound of it).
    var bytes: Int {
        switch self {
        case .gif(let data): data.count
        case .gaveUp(let written): written
        }
    }

    /// The GIF of a writer given no bound (``GIFSettings/unbounded``), which always finishes.
    var wholeGIF: Data {
        guard case .gif(let data) = self else { preconditionFailure("a writer with no bound gave up") }
        return data
    }
}

extension GIFAttempt {
    /// This attempt as the settings finish it: a GIF re-packed (``GIFRepack``) when
    /// ``GIFSettings/repacks(_:)`` says so, anything else as it is.
    func finished(_ settings: GIFSettings) -> GIFAttempt {
        guard case .gif(let data) = self, settings.repacks(data.count) else { return self }
        return .gif(GIFRepack.smallest(data))
    }
}

extension Vips.Image {
    /// This animation (frames stacked, with their timing) as a GIF with `settings`, finished
    /// (``GIFAttempt/finished(_:)``); it always finishes.
    func gifData(_ settings: GIFSettings, until deadline: Deadline? = nil) throws -> Data {
        try gifAttempt(settings.unbounded, until: deadline).wholeGIF
    }

    /// ``gifData(_:until:)``, given up part way when PushMedia's writer passes
    /// ``GIFSettings/giveUpAbove`` (libvips' saver, when dithering, always finishes).
    func gifAttempt(_ settings: GIFSettings, until deadline: Deadline? = nil) throws -> GIFAttempt {
        let frames = try srgb8()
        let written = settings.dithers ? .gif(try frames.savedGIF(settings)) : try frames.writtenGIF(settings, until: deadline)
        return written.finished(settings)
    }

    /// An animated GIF with 2^bits colours and the default ``GIFSettings``.
    func gifData(paletteBits: Int) throws -> Data {
        try gifData(GIFSettings(paletteBits: paletteBits))
    }
}
