// Shared by PushMedia's GIF decoder (gif_read.c: frames drawn on a canvas, the libvips image)
// and its scan of the file (gif_read_scan.c: the blocks walked, the frames found), and by the
// readers that take frames straight from its canvas (gif_transcode.c, gif_proxies.c). Private to
// CGIFCodec.
#ifndef PUSHMEDIA_GIF_DECODER_H
#define PUSHMEDIA_GIF_DECODER_H

#include "CGIFCodec.h"
#include "gif_core.h"

#include <vips/vips.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// A frame as the scan found it.
typedef struct {
    size_t data;       // offset of the LZW minimum code size byte
    size_t table;      // offset of the local colour table (0: none)
    int entries;       // its entries
    int left, top, width, height;
    bool interlaced;
    int transparent;   // index, or -1
    int disposal;      // 0…3 (4 read as 3, as libnsgif does)
    int delay;         // milliseconds, as libvips' `delay` (the graphic control's × 10; 100 without one)
    size_t bytes;      // LZW data bytes (sub-block headers left out)
} gifd_frame;

/// A decode of one file: what the scan found (shared with every reader of the file: see
/// pm_gif_file), then the drawing state (under `lock`).
typedef struct {
    const unsigned char *file; // mapped
    size_t length;
    int width, height, count, bands;
    int loop;          // as libvips' `loop`: 1 without a loop extension, else its count + 1 (0: forever)
    gifd_frame *frames;
    uint32_t global[256], local[256], background;
    pm_gif_file *source; // the scan this reader draws from (a reference held); NULL in the scan itself

    GMutex lock;
    uint32_t *canvas;     // frame `shown` (after drawing it); -1: nothing drawn yet
    int shown;
    uint32_t *saved;      // the canvas before the last frame with disposal 3 was drawn
    bool has_saved;
    uint32_t *undo;       // frame `shown − 1` inside `undo_rect`, where `shown` differs from it
    VipsRect undo_rect;
    VipsRect dirty;       // where frames drawn since the caller last emptied it may differ
    unsigned char *indices; // a frame's indices (8 bytes spare: strings are copied 8 at a time)
    unsigned char *packed;  // a frame's LZW data without its sub-block headers (8 bytes spare)
    size_t max_bytes;
    gif_lzw_strings strings;
} gif_reader;

/// A GIF mapped and scanned once (pm_gif_open): `scan` holds what the scan found (its drawing
/// state unused); every reader of the file copies it and draws on its own canvas.
struct pm_gif_file {
    gint refs;
    gif_reader scan;
};

/// A reader of `file` (a reference taken; the canvas and buffers allocated, nothing read).
/// 0: *out (free with gifd_close); -1: a libvips error.
GIF_HIDDEN int gifd_open(pm_gif_file *file, gif_reader **out);
GIF_HIDDEN void gifd_close(gif_reader *r);
/// Brings r->canvas to frame `n` (RGBA words; forward from the frame shown, from the start for
/// an earlier one), widening r->dirty by every pixel the frames drawn may change (the whole
/// screen when it starts from frame 0). 0, or -1 with a libvips error.
GIF_HIDDEN int gifd_show(gif_reader *r, int n);
/// gifd_open for the direct readers of a cut (gif_transcode.c, gif_proxies.c); *area: the cut's
/// rectangle. The caller chose the cut from the file's size and frames (pm_gif_file_info): one
/// that is not a rectangle inside the screen of frames the file has, in increasing order, is
/// refused (-1 with a libvips error under `domain`), not left to libvips.
GIF_HIDDEN int gifd_open_cut(pm_gif_file *file, const pm_gif_cut *cut, gif_reader **out, VipsRect *area,
                              const char *domain);
/// Brings the canvas to the cut's k-th frame; *dirty: where it may differ, inside `area`, from
/// the frame shown before (all of `area` for the first). Past the cut's deadline, or when the
/// frame does not decode: -1 with a libvips error (`domain`: "frame N: time limit reached").
GIF_HIDDEN int gifd_show_cut(gif_reader *r, const pm_gif_cut *cut, const VipsRect *area, int k, VipsRect *dirty,
                              const char *domain);
/// Maps the file at `path` read-only into r->file (pages shared with the page cache, as libvips'
/// loader maps it). 0, or -1.
GIF_HIDDEN int gifd_map_file(const char *path, gif_reader *r);
GIF_HIDDEN void gifd_unmap_file(gif_reader *r);
/// Walks the mapped file's blocks without decoding pixels: the screen, the global table and
/// background, every frame up to `max_frames` (r->frames, r->count, r->max_bytes), the bands and
/// the loop count; *facts: the screen, and the frames found and their pixels, also past
/// `max_frames` and in a file left to libvips. 0: a file the decoder takes; 1: one it leaves to
/// libvips; 2: more than `max_frames` frames.
GIF_HIDDEN int gifd_scan(gif_reader *r, int max_frames, pm_gif_facts *facts);
/// `entries` RGB triples as opaque RGBA words (libnsgif's colour table entries).
GIF_HIDDEN void gifd_read_table(uint32_t *table, const unsigned char *rgb, int entries);

#endif
