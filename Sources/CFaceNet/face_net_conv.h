// The net's convolutions, carried out over a few output positions at a time (face_net_conv.cpp),
// for the layer that replaces dlib's `con_` in face_net.cpp, and the dot products they share with
// sgemm (face_net_blas.cpp). dlib's CPU convolution unrolls the whole input into one im2col matrix
// per layer (hundreds of MB for a banner's region, allocated and paged in anew each layer and each
// run); this one keeps a block of rows that fits in cache.
#ifndef PUSHMEDIA_FACE_NET_CONV_H
#define PUSHMEDIA_FACE_NET_CONV_H

// Built for AVX2 and for any CPU, picked when first called. Every declaration carries it, so
// each caller calls the version picked.
#define PM_FACE_NET_CLONES __attribute__((target_clones("avx2", "default")))

namespace pm_face_net {

/// The output positions along one axis of `length` inputs, for a filter `filter` long moved by
/// `stride` over the input padded with `padding` zeros at each end. Below 1 when the padded
/// input is shorter than the filter by `stride` or more (the division truncates towards zero, as
/// dlib's does).
inline long output_length(long length, long filter, long stride, long padding) {
    return 1 + (length + 2 * padding - filter) / stride;
}

/// `output` (`count` channels of `output_length` rows × `output_length` columns, channel by
/// channel) = `filters` (`count` × `channels`×`filter_rows`×`filter_columns`, dlib's layout)
/// convolved over `input` (`channels` × `rows`×`columns`) with strides `stride_y`, `stride_x` and
/// zero padding `padding_y`, `padding_x`, plus `biases[c]` for channel c when `biases` is not null.
/// The sums are those dlib's im2col product makes with face_net_blas.cpp's sgemm (the same order),
/// so the net's output does not change.
void convolve(const float *input, long channels, long rows, long columns, const float *filters, const float *biases,
              long count, long filter_rows, long filter_columns, long stride_y, long stride_x, long padding_y,
              long padding_x, float *output);

/// `out[i × rows_b + j]` = the dot product of row `i` of `a` (`rows_a` rows, `lda` apart) and row
/// `j` of `b` (`rows_b` rows, `ldb` apart), each `k` long: filters × im2col rows, both contiguous.
PM_FACE_NET_CLONES void dots(const float *a, int lda, int rows_a, const float *b, int ldb, int rows_b, int k,
                             float *out);

} // namespace pm_face_net

#endif
