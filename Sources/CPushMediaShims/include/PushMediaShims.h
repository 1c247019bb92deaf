// Non-variadic C entry points for what Swift cannot call directly: libvips' variadic operations
// (optional arguments are NULL-terminated varargs) and FFmpeg's function-like macros.
// Every function returns 0 on success and -1 on failure, with the library's message in its
// error buffer (see pm_vips_error_take).
#ifndef PUSHMEDIA_SHIMS_H
#define PUSHMEDIA_SHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <vips/vips.h>
#include <libavutil/error.h>

// ---- libvips set-up -------------------------------------------------------------------------

/// vips_init plus PushMedia's process-wide settings; safe to call more than once (runs once).
int pm_vips_startup(const char *argv0);
/// Takes the text of vips' error buffer and clears it. Free with g_free. Never NULL.
char *pm_vips_error_take(void);

// ---- loading --------------------------------------------------------------------------------

/// The image formats PushMedia loads, each with its own libvips loader (vips_loaders.c).
typedef enum {
    PM_LOADER_JPEG = 0,
    PM_LOADER_PNG = 1,
    PM_LOADER_GIF = 2,
    PM_LOADER_WEBP = 3,
    PM_LOADER_HEIF = 4, ///< HEIC and AVIF (libheif)
    PM_LOADER_TIFF = 5,
} pm_image_loader;

/// Blocks every libvips loader but PushMedia's six (and libvips' "untrusted" operations).
/// Called once by pm_vips_startup.
void pm_vips_block_loaders(void);
/// Points VIPSHOME at a prefix without modules unless the environment sets it (what
/// pm_vips_startup does first), so that a caller can do it on its main thread, before other
/// threads read the environment.
void pm_vips_set_environment(void);
/// Opens libvips' HEIF module if PushMedia loads it itself and has not yet (once per process,
/// thread-safe); the HEIF loaders call it, so a process that meets no HEIF or AVIF file never
/// maps libheif and its codecs.
void pm_vips_load_heif(void);
/// 1 when the operation (e.g. "svgload_buffer") is blocked, 0 when it may run, -1 when libvips
/// has no such operation.
int pm_vips_operation_blocked(const char *nickname);
/// Opens an image with the given loader (never libvips' guess), reading only its header;
/// pixels come on demand, sequentially. fail_on: a VipsFailOn value. n: pages for GIF and WebP
/// (1, or -1 for all; TIFF and HEIF always give their first or primary image). shrink: JPEG's
/// shrink-on-load (1, 2, 4, 8) or WebP's scale (1/shrink, any factor >= 1); other loaders ignore it.
VipsImage *pm_load_source(VipsSource *source, pm_image_loader loader, int fail_on, int n, double shrink);
/// Opens an image held in memory with the given loader (cover art, re-reading outputs).
VipsImage *pm_load_buffer(const void *buf, size_t len, pm_image_loader loader);
/// vips_thumbnail_image on an image opened with pm_load_source: auto-orient, colour-manage to
/// sRGB (colour_manage: through the ICC profile, for tagged or CMYK images), downsize only to fit
/// width x height; every page of a multi-page image is resized (page-height kept in step).
int pm_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height, int colour_manage);

/// Makes evaluation of `image` (and of everything computed from it) stop with an error once
/// g_get_monotonic_time() passes deadline_us: libvips' eval signal sets the kill flag.
void pm_image_set_deadline(VipsImage *image, gint64 deadline_us);

// ---- operations -----------------------------------------------------------------------------

int pm_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space);
int pm_cast(VipsImage *in, VipsImage **out, VipsBandFormat format);
int pm_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height);
int pm_extract_band(VipsImage *in, VipsImage **out, int band, int n);
/// libvips' vertical Lanczos3 reduction to `height` rows (its liborc vector path).
int pm_reduce_height(VipsImage *in, VipsImage **out, int height);
/// Horizontal Lanczos3 reduction of 8-bit pixels to `width` columns, into a new memory image
/// (vips_reduce.c: libvips 8.14's reduceh has no vector path), shrinking by at most 16. `in` is
/// read from memory.
/// allow_vector: 1 to use SSSE3 where the CPU has it (the same bytes as the plain C loop), 0 for
/// the plain C loop alone (tests compare the two).
int pm_reduce_width(VipsImage *in, VipsImage **out, int width, int allow_vector);
/// The area `left`, `top`, `width`×`height` of `in`, whose 8-bit pixels are in memory (decoded),
/// reduced to `out_width`×`out_height` (at most 16 times smaller on a side) with Lanczos3 into a
/// new memory image: each output row summed down from the area's rows, then across as
/// pm_reduce_width does, on the calling thread (the JPEG path's two passes on decoded pixels).
/// Stops with an error once `remaining_ns` have passed (0: no limit; below 0: at once).
/// allow_vector 0 keeps to the plain C loops (the same bytes). Returns 0 and *out, or -1 with a
/// libvips error (also when the pixels are not in memory).
int pm_reduce_area(VipsImage *in, int left, int top, int width, int height, int out_width, int out_height,
                   int64_t remaining_ns, int allow_vector, VipsImage **out);
/// Decodes the JPEG behind `fd` (read with pread, the descriptor's position untouched) with
/// libjpeg's DCT scaled by 1/`shrink` (1, 2, 4 or 8) and reduces it to `out_width`×`out_height`
/// (Lanczos3: each row summed down from the decoded rows as they come, then across as
/// pm_reduce_width does) into memory, with the fields of `like`: the same JPEG opened by libvips'
/// loader with that shrink (its header only). Stops with an error once `remaining_ns` have passed
/// (0: no limit; below 0: at once), also while a progressive file's scans are decoded. allow_vector 0 keeps to the plain C loops (the same bytes). Returns 0 and *out;
/// 1 when libvips' path must decode it (not 8-bit RGB or grey as `like` says, a shrink of more
/// than 16 on a side); -1 with the reason in message (a damaged or truncated file, the time ran
/// out).
int pm_jpeg_decode_reduced(int fd, const VipsImage *like, int shrink, int out_width, int out_height,
                           int64_t remaining_ns, int allow_vector, VipsImage **out, char *message, size_t message_size);
/// Turns the image upright by its EXIF orientation and drops the tag (vips_autorot).
int pm_autorot(VipsImage *in, VipsImage **out);
/// Resize by hscale, vscale; `kernel` does the whole reduction down to 1/16 (box pre-shrink below).
int pm_resize(VipsImage *in, VipsImage **out, double hscale, double vscale, VipsKernel kernel);
/// Box shrink by whole factors (vips_shrink): each output pixel the mean of a factor × factor block.
int pm_shrink(VipsImage *in, VipsImage **out, int hshrink, int vshrink);
/// libvips' resize with its defaults (Lanczos3, box pre-shrink with gap 2), the call
/// vips_smartcrop's attention makes its 32x32 map with.
int pm_resize_default(VipsImage *in, VipsImage **out, double hscale, double vscale);
/// Smartcrop returning the crop and the attention centre it used.
int pm_smartcrop(VipsImage *in, VipsImage **out, int width, int height,
                 VipsInteresting interesting, int *attention_x, int *attention_y);
int pm_min(VipsImage *in, double *out);
int pm_deviate(VipsImage *in, double *out);
/// Makes frame `index` of an animation: a new reference, or NULL with a libvips error set.
typedef VipsImage *(*pm_frame_maker)(int index, void *context);
/// `count` frames of one size stacked top to bottom, each made by `make` when its rows are first
/// read and released when reading moves on (vips_frames.c), so memory holds one frame's pipeline
/// per thread, whatever the count. Frame 0 is made at once. `release(context)` runs when the
/// image is freed (or at once on failure).
int pm_join_frames(int count, pm_frame_maker make, void *context, void (*release)(void *context), VipsImage **out);
/// Sets libvips' error (for errors raised while making a frame).
void pm_vips_error(const char *domain, const char *message);
/// A new header around the same pixels, so metadata can be set without touching the input.
int pm_copy(VipsImage *in, VipsImage **out);
/// Rotates by a multiple of 90° clockwise.
int pm_rot(VipsImage *in, VipsImage **out, VipsAngle angle);
/// Reads one pixel; values is caller-allocated with room for max_bands doubles.
int pm_getpoint(VipsImage *in, int x, int y, double *values, int max_bands, int *n);

/// Seeded RGB noise (sRGB, 8-bit): worst-case content for budgets and timeouts in tests and
/// benchmarks.
int pm_noise_rgb(VipsImage **out, int width, int height, double sigma, int seed);

// ---- saving ---------------------------------------------------------------------------------

int pm_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality,
                       int optimize_coding, int interlace);
/// palette: quantize with libimagequant to 2^bitdepth colours.
int pm_pngsave_buffer(VipsImage *in, void **buf, size_t *len, int compression,
                      int palette, int bitdepth);

/// GIF settings: PushMedia's writer (pm_gif_write) and libvips 8.14's gifsave (cgif).
typedef struct {
    /// 2^bitdepth colours.
    int bitdepth;
    /// libimagequant's effort, 1…10.
    int effort;
    /// Dithering, 0 (none) … 1 (full Floyd–Steinberg).
    double dither;
    /// Pixels that differ from the previous frame by at most this are written transparent, so
    /// unchanged areas cost almost nothing (0: every pixel written).
    double interframe_maxerror;
    /// Keep the previous frame's palette while its error stays within interpalette_maxerror.
    int reuse;
    double interpalette_maxerror;
    /// PushMedia's writer only (0: never): once the GIF passes this many bytes with frames still
    /// to write (two written at least), it stops and returns 2 with *length the bytes written
    /// and the trailer (more than the bound, no more than the whole GIF) and no bytes. A budget
    /// ladder's attempt far over its limit need not be finished.
    size_t give_up_bytes;
} pm_gif_settings;

/// Animated GIF (frames stacked vertically, page-height, delay and loop set on the image).
/// cgif reads the image a frame at a time, so a lazy input is never held whole.
int pm_gifsave_buffer(VipsImage *in, void **buf, size_t *len, const pm_gif_settings *settings);
/// A GIF that PushMedia's decoder takes, mapped and its blocks walked once (gif_read_scan.c):
/// every reader of it (pm_gif_load's image, pm_gif_transcode, pm_gif_proxies) draws from this
/// one scan on a canvas of its own, so a file is opened once per item whatever reads it.
/// Reference-counted; readers hold their own reference (an image from pm_gif_load keeps it
/// open until it closes). Immutable once open: readers on several threads need no lock.
typedef struct pm_gif_file pm_gif_file;
/// Opens and scans the GIF at `path`. 0: *out (release with pm_gif_file_unref); 1: a file the
/// decoder does not take (a frame outside the picture, a malformed or truncated block, a size
/// libnsgif changes): use libvips; -1: a libvips error (it cannot be read).
int pm_gif_open(const char *path, pm_gif_file **out);
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
/// PushMedia's GIF writer (gif_write.c), for the same image and settings without dithering:
/// per frame only the pixels that moved beyond interframe_maxerror get a palette (their own
/// colours when at most 2^bitdepth − 1, else libimagequant's), are mapped to the nearest palette
/// colour and written; the global palette (the first frame's) or the previous frame's is kept
/// when it holds those colours or is within interpalette_maxerror (0 when reuse is off). Where a
/// pixel must turn see-through, the frame before is disposed (2 or 3, whichever leaves less to
/// draw) and what stays is drawn again, so every frame shows its source's transparency; pixels
/// a frame leaves as shown are written see-through or as the colour shown, whichever codes
/// shorter (gif_write_emit.c). Reads a frame at a time. 0: *gif (free with free) holds *length
/// bytes; 2: given up (give_up_bytes), *length the bytes written; -1: a libvips error.
int pm_gif_write(VipsImage *in, const pm_gif_settings *settings, unsigned char **gif, size_t *length);
/// For the test of the writer's nearest-colour search: `palettes` palettes (`counts[k]` RGB
/// colours from rgb + k × 768, `see_through[k]` the index never chosen or -1), each in turn; every
/// colour (0x00RRGGBB) of `colours` is mapped under each, and compared with a scan of every entry
/// in index order (the nearest, the lowest index among equals). `vector`: 1 the vector search
/// (AVX2), 0 the search outwards by r + g + b. Returns how many differ; -1 when out of memory, -2
/// when this processor has no AVX2 for the vector search.
int pm_gif_nearest_mismatches(const unsigned char *rgb, const int *counts, const int *see_through, int palettes,
                              const uint32_t *colours, int colour_count, int vector);
/// For the test of the writer's quantiser: how many threads libimagequant's OpenMP regions
/// would use on the calling thread (the writer sets 1 where it quantises); -1 when libgomp is
/// not loaded.
int pm_gif_quantiser_threads(void);
/// What pm_gif_transcode writes: the rectangle (left, top, width, height) of every frame, at
/// its own size, of the source frames `frames` (`count` of them, in increasing order), each
/// shown for `delays` milliseconds, looping `loop` times (0 forever, as libvips' `loop`).
typedef struct {
    int left, top, width, height;
    const int *frames;
    const int *delays;
    int count;
    int loop;
    /// g_get_monotonic_time() at which it stops with an error (0: never).
    gint64 deadline;
} pm_gif_cut;
/// `file` cut and written again by PushMedia's decoder and writer with nothing in between
/// (gif_transcode.c): the writer reads each frame from the decoder's canvas, and only where the
/// frames drawn since the one before may differ. The same bytes as pm_gif_write of
/// pm_gif_load's image cut the same way, at a fraction of the cost for frames that change
/// little. The caller chooses the cut from pm_gif_file_info: a rectangle inside the screen, of
/// frames the file has, in increasing order (anything else fails). 0: *gif (free with free)
/// holds *length bytes; 2: given up (give_up_bytes), *length the bytes written; -1: a libvips
/// error (a frame that does not decode, the deadline, a cut outside the file).
int pm_gif_transcode(pm_gif_file *file, const pm_gif_cut *cut, const pm_gif_settings *settings, unsigned char **gif,
                     size_t *length);
/// Small copies of the frames `cut` names (its delays and loop unused), straight from
/// PushMedia's decoder (gif_proxies.c): each frame's cut box-averaged by `factor` (1: as it is),
/// the same pixels as libvips' vips_shrink (round(size / factor) a side, which the caller keeps
/// at a pixel at least), stacked top to bottom in memory. The cut as pm_gif_transcode's.
/// 0: *out; -1: a libvips error.
int pm_gif_proxies(pm_gif_file *file, const pm_gif_cut *cut, int factor, VipsImage **out);
/// A lossless second pass over a GIF (giflib, gif_repack.c): each frame cut to the pixels that
/// change what is shown, unchanged ones inside kept, transparent or the colour already shown
/// (whichever is smallest), the global palette ordered for narrow LZW codes, and a small
/// local colour table for a frame of few colours. Every frame shows exactly what it did.
/// Frames disposed to see-through (2, with a transparent index) keep their rectangle; frames
/// restored to what was shown before them (3) are cut like the others.
/// 0: *repacked (free with free) is smaller; 1: keep the input (nothing smaller, or something it
/// does not re-pack: interlaced frames, disposal 2 without a transparent index, a first frame
/// restored (3) or smaller than the screen, two graphics controls before one image, indices
/// outside the table, over 16 MP); -1: giflib could not read it.
int pm_gif_repack(const unsigned char *gif, size_t length, unsigned char **repacked, size_t *repacked_length);
/// Tests: whether PushMedia's LZW encoder (gif_lzw.c) writes for `width` × `height` indices
/// (each below 2^bits, 2…8) exactly the bytes giflib's encoder writes. 0 the same; 2 it gave up
/// at `limit` bytes (within a sub-block past it) having written the same bytes until then; 1
/// not; -1 failed.
int pm_gif_lzw_matches_giflib(const unsigned char *pixels, int width, int height, int bits, size_t limit);

// ---- FFmpeg: loading, macros ----------------------------------------------------------------

/// Opens FFmpeg's libraries (ffmpeg_library.c: PushMedia is not linked against them) and
/// resolves every function PushMedia calls, once per process, thread-safe. Returns 0, or -1 with
/// the loader's message (a library or a function missing) in message. Call before any other
/// FFmpeg function.
int pm_ffmpeg_load(char *message, size_t size);

int pm_averror(int posix_errno);
int pm_averror_eof(void);
/// AVERROR_EXIT: what FFmpeg returns when the interrupt callback (our deadline) stopped it.
int pm_averror_exit(void);
/// What pm_av_open returns when FFmpeg's own probes are sure the file is a format PushMedia
/// does not accept (a playlist, a concat list, an image behind an ID3 tag, ...).
int pm_averror_format_mismatch(void);
/// av_strerror into buf (av_err2str is a macro).
void pm_av_strerror(int errnum, char *buf, size_t size);

/// FFmpeg's process-wide settings: the log level (quiet, unless PUSHMEDIA_FFMPEG_LOG is set,
/// since PushMedia reports FFmpeg's errors itself) and the demuxers PushMedia accepts
/// (comma-separated FFmpeg names, kept from the first call). Safe to call more than once.
void pm_av_startup(const char *format_whitelist);

struct AVFormatContext;
struct AVStream;
/// Opens a media file with the named demuxer (never FFmpeg's own guess), which must be on the
/// whitelist given to pm_av_startup; the whitelist is also the format_whitelist (for any nested
/// open) and `file` the only protocol. Fails with pm_averror_format_mismatch() when FFmpeg's probes
/// are sure the bytes are a format not on the whitelist. Then reads the stream info. Blocking
/// I/O and parsing stop (AVERROR_EXIT) once av_gettime_relative() passes deadline_us, through
/// the interrupt callback. Returns 0 or a negative AVERROR; *out is set only on success.
int pm_av_open(const char *path, const char *demuxer, int64_t deadline_us, struct AVFormatContext **out);
/// FFmpeg's own guess from the first 64 KB of the file (bytes only, no name): returns the score
/// and writes the demuxer's name, or returns 0 when no demuxer is sure (score at most
/// AVPROBE_SCORE_EXTENSION), or a negative AVERROR when the file cannot be read.
int pm_av_guess_demuxer(const char *path, char *name, size_t name_size);
/// Closes what pm_av_open opened (and its deadline).
void pm_av_close(struct AVFormatContext **context);
/// Clockwise display rotation of a stream from its display-matrix side data, 0…359 (0 if none).
int pm_av_stream_rotation(const struct AVStream *stream);
/// True when the stream is attached cover art (AV_DISPOSITION_ATTACHED_PIC).
int pm_av_stream_is_cover_art(const struct AVStream *stream);

// ---- FFmpeg: poster frames, cover art (ffmpeg_reader.c), remux (ffmpeg_remux.c), transcode ----
// (ffmpeg_transcode.c). Each opens its input with pm_av_open and the demuxer named.

/// Decodes one video stream frame by frame (non-reference frames skipped) for poster candidates.
typedef struct pm_video_reader pm_video_reader;
int pm_video_reader_open(const char *path, const char *demuxer, int stream_index, int64_t deadline_us, pm_video_reader **out);
void pm_video_reader_close(pm_video_reader **reader);
/// Decodes the next frame; *time_seconds is its time from the stream's start.
/// Returns 0, AVERROR_EOF at the end, AVERROR_EXIT past the deadline, or another AVERROR.
int pm_video_reader_next(pm_video_reader *reader, double *time_seconds);
/// Coded size and sample aspect ratio of the current frame.
void pm_video_reader_frame_size(const pm_video_reader *reader, int *width, int *height, int *sar_num, int *sar_den);
/// The current frame scaled to width×height, packed GRAY8 (width*height bytes) or RGB24 (×3).
int pm_video_reader_luma(pm_video_reader *reader, int width, int height, uint8_t *out);
int pm_video_reader_rgb(pm_video_reader *reader, int width, int height, uint8_t *out);

/// The bytes of embedded cover art (an attached picture), owned by the context: returns the
/// stream index, or -1 when there is none.
int pm_av_cover_art(const struct AVFormatContext *format, const uint8_t **data, int *size);

/// Copies one video and one audio stream (-1: none) into a new file without re-encoding; the
/// container comes from the output's extension, MP4 gets faststart, the display matrix is kept
/// and HEVC is tagged hvc1. On failure writes "stage: message" into error.
int pm_av_remux(const char *input, const char *demuxer, const char *output, int video_index, int audio_index, int64_t deadline_us,
                char *error, size_t error_size);

typedef struct {
    int video_index;        ///< -1: no video
    int audio_index;        ///< -1: no audio
    int max_long_side;      ///< square pixels, long side at most this (0: keep)
    int64_t video_bit_rate; ///< bits/s for libx264 (ABR with VBV)
    int64_t audio_bit_rate; ///< bits/s for AAC
    double max_frame_rate;  ///< frames closer than this are dropped (0: keep all)
    double max_duration;    ///< seconds kept from the start (0: all)
    const char *preset;     ///< x264 preset, e.g. "veryfast"
    int audio_sample_rate;  ///< 0: the input's, if AAC takes it, else 48000
    int audio_channels;     ///< 1: mono; otherwise stereo when the input has two or more
} pm_transcode_params;

typedef struct {
    int width, height;      ///< of the video written
    int64_t frames;         ///< video frames written
    double duration;        ///< seconds written (longest stream)
} pm_transcode_result;

/// Decodes, scales and encodes to H.264 (libx264, high profile, yuv420p) and AAC in the container
/// the output's extension names (MP4 with faststart, or M4A), keeping the display rotation.
int pm_av_transcode(const char *input, const char *demuxer, const char *output, const pm_transcode_params *params, int64_t deadline_us,
                    pm_transcode_result *result, char *error, size_t error_size);

// ---- process ----------------------------------------------------------------------------------

/// mallopt(M_ARENA_MAX, count): caps glibc's malloc arenas (1 on success).
int pm_limit_malloc_arenas(int count);

/// 1 when this C was built with AddressSanitizer (`PUSHMEDIA_SANITIZE_C=1`, Package.swift).
int pm_address_sanitized(void);

/// prctl(PR_SET_CHILD_SUBREAPER, 1): orphaned descendants are adopted by this process (0 on success).
int pm_set_child_subreaper(void);

/// The threads of this process (from /proc/self/status), -1 when unknown.
int pm_thread_count(void);

/// Sends descriptors `a` and `b` over the unix socket `socket` (SCM_RIGHTS) with one byte: 0 on success.
int pm_send_fds(int socket, int a, int b);

/// The fork server's loop (`pushmedia item-fork-server`, single-threaded). For each pair of
/// descriptors received on `control` (pm_send_fds), forks an item process whose standard input
/// and output they become, through a middle process that exits at once, so the item process is
/// adopted by the supervisor (which must be a child subreaper and this process's parent) and
/// waited for as its own child; the item process's pid (or -errno) is written back on
/// `control` as an int32. Returns 0 in a new item process, once adopted; 1 in the server when
/// `control` ends; -1 on an error of `control`.
int pm_fork_server_loop(int control);

#endif
