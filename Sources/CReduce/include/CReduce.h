// The still decode's Lanczos3 reductions of 8-bit pixels, in 14-bit fixed point with vector
// loops that give the plain loops' bytes: across a decoded image (libvips' reduceh has no
// vector path), an area of decoded pixels down then across, and a JPEG decoded by libjpeg and
// reduced as its rows come out. Which input pixels and weights make each output pixel comes
// from CResample. Which path a decode takes, and its sizes, are the caller's plan; these carry
// it out and refuse anything else.
#ifndef PUSHMEDIA_REDUCE_H
#define PUSHMEDIA_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "CDeadline.h"

/// libvips' image (vips/vips.h, through the CVips module): declared, not included, so that
/// libvips' declarations reach Swift from CVips alone.
typedef struct _VipsImage VipsImage;

/// The most a side may shrink in one of these reductions: beyond it the 14-bit weights round
/// to nothing (libvips box-shrinks first there).
#define PM_REDUCE_MOST 16

/// Horizontal Lanczos3 reduction of 8-bit pixels to `width` columns, into a new memory image,
/// shrinking by at most PM_REDUCE_MOST. `in` is read from memory.
/// allow_vector: 1 to use SSSE3 where the CPU has it (the same bytes as the plain C loop), 0 for
/// the plain C loop alone (tests compare the two). 0, or -1 with a libvips error.
int pm_reduce_width(VipsImage *in, VipsImage **out, int width, int allow_vector);

/// The area `left`, `top`, `width`×`height` of `in`, whose 8-bit pixels are in memory (decoded),
/// reduced to `out_width`×`out_height` (at most PM_REDUCE_MOST times smaller on a side) with
/// Lanczos3 into a new memory image: each output row summed down from the area's rows, then
/// across as pm_reduce_width does, on the calling thread. Stops with an error once `deadline`
/// passes. allow_vector 0 keeps to the plain C loops (the same bytes). Returns 0 and *out, or -1
/// with a libvips error (also when the pixels are not in memory).
int pm_reduce_area(VipsImage *in, int left, int top, int width, int height, int out_width, int out_height,
                   pm_deadline deadline, int allow_vector, VipsImage **out);

/// What libjpeg stepped over in a JPEG it decoded without an error: its warnings, and how much
/// of the image its compressed data covered. A scan whose data ends early (libjpeg meets a
/// marker, "premature end of data segment") is filled with grey to its end: `rows_with_data` is
/// the fewest iMCU rows (blocks of 8 or 16 pixel rows) any scan had data for, `rows` when none
/// ended early. Facts only: the caller decides what is damage.
typedef struct {
    /// The image's size as its header gives it (0 when the header was not read).
    int width, height;
    /// The image's iMCU rows (0 when the header was not read).
    int rows;
    /// The fewest iMCU rows any scan had compressed data for (at most `rows`).
    int rows_with_data;
    /// libjpeg's warnings (data it could not use and stepped over).
    int warnings;
    /// The first warning in libjpeg's words ("Corrupt JPEG data: ..."), empty without one.
    char first_warning[200];
} pm_jpeg_damage;

/// Decodes the JPEG behind `fd` (read with pread, the descriptor's position untouched) with
/// libjpeg's DCT scaled by 1/`shrink` (1, 2, 4 or 8) and reduces it to `out_width`×`out_height`
/// (at most PM_REDUCE_MOST times smaller on a side; Lanczos3: each row summed down from the
/// decoded rows as they come, then across as pm_reduce_width does) into memory, with the fields
/// of `like`: the same JPEG opened by libvips' loader with that shrink (its header only: 8-bit,
/// one or three bands). Stops with an error once `deadline` passes, also while a progressive
/// file's scans are decoded. allow_vector 0 keeps to the plain C loops (the same bytes).
/// Returns 0 and *out; 1 when libjpeg makes of the file something else than `like` says (another
/// size or colour space): libvips' path must decode it; -1 with the reason in message (a damaged
/// or truncated file, the time ran out, arguments outside the above). *damage (when not NULL)
/// holds what libjpeg stepped over until it stopped.
int pm_jpeg_decode_reduced(int fd, const VipsImage *like, int shrink, int out_width, int out_height,
                           pm_deadline deadline, int allow_vector, VipsImage **out, pm_jpeg_damage *damage,
                           char *message, size_t message_size);

/// Entropy-decodes every scan of the JPEG behind `fd` (pread, the position untouched; pixels at
/// 1/8 scale and thrown away) only to fill *damage, as pm_jpeg_decode_reduced would. The same
/// errors: 0, or -1 with the reason in message (truncated, broken structure, the time ran out).
int pm_jpeg_scan_damage(int fd, pm_deadline deadline, pm_jpeg_damage *damage, char *message, size_t message_size);

/// A Lanczos3 reduction of 4-byte pixels (RGBA words, each band reduced alone) from
/// `width`×`height` to `out_width`×`out_height` (at most PM_REDUCE_MOST times smaller on a side;
/// a side that keeps its size is copied), computed a rectangle at a time: for frames of which
/// only a part changes, only the output pixels that part reaches are computed again. The weights
/// are pm_reduce_area's, down then across, so the bytes are its bytes for the same pixels.
typedef struct pm_reduce_plan pm_reduce_plan;
/// NULL when the sizes are outside the above (no libvips error: the caller checks first with
/// pm_reduce_plan_fits). allow_vector 0 keeps to the plain C loops (the same bytes).
pm_reduce_plan *pm_reduce_plan_new(int width, int height, int out_width, int out_height, int allow_vector);
void pm_reduce_plan_free(pm_reduce_plan *plan);
/// Whether pm_reduce_plan_new takes these sizes.
int pm_reduce_plan_fits(int width, int height, int out_width, int out_height);
/// The output rectangle (*out_left, *out_top, *out_width, *out_height) whose pixels read any
/// input pixel of the rectangle `left`, `top`, `width`×`height` (empty: all zero).
void pm_reduce_plan_reach(const pm_reduce_plan *plan, int left, int top, int width, int height, int *out_left,
                          int *out_top, int *out_width, int *out_height);
/// The output rectangle `left`, `top`, `width`×`height` computed from the input `in` (rows
/// `in_stride` pixels apart) into `out` (rows `out_stride` pixels apart, the same rectangle
/// of it).
void pm_reduce_plan_rect(pm_reduce_plan *plan, const uint32_t *in, size_t in_stride, uint32_t *out, size_t out_stride,
                         int left, int top, int width, int height);

#endif
