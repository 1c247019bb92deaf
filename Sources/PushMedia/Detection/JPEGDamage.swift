import PushMediaModel

/// What libjpeg stepped over while it decoded a JPEG without an error, and PushMedia's rule over
/// it. libjpeg treats much damage as a warning and carries on: a scan whose compressed data
/// ends early (a header that promises more rows than the data holds, garbage that reads as a
/// marker) is filled with flat grey to its end, and the file "decodes". libvips' `fail_on`
/// levels cannot tell that from the harmless warnings many real photos carry (a camera's "N
/// extraneous bytes before marker 0xd9"): `truncated` and `error` let both through, `warning`
/// fails both. So the rule is PushMedia's: a JPEG with more than ``mostMissing`` of its rows
/// without data is damaged (`corrupt_input`); any other warning is harmless.
struct JPEGDamage: Equatable, Sendable {
    /// The image's size as its header gives it.
    var size: PixelSize
    /// The image's iMCU rows (libjpeg's rows of blocks, 8 or 16 pixels tall).
    var rows: Int
    /// The fewest iMCU rows any scan had compressed data for (``rows`` when none ended early).
    /// A progressive file's every scan counts: one that stops early leaves the rest of the image
    /// grey (its first scan) or blurred (a later one).
    var rowsWithData: Int
    /// How many warnings libjpeg gave.
    var warnings: Int
    /// The first of them in libjpeg's words, empty without one.
    var firstWarning: String

    /// The largest share of an image's rows that may be without data: a sliver along the bottom
    /// edge (a few pixels of a photo whose encoder stopped a block row short) stays usable; more
    /// is a visibly grey band, and a thumbnail of it is not what was sent.
    static let mostMissing = 0.02

    /// The share of the image's rows that had no data (0 when every scan was whole).
    var missingFraction: Double {
        rows > 0 ? Double(rows - min(rowsWithData, rows)) / Double(rows) : 0
    }

    /// Why the decode is not the image, or nil when what libjpeg stepped over is harmless.
    var problem: String? {
        guard missingFraction > Self.mostMissing else { return nil }
        let percent = Int((missingFraction * 100).rounded(.up))
        return
            "the compressed data ends before the image does: \(percent) % of its \(size.width)×\(size.height) pixels are missing (libjpeg: \(firstWarning))"
    }
}
