// What the face search reads: the searched band of an image reduced (a triangle filter, as
// libvips' linear kernel) or enlarged (bilinear) to the proxy's size, then softened as dlib's
// model expects. Part of face_search.h (each build has its own copy, in an unnamed namespace).
#ifndef PUSHMEDIA_FACE_PROXY_H
#define PUSHMEDIA_FACE_PROXY_H

#include <algorithm>
#include <cstdint>
#include <vector>

#include "CFaceDetect.h"
#include "CResample.h"

namespace {

// Which input pixels make one output pixel of the proxy's reduction, and their weights: libvips'
// linear kernel, a triangle as wide as two output pixels (CResample). Each output pixel has `most`
// weights, those past its own taps zero (adding 0 × a pixel leaves a sum as it was, so summing all
// `most` gives the same float as summing its own taps).
struct triangle_taps {
    std::vector<int> first;
    std::vector<int> count;
    std::vector<float> weights; // `most` for each output pixel
    int most = 0;

    triangle_taps(int in, int out) {
        most = pm_resample_most_taps(PM_RESAMPLE_TRIANGLE, in, out);
        first.resize(static_cast<size_t>(out));
        count.resize(static_cast<size_t>(out));
        weights.assign(static_cast<size_t>(out) * static_cast<size_t>(most), 0.0f);
        std::vector<double> w(static_cast<size_t>(most));
        for (int o = 0; o < out; o++) {
            const size_t at = static_cast<size_t>(o);
            count[at] = pm_resample_taps(PM_RESAMPLE_TRIANGLE, in, out, o, &first[at], w.data());
            for (int k = 0; k < count[at]; k++)
                weights[at * static_cast<size_t>(most) + static_cast<size_t>(k)] = static_cast<float>(w[static_cast<size_t>(k)]);
        }
    }
};

// The searched band of `image` reduced to `width`×`height` (down, then across), rounded to bytes.
// Each input row's band is copied out as floats once, into a ring of `down.most` rows (the rows
// one output row reads), so no image-sized buffer of floats is made; each output row first sums
// its input rows at the input's full width (contiguous: vectorised), then that one row is reduced
// across. Summing across first did the scalar, gathered step on every input row instead of every
// output row: 1.5x the CPU for a 2000x1500 image to 775x581, for the same bytes but for a few
// pixels 1 level apart (float sums in another order).
std::vector<unsigned char> reduce(const pm_face_image &image, int width, int height) {
    const triangle_taps across(image.width, width), down(image.height, height);
    const size_t bands = static_cast<size_t>(image.bands), w = static_cast<size_t>(width);
    const size_t in = static_cast<size_t>(image.width);
    const size_t ring_rows = static_cast<size_t>(down.most), most = static_cast<size_t>(across.most);
    std::vector<float> ring(ring_rows * in);
    // One output row summed down, at the input's width; zeros after it, for the zero weights past
    // the last taps across.
    std::vector<float> summed(in + most, 0.0f);
    std::vector<unsigned char> out(w * static_cast<size_t>(height));
    int next_row = 0; // the next input row to copy into the ring
    for (int y = 0; y < height; y++) {
        const size_t o = static_cast<size_t>(y);
        const int last = down.first[o] + down.count[o] - 1;
        for (; next_row <= last; next_row++) {
            const uint8_t *row =
                image.pixels + static_cast<size_t>(next_row) * static_cast<size_t>(image.stride) + image.band;
            float *to = &ring[(static_cast<size_t>(next_row) % ring_rows) * in];
            for (size_t x = 0; x < in; x++) to[x] = row[x * bands];
        }
        std::fill(summed.begin(), summed.begin() + static_cast<std::ptrdiff_t>(in), 0.0f);
        const float *weights = &down.weights[o * ring_rows];
        for (int k = 0; k < down.count[o]; k++) {
            const float *row = &ring[(static_cast<size_t>(down.first[o] + k) % ring_rows) * in];
            const float weight = weights[k];
            for (size_t x = 0; x < in; x++) summed[x] += weight * row[x];
        }
        unsigned char *to = &out[o * w];
        for (size_t x = 0; x < w; x++) {
            const float *weight = &across.weights[x * most];
            const float *from = &summed[static_cast<size_t>(across.first[x])];
            float sum = 0;
            for (size_t k = 0; k < most; k++) sum += weight[k] * from[k];
            to[x] = static_cast<unsigned char>(std::min(255.0f, sum + 0.5f));
        }
    }
    return out;
}

// The 3-tap Gaussian mask for sigma 1 (12, 20, 12 over 44; libvips' gaussmat), rounded.
inline unsigned char blur_tap(int a, int b, int c) { return static_cast<unsigned char>((12 * a + 20 * b + 12 * c + 22) / 44); }

// The image blurred with that mask, across then down, edges repeated, rounded after each pass.
// dlib's model was trained on soft, upsampled faces: on a sharp image it takes a flag patch or a
// sleeve for a face (docs/benchmarks/faces.md). Done here rather than with libvips' gaussblur, whose
// run-time compiled (orc) convolution crashed a worker thread once under parallel tests.
// `step` is the distance in bytes from one pixel's byte to the next one's in a row.
void soften(const uint8_t *pixels, int width, int height, int stride, int step, dlib::array2d<unsigned char> &out) {
    const size_t w = static_cast<size_t>(width), s = static_cast<size_t>(step);
    std::vector<unsigned char> across(w * static_cast<size_t>(height));
    for (int y = 0; y < height; y++) {
        const uint8_t *row = pixels + static_cast<size_t>(y) * static_cast<size_t>(stride);
        unsigned char *to = &across[static_cast<size_t>(y) * w];
        if (width == 1) {
            to[0] = blur_tap(row[0], row[0], row[0]);
            continue;
        }
        to[0] = blur_tap(row[0], row[0], row[s]);
        if (step == 1) {
            for (size_t x = 1; x + 1 < w; x++) to[x] = blur_tap(row[x - 1], row[x], row[x + 1]);
        } else {
            for (size_t x = 1; x + 1 < w; x++) to[x] = blur_tap(row[(x - 1) * s], row[x * s], row[(x + 1) * s]);
        }
        to[w - 1] = blur_tap(row[(w - 2) * s], row[(w - 1) * s], row[(w - 1) * s]);
    }
    out.set_size(height, width);
    for (int y = 0; y < height; y++) {
        const unsigned char *above = &across[static_cast<size_t>(y > 0 ? y - 1 : 0) * w];
        const unsigned char *here = &across[static_cast<size_t>(y) * w];
        const unsigned char *below = &across[static_cast<size_t>(y + 1 < height ? y + 1 : height - 1) * w];
        unsigned char *to = &out[y][0];
        for (size_t x = 0; x < w; x++) to[x] = blur_tap(above[x], here[x], below[x]);
    }
}

// The band of `region` of `image` enlarged `scale` times (> 1) by bilinear interpolation, pixel
// centres aligned (as PIL's and libvips' bilinear upsampling), rounded to bytes.
std::vector<unsigned char> enlarge(const pm_face_image &image, const pm_face_region &region, int width, int height) {
    const double sx = static_cast<double>(region.width) / width, sy = static_cast<double>(region.height) / height;
    std::vector<int> x0(static_cast<size_t>(width)), x1(static_cast<size_t>(width));
    std::vector<float> fx(static_cast<size_t>(width));
    for (int x = 0; x < width; x++) {
        const double at = std::min(std::max((x + 0.5) * sx - 0.5, 0.0), static_cast<double>(region.width - 1));
        const int left = static_cast<int>(at);
        x0[static_cast<size_t>(x)] = (region.x + left) * image.bands + image.band;
        x1[static_cast<size_t>(x)] = (region.x + std::min(left + 1, region.width - 1)) * image.bands + image.band;
        fx[static_cast<size_t>(x)] = static_cast<float>(at - left);
    }
    std::vector<unsigned char> out(static_cast<size_t>(width) * static_cast<size_t>(height));
    std::vector<float> above(static_cast<size_t>(width)), below(static_cast<size_t>(width));
    for (int y = 0; y < height; y++) {
        const double at = std::min(std::max((y + 0.5) * sy - 0.5, 0.0), static_cast<double>(region.height - 1));
        const int top = static_cast<int>(at);
        const float fy = static_cast<float>(at - top);
        const uint8_t *a = image.pixels + static_cast<size_t>(region.y + top) * static_cast<size_t>(image.stride);
        const uint8_t *b = image.pixels + static_cast<size_t>(region.y + std::min(top + 1, region.height - 1)) *
                                              static_cast<size_t>(image.stride);
        unsigned char *to = &out[static_cast<size_t>(y) * static_cast<size_t>(width)];
        for (size_t x = 0; x < static_cast<size_t>(width); x++) {
            const float up = a[x0[x]] + (a[x1[x]] - a[x0[x]]) * fx[x];
            const float down = b[x0[x]] + (b[x1[x]] - b[x0[x]]) * fx[x];
            to[x] = static_cast<unsigned char>(std::min(255.0f, up + (down - up) * fy + 0.5f));
        }
    }
    return out;
}

} // namespace

#endif
