// PushMedia's GIF codec: a decoder (the pixels libvips' gifload makes, each frame costing its
// own rectangle), a writer (only what changes is quantised, mapped and written), the two joined
// with nothing in between (a cut of a file written again, or shrunk into proxies), and a
// lossless re-packing pass over a written GIF (giflib). Errors are libvips' (vips_error) unless
// a function says otherwise. The settings, bounds and deadlines are the caller's: nothing here
// decides how hard to try or when to stop.
#ifndef PUSHMEDIA_GIF_CODEC_H
#define PUSHMEDIA_GIF_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "CDeadline.h"

/// libvips' image (vips/vips.h, through the CVips module): declared, not included, so that
/// libvips' declarations reach Swift from CVips alone.
typedef struct _VipsImage VipsImage;

// ---- decoding -------------------------------------------------------------------------------

/// A GIF that PushMedia's decoder takes, mapped and its blocks walked once (gif_read_scan.c):
/// every reader of it (pm_gif_load's image, pm_gif_transcode, pm_gif_proxies) draws from this
/// one scan on a canvas of its own, so a file is opened once per item whatever reads it.
/// Reference-counted; readers hold their own reference (an image from pm_gif_load keeps it
/// open until it closes). Immutable once open: readers on several threads need no lock.
typedef struct pm_gif_file pm_gif_file;
/// What a scan learns of a GIF before any pixel is decoded, whether or not the decoder takes it:
/// the facts the caller's limits are checked against.
typedef struct {
    /// The logical screen as the file declares it (libnsgif replaces some sizes; see
    /// gif_read_scan.c).
    int screen_width, screen_height;
    /// Image descriptors found with data, as far as the blocks could be followed (all of them,
    /// past the frame limit too).
    long frames;
    /// The pixels of those frames' own rectangles: what decoding every frame once costs.
    double coded_pixels;
} pm_gif_facts;
/// Opens and scans the GIF at `path`, keeping at most `max_frames` frames; *facts is filled in
/// whatever the result (zeros when the file cannot be read). 0: *out (release with
/// pm_gif_file_unref); 1: a file the decoder does not take (a frame outside the picture, a
/// malformed or truncated block, a size libnsgif changes): use libvips; 2: more than `max_frames`
/// frames (facts->frames says how many); -1: a libvips error (it cannot be read).
int pm_gif_open(const char *path, int max_frames, pm_gif_file **out, pm_gif_facts *facts);
void pm_gif_file_unref(pm_gif_file *file);
/// What the scan found, as libvips' gifload (n=-1) reports it: the screen (a frame's size),
/// the frames, the bands (3, or 4 when a frame has a transparent index) and `loop` (1 without
/// a loop extension, else its count + 1; 0 forever).
typedef struct {
    int width, height, frames, bands, loop;
} pm_gif_info;
void pm_gif_file_info(const pm_gif_file *file, pm_gif_info *info);
/// Each frame's delay in milliseconds as libvips' `delay` (the graphic control's × 10; 100
/// without one), into delays[0 … frames − 1].
void pm_gif_file_delays(const pm_gif_file *file, int *delays);
/// PushMedia's GIF decoder (gif_read.c): `file` as libvips' gifload makes it with n=-1 (frames
/// stacked top to bottom, `page-height`, `n-pages`, `delay` and `loop`; RGB, or RGBA when a frame
/// has a transparent index; the same pixels), decoded lazily a frame at a time, each frame
/// costing only its own rectangle. 0: *out (holding a reference to `file`); -1: a libvips error.
int pm_gif_load(pm_gif_file *file, VipsImage **out);

// ---- writing --------------------------------------------------------------------------------

/// How PushMedia's writer writes a GIF (undithered).
typedef struct {
    /// 2^bitdepth colours.
    int bitdepth;
    /// libimagequant's effort, 1…10.
    int effort;
    /// Pixels that differ from the previous frame by at most this are written transparent, so
    /// unchanged areas cost almost nothing (0: every pixel written).
    double interframe_maxerror;
    /// Keep the previous frame's palette while its error stays within interpalette_maxerror.
    int reuse;
    double interpalette_maxerror;
    /// Once the GIF passes this many bytes (0: never) with at least give_up_after_frames frames
    /// written and one still to write, the writer stops and returns 2 with *length the bytes
    /// written and the trailer (more than the bound, no more than the whole GIF) and no bytes.
    size_t give_up_bytes;
    int give_up_after_frames;
} pm_gif_settings;

/// PushMedia's GIF writer (gif_write.c): an animation of 8-bit sRGB frames, 3 or 4 bands (frames
/// stacked vertically, page-height, delay and loop set on the image; anything else fails), read
/// a frame at a time: per frame only the pixels that moved beyond interframe_maxerror get a
/// palette (their own colours when at most 2^bitdepth − 1, else libimagequant's), are mapped to
/// the nearest palette colour and written; the global palette (the first frame's) or the
/// previous frame's is kept when it holds those colours or is within interpalette_maxerror (0
/// when reuse is off). Where a pixel must turn see-through, the frame before is disposed (2 or
/// 3, whichever leaves less to draw) and what stays is drawn again, so every frame shows its
/// source's transparency; pixels a frame leaves as shown are written see-through or as the
/// colour shown, whichever codes shorter (gif_write_emit.c). Stops with an error once
/// `deadline` passes (each frame is computed under it). 0: *gif (free with free) holds *length
/// bytes; 2: given up (give_up_bytes), *length the bytes written; -1: a libvips error.
int pm_gif_write(VipsImage *in, const pm_gif_settings *settings, pm_deadline deadline, unsigned char **gif,
                 size_t *length);

// ---- a file's frames straight from the decoder ----------------------------------------------

/// What pm_gif_transcode writes: the rectangle (left, top, width, height) of every frame, at
/// its own size, of the source frames `frames` (`count` of them, in increasing order), each
/// shown for `delays` milliseconds, looping `loop` times (0 forever, as libvips' `loop`).
typedef struct {
    int left, top, width, height;
    const int *frames;
    const int *delays;
    int count;
    int loop;
    /// When it stops with an error.
    pm_deadline deadline;
    /// The size each frame's rectangle is reduced to (Lanczos3, CReduce's pm_reduce_plan: at
    /// most PM_REDUCE_MOST times smaller a side, no side larger); 0 × 0: its own size.
    int out_width, out_height;
} pm_gif_cut;
/// `file` cut and written again by PushMedia's decoder and writer with nothing in between
/// (gif_transcode.c): the writer reads each frame from the decoder's canvas, and only where the
/// frames drawn since the one before may differ. The same bytes as pm_gif_write of
/// pm_gif_load's image cut the same way, at a fraction of the cost for frames that change
/// little. A cut with an output size is reduced to it as pm_gif_reduced reduces it, only the
/// output pixels that the changed ones reach computed again. The caller chooses the cut from pm_gif_file_info: a rectangle inside the screen, of
/// frames the file has, in increasing order (anything else fails). 0: *gif (free with free)
/// holds *length bytes; 2: given up (give_up_bytes), *length the bytes written; -1: a libvips
/// error (a frame that does not decode, the deadline, a cut outside the file).
int pm_gif_transcode(pm_gif_file *file, const pm_gif_cut *cut, const pm_gif_settings *settings, unsigned char **gif,
                     size_t *length);
/// Small copies of the frames `cut` names (its delays, loop and output size unused), straight from
/// PushMedia's decoder (gif_proxies.c): each frame's cut box-averaged by `factor` (1: as it is),
/// the same pixels as libvips' vips_shrink (round(size / factor) a side, which the caller keeps
/// at a pixel at least), stacked top to bottom in memory. The cut as pm_gif_transcode's.
/// 0: *out; -1: a libvips error.
int pm_gif_proxies(pm_gif_file *file, const pm_gif_cut *cut, int factor, VipsImage **out);
/// The frames `cut` names (its delays and loop unused), each one's rectangle reduced to the
/// cut's output size (Lanczos3, pm_reduce_plan; alpha weighted: a see-through pixel lends no
/// colour to its neighbours), stacked top to bottom in memory: frames × that size, so for a
/// few frames. 3 bands, or 4 (alpha not thresholded) as the file's. 0: *out; -1: a libvips error
/// (also for an output size pm_reduce_plan does not take).
int pm_gif_reduced(pm_gif_file *file, const pm_gif_cut *cut, VipsImage **out);

// ---- re-packing -----------------------------------------------------------------------------

/// A lossless second pass over a GIF (giflib, gif_repack.c): each frame cut to the pixels that
/// change what is shown, unchanged ones inside kept, transparent or the colour already shown
/// (whichever is smallest), the global palette ordered for narrow LZW codes, and a small
/// local colour table for a frame of few colours. Every frame shows exactly what it did.
/// Frames disposed to see-through (2, with a transparent index) keep their rectangle; frames
/// restored to what was shown before them (3) are cut like the others. Errors are its return
/// values, not libvips':
/// 0: *repacked (free with free) is smaller; 1: keep the input (nothing smaller, or something it
/// does not re-pack: interlaced frames, disposal 2 without a transparent index, a first frame
/// restored (3) or smaller than the screen, two graphics controls before one image, indices
/// outside the table, over 16 MP); -1: giflib could not read it.
int pm_gif_repack(const unsigned char *gif, size_t length, unsigned char **repacked, size_t *repacked_length);

#endif
