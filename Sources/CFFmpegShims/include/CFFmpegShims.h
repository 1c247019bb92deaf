// FFmpeg for Swift: its libraries opened on first use (PushMedia is not linked against them,
// ffmpeg_library.c), its macros as functions, the one way a media file is opened (the demuxer
// PushMedia sniffed, the format and protocol whitelists), and the decode/encode loops of poster
// frames, remuxing and transcoding, each with one cleanup path. What is decoded and written,
// and when to stop, is the caller's. Functions return 0 (or a count) on success and a negative
// AVERROR on failure, unless they say otherwise.
#ifndef PUSHMEDIA_FFMPEG_SHIMS_H
#define PUSHMEDIA_FFMPEG_SHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <libavutil/error.h>

#include "CDeadline.h"

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
/// AVERROR_INVALIDDATA, AVERROR_DECODER_NOT_FOUND and AVERROR_PATCHWELCOME (macros in C): what
/// FFmpeg says of an input it cannot decode, so that such an item fails for good at once.
int pm_averror_invalid_data(void);
int pm_averror_decoder_not_found(void);
int pm_averror_patch_welcome(void);
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
/// I/O and parsing stop (AVERROR_EXIT) once `deadline` passes, through the interrupt callback.
/// Returns 0 or a negative AVERROR; *out is set only on success.
int pm_av_open(const char *path, const char *demuxer, pm_deadline deadline, struct AVFormatContext **out);
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
int pm_video_reader_open(const char *path, const char *demuxer, int stream_index, pm_deadline deadline, pm_video_reader **out);
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
/// and HEVC is tagged hvc1. The video is written with the sample aspect ratio
/// `sample_aspect_num`:`sample_aspect_den` (the caller's reading of the source, which may come
/// from its container alone; 0:1 writes what the stream's parameters say). On failure writes
/// "stage: message" into error.
int pm_av_remux(const char *input, const char *demuxer, const char *output, int video_index, int audio_index,
                int sample_aspect_num, int sample_aspect_den, pm_deadline deadline, char *error, size_t error_size);

/// How far a kept file (shipped as it is) is checked: the caller's plan. Every packet of the two
/// streams is demuxed; those that start within a stream's window (seconds from its start) are
/// decoded too, and the frames thrown away.
typedef struct {
    int video_index;              ///< -1: no video
    int audio_index;              ///< -1: no audio
    double video_decode_seconds;  ///< 0: the video is only demuxed
    double audio_decode_seconds;  ///< 0: the audio is only demuxed
} pm_media_check_plan;

/// What the check found; facts only, for the caller to judge.
typedef struct {
    double duration_seconds;      ///< the container's duration (-1: it gives none)
    int duration_estimated;       ///< 1 when FFmpeg estimated that duration from the bit rate (MP3, ADTS)
    int64_t packets;              ///< demuxed, of the two streams
    double end_seconds;           ///< where the packets reach, from their streams' start
    int demux_error;              ///< the AVERROR that ended demuxing before the end (0: it reached the end)
    double demux_error_seconds;   ///< how far the packets reached then
    int64_t decoded_packets;      ///< sent to a decoder (inside the windows)
    int64_t failed_packets;       ///< packets the decoder refused, and frames it returned corrupt
    double first_failure_seconds; ///< where the first failure was (-1: none)
    char first_failure[160];      ///< "decoder: FFmpeg's message" of the first failure, empty without one
} pm_media_check_result;

/// Checks `path` (opened with pm_av_open and `demuxer`) as `plan` says, into *out. Returns 0 when
/// the check ran to the end of the packets or to a demux error (that error is in *out), else a
/// negative AVERROR ("stage: message" in error): the file cannot be opened, a stream or decoder
/// is missing, out of memory, AVERROR_EXIT past the deadline.
int pm_av_check(const char *path, const char *demuxer, const pm_media_check_plan *plan, pm_deadline deadline,
                pm_media_check_result *out, char *error, size_t error_size);

/// What a transcode writes: the caller's plan, carried out as it is.
typedef struct {
    int video_index;          ///< -1: no video
    int audio_index;          ///< -1: no audio
    double max_duration;      ///< seconds kept from the start (0: all)
    // Video (H.264, libx264, yuv420p, square pixels).
    int width, height;        ///< the size written (even sides)
    int frame_rate_num, frame_rate_den;
    double min_frame_gap;     ///< seconds: a frame closer than this to the last one kept is dropped
    int64_t video_bit_rate;   ///< bits/s (ABR)
    int64_t video_max_rate;   ///< VBV: bits/s at most, over video_buffer_size bits
    int video_buffer_size;
    int gop_size;             ///< frames from one keyframe to the next, at most
    const char *preset;       ///< x264's preset, e.g. "veryfast"
    const char *profile;      ///< x264's profile, e.g. "high"
    int video_threads;        ///< x264's threads (a fixed count: frame threads under VBV change the bytes run to run)
    // Audio (AAC).
    int64_t audio_bit_rate;   ///< bits/s
    int audio_sample_rate;
    int audio_channels;       ///< 1 or 2
} pm_transcode_params;

typedef struct {
    int width, height;      ///< of the video written
    int64_t frames;         ///< video frames written
    double duration;        ///< seconds written (longest stream)
} pm_transcode_result;

/// Decodes, scales and encodes to H.264 (libx264, yuv420p) and AAC as `params` say, in the
/// container the output's extension names (MP4 with faststart, or M4A), keeping the display
/// rotation. On failure writes "stage: message" into error.
int pm_av_transcode(const char *input, const char *demuxer, const char *output, const pm_transcode_params *params, pm_deadline deadline,
                    pm_transcode_result *result, char *error, size_t error_size);

#endif
