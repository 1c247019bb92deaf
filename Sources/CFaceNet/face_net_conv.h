// The net's convolutions, carried out over a few output positions at a time (face_net_blas.cpp),
// for the layer that replaces dlib's `con_` in face_net.cpp. dlib's CPU convolution unrolls the
// whole input into one im2col matrix per layer (hundreds of MB for a banner's region, allocated
// and paged in anew each layer and each run); this one keeps a block of rows that fits in cache.
#ifndef PUSHMEDIA_FACE_NET_CONV_H
#define PUSHMEDIA_FACE_NET_CONV_H

namespace pm_face_net {

/// `output` (`count` channels of `out_rows`×`out_columns`, channel by channel) = `filters`
/// (`count` × `channels`×`filter_rows`×`filter_columns`, dlib's layout) convolved over `input`
/// (`channels` × `rows`×`columns`) with strides `stride_y`, `stride_x` and zero padding
/// `padding_y`, `padding_x`, plus `biases[c]` for channel c when `biases` is not null. The sums are
/// those dlib's im2col product makes with this file's sgemm (the same order), so the net's output
/// does not change.
void convolve(const float *input, long channels, long rows, long columns, const float *filters, const float *biases,
              long count, long filter_rows, long filter_columns, long stride_y, long stride_x, long padding_y,
              long padding_x, float *output);

} // namespace pm_face_net

#endif
