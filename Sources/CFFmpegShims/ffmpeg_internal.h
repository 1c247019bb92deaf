// Helpers shared by the FFmpeg shims (ffmpeg_*.c); private to CFFmpegShims.
#ifndef PUSHMEDIA_FFMPEG_INTERNAL_H
#define PUSHMEDIA_FFMPEG_INTERNAL_H

#include "CFFmpegShims.h"
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

/// Returned by pm_av_open when FFmpeg's own probes are sure the file is a format PushMedia does
/// not accept (see pm_averror_format_mismatch).
#define PM_AVERROR_FORMAT_MISMATCH FFERRTAG('P', 'M', 'F', 'M')

/// Writes "stage: FFmpeg's message for code" into buf (if any).
void pm_set_error(char *buf, size_t size, const char *stage, int code);

/// Opens a decoder for one stream of an open input (ffmpeg_shims.c).
int pm_open_decoder(AVFormatContext *in, int index, AVCodecContext **out);

// ---- Output (ffmpeg_output.c): remux and transcode write through these ----------------------

/// A muxer chosen from the output file's name (.mp4: MP4, .m4a: the iPod/M4A flavour).
int pm_open_output(const char *path, AVFormatContext **out);
/// Closes the file (if open) and frees the context; NULL-safe.
void pm_close_output(AVFormatContext **out);
/// Opens the file and writes the header, MP4 with faststart (moov first).
int pm_write_header(AVFormatContext *out, const char *path);
/// HEVC in MP4 is tagged hvc1 for Apple's players; everything else takes the muxer's default.
void pm_set_codec_tag(AVCodecParameters *parameters);
/// Copies a stream's display matrix (rotation) to an output stream.
int pm_copy_display_matrix(const AVStream *from, AVStream *to);

#endif
