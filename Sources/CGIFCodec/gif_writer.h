// Shared by the GIF writer (gif_write.c: the steps of a frame, the output), what changes and how
// a frame is disposed (gif_write_changes.c), a frame as written (gif_write_emit.c) and its
// palettes (gif_write_palette.c). Private to CGIFCodec.
#ifndef PUSHMEDIA_GIF_WRITER_H
#define PUSHMEDIA_GIF_WRITER_H

#include "CGIFCodec.h"
#include "gif_core.h"

#include <libimagequant.h>
#include <vips/vips.h>

/// A palette as written: opaque colours, and the index of a see-through entry if it has one.
typedef struct {
    int count;                // entries (at most 255, so one index is always free)
    unsigned char rgb[256][3];
    int see_through;          // an entry libimagequant made for alpha-0 pixels, or -1
    unsigned generation;      // which palette the nearest-colour memo was filled for
} gifw_palette;

/// A palette's opaque entries in order of r + g + b (ties in index order), and where each sum
/// starts: the nearest colour to a pixel is searched outwards from its own sum.
typedef struct {
    int count;
    int sum[256];
    unsigned char index[256];
    unsigned char rgb[256][3];
    short start[766]; // the first position whose sum is at least s
} gifw_by_sum;

/// A palette's opaque entries as lanes of 32-bit integers, for the vector search: padded to a
/// multiple of 8 with an entry farther from every colour than any real one.
typedef struct {
    int count; // with the padding
    int32_t r[256], g[256], b[256], index[256];
} gifw_lanes;

#define MEMO_BITS 16
#define MEMO_SIZE (1u << MEMO_BITS)

typedef struct {
    // Settings.
    double max_error;
    double max_palette_error;
    int max_colours;
    liq_attr *attr;
    // The image.
    int width, height, frames, bands;
    const int *delays;
    int delay_count;
    int loop;
    // Per frame.
    unsigned char *frame;     // RGBA, what the pipeline gives, alpha thresholded
    unsigned char *written;   // RGBA: the source colour last written at each pixel (0: none yet)
    unsigned char *shown;     // RGBA: the palette colour shown at each pixel (0: nothing)
    uint8_t *indices;
    unsigned char *changed;   // 1 where the frame writes the pixel
    unsigned char *packed;    // RGBA: the changed pixels, one after another, for libimagequant
    uint8_t *fill;       // a frame's indices with the pixels it leaves as shown filled in
    long *least;              // per row of a frame: the fewest breaks a filled-in one can have
    unsigned char *saved;     // RGBA × 2 (shown, then written) before the waiting frame was drawn,
                              // over its rectangle of changes; for disposal 3 (frames with alpha)
    VipsRect last_changes;    // the rectangle of the last frame's changed pixels
    int row;                  // rows of the current frame received
    int number;               // frames written
    // Giving up (pm_gif_settings.give_up_bytes, give_up_after_frames).
    size_t give_up_bytes;     // 0: never
    int give_up_after_frames;
    pm_deadline deadline;     // pm_gif_write's (the direct readers check their cut's)
    bool gave_up;
    // Palettes.
    gifw_palette global, previous, fresh;
    const gifw_palette *previous_used;
    unsigned generations;
    // The memo: colour (0x00RRGGBB) → index, for the palette of `memo_generation`.
    uint32_t *memo_colour;
    unsigned char *memo_index;
    unsigned memo_generation;
    // The same palette's opaque entries sorted by r + g + b, for the nearest-colour search.
    gifw_by_sum by_sum;
    int last_nearest;         // the index last found for that palette (-1: none yet)
    // The vector search (AVX2, where the processor has it): every entry at once, in lanes.
    bool vector_search;
    gifw_lanes lanes;
    // The frame prepared last, written once the next one says how it must be disposed (its
    // indices stay in `indices` until then).
    struct {
        bool waiting;
        int left, top, right, bottom;      // its rectangle (inclusive)
        VipsRect saved;                    // where w->saved holds what was shown before it
        int unchanged;                     // the index of pixels it leaves as shown
        bool transparent;                  // whether that index is see-through
        int centiseconds;
        const gifw_palette *palette;
    } pending;
    int emitted;                           // frames written out
    // Output.
    gif_buffer out;
    gif_lzw_table *lzw;
} gif_writer;

// gif_write.c
/// Starts a GIF of `frames` frames of width × height, from RGB (`bands` 3: alpha 255 in
/// w->frame) or RGBA pixels (4). The caller may set w->delays, w->delay_count and w->loop.
/// 0, or -1 with a libvips error; gifw_end in either case.
GIF_HIDDEN int gifw_begin(gif_writer *w, const pm_gif_settings *s, int width, int height, int frames, int bands);
/// Prepares `count` RGBA pixels just put in w->frame (alpha thresholded for 4 bands).
GIF_HIDDEN void gifw_take_pixels(gif_writer *w, unsigned char *rgba, size_t count);
/// Writes w->frame as the next frame. `dirty` (frame coordinates) must hold every pixel that
/// differs from the frame before; only there (and where the frame before left pixels apart
/// from the source) are changes looked for. 0; 2 when the GIF passed w->give_up_bytes with
/// frames still to write (w->gave_up; w->out holds what was written); -1 with a libvips error.
GIF_HIDDEN int gifw_write_frame(gif_writer *w, const VipsRect *dirty);
/// Ends the GIF: *gif (the caller frees it with free) holds *length bytes. 0, or -1.
GIF_HIDDEN int gifw_finish(gif_writer *w, unsigned char **gif, size_t *length);
/// What a writer that gave up (gifw_write_frame returned 2) reports: the bytes written by then,
/// with the trailer a finished GIF would end with.
GIF_HIDDEN size_t gifw_given_up_length(const gif_writer *w);
/// Frees what the writer holds.
GIF_HIDDEN void gifw_end(gif_writer *w);

// gif_write_changes.c
/// Marks the pixels the frame writes (w->changed) inside `scan` and returns their rectangle in
/// *changes; *clear gets the rectangle of the pixels that must turn see-through where something
/// is shown (empty when none). Outside `scan` nothing is marked (see gifw_write_frame).
GIF_HIDDEN void gifw_find_changes(gif_writer *w, const VipsRect *scan, VipsRect *changes, VipsRect *clear);
/// How the waiting frame must be disposed for the current one: 1 (left in place) when nothing
/// must turn see-through (`clear` empty), else 2 or 3, whichever leaves fewer pixels to draw.
GIF_HIDDEN int gifw_choose_disposal(gif_writer *w, const VipsRect *clear);
/// What the waiting frame's disposal leaves in w->shown and w->written (2: its rectangle grown
/// to hold `clear` cleared; 3: its rectangle restored); *scan grows to hold that rectangle. Call
/// once the frame is written (gifw_emit_pending).
GIF_HIDDEN void gifw_dispose(gif_writer *w, int disposal, const VipsRect *clear, VipsRect *scan);
/// Keeps what is shown in `rect` (the frame's rectangle of changes) before the frame is drawn,
/// for its disposal 3 (frames with alpha only).
GIF_HIDDEN void gifw_save_before(gif_writer *w, const VipsRect *rect);

// gif_write_emit.c
/// Writes the waiting frame with `disposal` (see gif_write_emit.c). 0; 2 when the GIF passed
/// give_up_bytes with frames still to write (w->gave_up); -1 on failure (no libvips error).
GIF_HIDDEN int gifw_emit_pending(gif_writer *w, int disposal, const VipsRect *clear);

// gif_write_palette.c
/// The palette for the current frame's changed pixels inside the rectangle (left, top, width,
/// height): the global one, the previous frame's, or a new one (see gif_write_palette.c). NULL
/// with a libvips error when quantising fails.
GIF_HIDDEN const gifw_palette *gifw_choose_palette(gif_writer *w, int left, int top, int width, int height);
/// The index of the palette colour nearest to `colour` (0x00RRGGBB), through the writer's memo.
GIF_HIDDEN int gifw_nearest(gif_writer *w, const gifw_palette *p, uint32_t colour);
/// Whether this processor runs the vector search (w->vector_search).
GIF_HIDDEN bool gifw_vector_search_available(void);
/// log2 of a palette's table size: room for its colours and the index for unchanged pixels.
GIF_HIDDEN int gifw_table_bits(const gifw_palette *p);
/// A palette's colour table, padded with black to 2^bits entries.
GIF_HIDDEN bool gifw_put_table(gif_buffer *out, const gifw_palette *p, int bits);

#endif
