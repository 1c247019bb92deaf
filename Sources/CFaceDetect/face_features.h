// dlib's HOG feature extraction (fhog.h, impl_extract_fhog_features) replaced for the images the
// face search reads (dlib::array2d<unsigned char>): the same features with less work per pixel.
// Included by face_search.h after dlib's headers, so both builds (portable, AVX2) get it.
//
// dlib's step was 46 % of the face search's CPU on a 4000x3000 photo (perf). Per pixel it gathers
// the four neighbours one byte at a time, picks the gradient's orientation with nine dot products
// and their comparisons, then adds the pixel's magnitude into four histogram bins (two cells
// across, two rows of cells down) one float at a time, each addressed through the 2-D histogram.
// Here, per pixel:
// - the neighbours are loaded as whole vectors;
// - the orientation is looked up in a table of every gradient a byte image can have, made once
//   per process with dlib's own arithmetic (bin_of);
// - the magnitude goes into two bins of a one-row accumulator (its two cells across, with weights
//   kept per column); odd and even pixels use separate accumulators, so neighbours voting for
//   the same bin do not wait for each other's stores.
// At each row's end the accumulator is added into the two rows of cells it votes for, weighted by
// the row's distance to them, in whole vectors. The same sums in another order: features differ
// from dlib's by float rounding. FaceTests compares them with dlib's own step, which still serves
// any other image type. docs/benchmarks/faces.md, "HOG features with less work per pixel".
#ifndef PUSHMEDIA_FACE_FEATURES_H
#define PUSHMEDIA_FACE_FEATURES_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "face_vectors.h"

namespace dlib {
namespace impl_fhog {

namespace pm_features {
using namespace pm_vectors;

// dlib's unit vectors for the nine orientations (and their opposites: 18 bins), as it rounds them.
constexpr double direction_x[9] = {1.0000, 0.9397, 0.7660, 0.500, 0.1736, -0.1736, -0.5000, -0.7660, -0.9397};
constexpr double direction_y[9] = {0.0000, 0.3420, 0.6428, 0.8660, 0.9848, 0.9848, 0.8660, 0.6428, 0.3420};
constexpr int bins = 18;

// A cast between vector types of one size keeps the bits (GCC's and clang's vector extension).
inline floats select(ints mask, floats a, floats b) { return (floats)(((ints)a & mask) | ((ints)b & ~mask)); }
inline ints select(ints mask, ints a, ints b) { return (a & mask) | (b & ~mask); }

// The orientation bin (0-17) of each lane's gradient, as dlib picks it: the first of its nine
// directions (then their opposites) whose dot product with the gradient is largest.
inline ints bin_of(floats gx, floats gy) {
    floats best_dot = floats{};
    ints best = ints{};
    for (int o = 0; o < 9; o++) {
        // Separate statements: dlib's vector types never fuse a multiply into an add.
        floats dot = gx * static_cast<float>(direction_x[o]);
        const floats along_y = gy * static_cast<float>(direction_y[o]);
        dot += along_y;
        ints wins = dot > best_dot;
        best_dot = select(wins, dot, best_dot);
        best = select(wins, ints{} + o, best);
        const floats opposite = -dot;
        wins = opposite > best_dot;
        best_dot = select(wins, opposite, best_dot);
        best = select(wins, ints{} + (o + 9), best);
    }
    return best;
}

// The bin of every gradient a byte image can have (both differences from -255 to 255), made once
// per process by bin_of: a byte each, 511 x 511, indexed (gy + 255) * 511 + gx + 255. Looking a
// bin up costs a load where bin_of costs ~90 vector operations per vector of pixels. Never
// freed (face_search.h, prototype()): a search may still read it while the process exits.
constexpr int gradient_span = 511;
inline const std::vector<uint8_t> &bins_table() {
    static const std::vector<uint8_t> &table = *new std::vector<uint8_t>([] {
        std::vector<uint8_t> bins(static_cast<size_t>(gradient_span) * gradient_span);
        for (int gy = -255; gy <= 255; gy++)
            for (int gx = -255; gx <= 255; gx += width) {
                floats x, y = floats{} + static_cast<float>(gy);
                for (int i = 0; i < width; i++) x[i] = static_cast<float>(std::min(gx + i, 255));
                const ints bin = bin_of(x, y);
                for (int i = 0; i < width && gx + i <= 255; i++)
                    bins[static_cast<size_t>((gy + 255) * gradient_span + gx + i + 255)] = static_cast<uint8_t>(bin[i]);
            }
        return bins;
    }());
    return table;
}

// One vector of pixels of a row: each one's gradient magnitude, and where its bin is in
// bins_table(). `row` points at the first pixel, `above` and `below` at the pixels over and under
// it; the row is read from one pixel before to one after the vector.
inline void gradient(const uint8_t *above, const uint8_t *row, const uint8_t *below, floats &magnitude, ints &entry) {
    const ints gx = load_bytes(row + 1) - load_bytes(row - 1);
    const ints gy = load_bytes(below) - load_bytes(above);
    const floats x = __builtin_convertvector(gx, floats), y = __builtin_convertvector(gy, floats);
    // Whole numbers below 2^24: exact in floats, in any order.
    const floats squared = x * x + y * y;
#if __has_builtin(__builtin_elementwise_sqrt)
    magnitude = __builtin_elementwise_sqrt(squared);
#else
    for (int i = 0; i < width; i++) magnitude[i] = std::sqrt(squared[i]);
#endif
    entry = (gy + 255) * gradient_span + gx + 255;
}
} // namespace pm_features

template <>
inline void impl_extract_fhog_features<array2d<unsigned char>, dlib::array<array2d<float>>>(
    const array2d<unsigned char> &img, dlib::array<array2d<float>> &hog, int cell_size, int filter_rows_padding,
    int filter_cols_padding) {
    using namespace pm_features;
    if (cell_size < 2) {
        // dlib's own step (its one-pixel-cell variant), through an image type not replaced here.
        matrix<unsigned char> copy = mat(img);
        impl_extract_fhog_features(copy, hog, cell_size, filter_rows_padding, filter_cols_padding);
        return;
    }
    const int nr = static_cast<int>(img.nr()), nc = static_cast<int>(img.nc());
    // Sizes as dlib's step sets them.
    const int cells_nr = static_cast<int>(static_cast<float>(nr) / static_cast<float>(cell_size) + 0.5);
    const int cells_nc = static_cast<int>(static_cast<float>(nc) / static_cast<float>(cell_size) + 0.5);
    const int hog_nr = std::max(cells_nr - 2, 0), hog_nc = std::max(cells_nc - 2, 0);
    if (hog_nr == 0 || hog_nc == 0) {
        hog.clear();
        return;
    }
    init_hog(hog, hog_nr, hog_nc, filter_rows_padding, filter_cols_padding);
    const uint8_t *bin_table = bins_table().data();
    const int visible_nr = std::min(cells_nr * cell_size, nr) - 1;
    const int visible_nc = std::min(cells_nc * cell_size, nc) - 1;

    // The histograms, a border cell all round (as dlib's), `bins` floats a cell.
    const size_t hist_cols = static_cast<size_t>(cells_nc + 2), row_floats = hist_cols * bins;
    std::vector<float> hist(static_cast<size_t>(cells_nr + 2) * row_floats, 0.0f);
    // Per column: the first of the two cells across a pixel votes for (in the padded histogram)
    // and its weights for them, as dlib's vector path computes them.
    std::vector<int> first_bin(static_cast<size_t>(nc), 0);
    std::vector<float> weight_first(static_cast<size_t>(nc), 0.0f), weight_second(static_cast<size_t>(nc), 0.0f);
    for (int x = 1; x < visible_nc; x++) {
        const float xp = (static_cast<float>(x) + 0.5f) / static_cast<float>(cell_size) + 0.5f;
        const int ixp = static_cast<int>(xp);
        const float vx0 = xp - static_cast<float>(ixp);
        weight_first[static_cast<size_t>(x)] = 1.0f - vx0;
        weight_second[static_cast<size_t>(x)] = vx0;
        first_bin[static_cast<size_t>(x)] = ixp * bins;
    }
    // One row's votes, odd and even pixels apart; zero past what a row writes.
    std::vector<float> even(row_floats, 0.0f), odd(row_floats, 0.0f);
    // The last vector of a row is made from copies padded with zeros, so nothing past the image
    // is read: the row from one pixel before, the rows above and below from the pixel itself.
    uint8_t tail_row[width + 2], tail_above[width], tail_below[width];

    for (int y = 1; y < visible_nr; y++) {
        const float yp = (static_cast<float>(y) + 0.5) / static_cast<float>(cell_size) - 0.5;
        const int iyp = static_cast<int>(std::floor(yp));
        const float vy0 = yp - static_cast<float>(iyp);
        const float vy1 = 1.0 - vy0;
        const uint8_t *above = &img[y - 1][0], *row = &img[y][0], *below = &img[y + 1][0];
        auto vote = [&](int x, floats magnitude, ints entry, int lanes) {
            for (int i = 0; i < lanes; i++) {
                const size_t at = static_cast<size_t>(x + i);
                const size_t cell = static_cast<size_t>(first_bin[at] + bin_table[static_cast<size_t>(entry[i])]);
                float *to = (i & 1) ? odd.data() : even.data();
                to[cell] += weight_first[at] * magnitude[i];
                to[cell + bins] += weight_second[at] * magnitude[i];
            }
        };
        int x = 1;
        // Whole vectors while the row's pixel after the vector (x + width) is in the image.
        for (; x + width <= visible_nc && x + width < nc; x += width) {
            floats magnitude;
            ints entry;
            gradient(above + x, row + x, below + x, magnitude, entry);
            vote(x, magnitude, entry, width);
        }
        if (x < visible_nc) {
            const int lanes = visible_nc - x;
            std::memset(tail_row, 0, sizeof tail_row);
            std::memset(tail_above, 0, sizeof tail_above);
            std::memset(tail_below, 0, sizeof tail_below);
            std::memcpy(tail_row, row + x - 1, static_cast<size_t>(std::min(lanes + 2, nc - x + 1)));
            std::memcpy(tail_above, above + x, static_cast<size_t>(lanes));
            std::memcpy(tail_below, below + x, static_cast<size_t>(lanes));
            floats magnitude;
            ints entry;
            gradient(tail_above, tail_row + 1, tail_below, magnitude, entry);
            vote(x, magnitude, entry, lanes);
        }
        // The row's votes into the two rows of cells around it.
        float *upper = &hist[static_cast<size_t>(iyp + 1) * row_floats];
        float *lower = upper + row_floats;
        for (size_t i = 0; i < row_floats; i++) {
            const float sum = even[i] + odd[i];
            upper[i] += vy1 * sum;
            lower[i] += vy0 * sum;
            even[i] = 0.0f;
            odd[i] = 0.0f;
        }
    }

    // Each cell's energy, summed over the orientations (as dlib's, in the same order).
    std::vector<float> norm(static_cast<size_t>(cells_nr) * static_cast<size_t>(cells_nc), 0.0f);
    for (int r = 0; r < cells_nr; r++)
        for (int c = 0; c < cells_nc; c++) {
            const float *h = &hist[static_cast<size_t>(r + 1) * row_floats + static_cast<size_t>(c + 1) * bins];
            float energy = 0.0f;
            for (int o = 0; o < 9; o++) {
                const float both = h[o] + h[o + 9];
                energy += both * both;
            }
            norm[static_cast<size_t>(r) * static_cast<size_t>(cells_nc) + static_cast<size_t>(c)] = energy;
        }
    auto norm_at = [&](int r, int c) {
        return norm[static_cast<size_t>(r) * static_cast<size_t>(cells_nc) + static_cast<size_t>(c)];
    };

    // The 31 features of each cell (dlib's: 18 contrast-sensitive, 9 insensitive, 4 texture),
    // each truncated and normalised by the energy of the four blocks of 2x2 cells around it.
    const float eps = 0.0001f;
    const int rows_offset = (filter_rows_padding - 1) / 2, cols_offset = (filter_cols_padding - 1) / 2;
    for (int y = 0; y < hog_nr; y++) {
        const int yy = y + rows_offset;
        for (int x = 0; x < hog_nc; x++) {
            const int xx = x + cols_offset;
            const float blocks[4] = {
                norm_at(y + 1, x + 1) + norm_at(y + 1, x + 2) + norm_at(y + 2, x + 1) + norm_at(y + 2, x + 2),
                norm_at(y, x + 1) + norm_at(y, x + 2) + norm_at(y + 1, x + 1) + norm_at(y + 1, x + 2),
                norm_at(y + 1, x) + norm_at(y + 1, x + 1) + norm_at(y + 2, x) + norm_at(y + 2, x + 1),
                norm_at(y, x) + norm_at(y, x + 1) + norm_at(y + 1, x) + norm_at(y + 1, x + 1)};
            float nn[4], n[4], texture[4] = {0, 0, 0, 0};
            for (int k = 0; k < 4; k++) {
                nn[k] = 0.2f * std::sqrt(blocks[k] + eps);
                n[k] = 0.1f / nn[k];
            }
            const float *h = &hist[static_cast<size_t>(y + 2) * row_floats + static_cast<size_t>(x + 2) * bins];
            for (int o = 0; o < bins; o++) {
                float feature = 0.0f;
                for (int k = 0; k < 4; k++) {
                    const float part = std::min(h[o], nn[k]) * n[k];
                    feature += part;
                    texture[k] += part;
                }
                hog[o][yy][xx] = feature;
            }
            for (int o = 0; o < 9; o++) {
                const float both = h[o] + h[o + 9];
                float feature = 0.0f;
                for (int k = 0; k < 4; k++) feature += std::min(both, nn[k]) * n[k];
                hog[o + 18][yy][xx] = feature;
            }
            for (int k = 0; k < 4; k++) hog[27 + k][yy][xx] = texture[k] * static_cast<float>(2 * 0.2357);
        }
    }
}

} // namespace impl_fhog
} // namespace dlib

#endif
