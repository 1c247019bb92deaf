import CGIFCodec
import Foundation

/// A lossless second pass over the GIFs PushMedia writes (`pm_gif_write`, or libvips' cgif saver), with giflib
/// (`pm_gif_repack`): each frame is cut to the pixels that change what is shown, unchanged ones
/// inside it are kept, made transparent or written as the colour already shown, whichever is
/// smallest, the global palette is reordered so later
/// frames use low indices (their LZW codes start narrower), and a frame of few colours may get a
/// small local palette. Every frame shows exactly the pixels it showed before. The budget ladder
/// runs it only on an attempt just over its limit (``BudgetLadder/repackBytes``).
enum GIFRepack {
    /// The smaller of `gif` and its re-packed form. A GIF the pass does not handle (interlaced
    /// frames, a frame disposed to the background without a transparent index, a first frame
    /// restored to the previous or smaller than the screen, two graphics controls before one
    /// image, indices outside the palette, over 16 MP) or cannot read comes back as it is: the
    /// pass only ever saves bytes, so it never fails an item.
    static func smallest(_ gif: Data) -> Data {
        gif.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Data in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return gif }
            var repacked: UnsafeMutablePointer<UInt8>?
            var length = 0
            guard pm_gif_repack(base, raw.count, &repacked, &length) == 0, let repacked else { return gif }
            return Data(bytesNoCopy: repacked, count: length, deallocator: .free)
        }
    }
}
