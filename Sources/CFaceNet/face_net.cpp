// dlib's CNN face detector (dnn_mmod_face_detection_ex.cpp's net) behind CFaceNet.h. In a target
// of its own: dlib's dnn templates take minutes to compile, which edits to the HOG search do not
// repeat. Every exception stops here and becomes -1 with its message: C++ never unwinds into
// Swift.
#include "CFaceNet.h"

// Without BLAS and LAPACK, as CFaceDetect (face_dlib.h says why): dlib's own matrix code runs the
// convolutions. config.h has no include guard, so the guarded headers that include it come first.
#include <dlib/assert.h>
#include <dlib/test_for_odr_violations.h>
#undef DLIB_USE_BLAS
#undef DLIB_USE_LAPACK
#undef DLIB_USE_CUDA

#include <dlib/base64.h>
#include <dlib/dnn.h>
#include <dlib/image_transforms.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "face_net_conv.h"
#include "face_net_model.h"

#include "../CFaceDetect/face_entry.h"

namespace {

// dlib's `con_` with the same parameters, file format and geometry, but whose forward pass runs
// pm_face_net::convolve: dlib's own unrolls the whole input into one matrix a layer (~2.7 KB per
// pixel read over the net's layers, paged in anew for each; docs/benchmarks/faces.md). Inference
// only: the net is never trained here.
template <long filters, long rows, long columns, int stride_y, int stride_x> class blocked_con_ {
  public:
    template <typename SUBNET> void setup(const SUBNET &sub) { layer.setup(sub); }

    template <typename SUBNET> void forward(const SUBNET &sub, dlib::resizable_tensor &output) {
        const dlib::tensor &input = sub.get_output();
        const dlib::tensor &params = layer.get_layer_params();
        const long length = input.k() * rows * columns;
        const bool biased = !layer.bias_is_disabled();
        if (static_cast<long>(params.size()) != filters * length + (biased ? filters : 0))
            throw dlib::error("the face net's convolution does not fit its input");
        const long out_rows = pm_face_net::output_length(input.nr(), rows, stride_y, layer.padding_y());
        const long out_columns = pm_face_net::output_length(input.nc(), columns, stride_x, layer.padding_x());
        if (out_rows < 1 || out_columns < 1) throw dlib::error("a region too small for the face net's filters");
        output.set_size(input.num_samples(), filters, out_rows, out_columns);
        const float *weights = params.host();
        for (long n = 0; n < input.num_samples(); n++) {
            pm_face_net::convolve(input.host() + n * input.k() * input.nr() * input.nc(), input.k(), input.nr(),
                                  input.nc(), weights, biased ? weights + filters * length : nullptr, filters, rows,
                                  columns, stride_y, stride_x, layer.padding_y(), layer.padding_x(),
                                  output.host_write_only() + n * filters * out_rows * out_columns);
        }
    }

    template <typename SUBNET> void backward(const dlib::tensor &, SUBNET &, dlib::tensor &) {
        throw dlib::error("the face net is not trained here");
    }

    dlib::dpoint map_input_to_output(dlib::dpoint p) const { return layer.map_input_to_output(p); }
    dlib::dpoint map_output_to_input(dlib::dpoint p) const { return layer.map_output_to_input(p); }
    const dlib::tensor &get_layer_params() const { return layer.get_layer_params(); }
    dlib::tensor &get_layer_params() { return layer.get_layer_params(); }

    friend void serialize(const blocked_con_ &item, std::ostream &out) { serialize(item.layer, out); }
    friend void deserialize(blocked_con_ &item, std::istream &in) { deserialize(item.layer, in); }
    friend std::ostream &operator<<(std::ostream &out, const blocked_con_ &item) { return out << item.layer; }
    friend void to_xml(const blocked_con_ &item, std::ostream &out) { to_xml(item.layer, out); }

  private:
    dlib::con_<filters, rows, columns, stride_y, stride_x> layer;
};
template <long filters, long rows, long columns, int stride_y, int stride_x, typename SUBNET>
using blocked_con = dlib::add_layer<blocked_con_<filters, rows, columns, stride_y, stride_x>, SUBNET>;

// The net of mmod_human_face_detector.dat, as dlib's example declares it, each convolution
// blocked_con.
template <long filters, typename SUBNET> using con5d = blocked_con<filters, 5, 5, 2, 2, SUBNET>;
template <long filters, typename SUBNET> using con5 = blocked_con<filters, 5, 5, 1, 1, SUBNET>;
template <typename SUBNET>
using downsampler = dlib::relu<dlib::affine<
    con5d<32, dlib::relu<dlib::affine<con5d<32, dlib::relu<dlib::affine<con5d<16, SUBNET>>>>>>>>>;
template <typename SUBNET> using rcon5 = dlib::relu<dlib::affine<con5<45, SUBNET>>>;
using face_net = dlib::loss_mmod<
    blocked_con<1, 9, 9, 1, 1, rcon5<rcon5<rcon5<downsampler<dlib::input_rgb_image_pyramid<dlib::pyramid_down<6>>>>>>>>;

using pm_face_entry::guarded;
using pm_face_entry::readable;
using pm_face_entry::set_error;

// Once per process, never freed (as CFaceDetect's model: another thread may still search while
// `exit` runs the destructors of function-local statics).
const face_net &prototype() {
    static const face_net &instance = *new face_net([] {
        std::istringstream text(pm_face_net_model_base64);
        std::ostringstream plain;
        dlib::base64 coder;
        coder.decode(text, plain);
        std::istringstream model(plain.str());
        face_net net;
        dlib::deserialize(net, model);
        return net;
    }());
    return instance;
}

// A forward pass writes the net's buffers, so each thread runs its own copy.
face_net &net() {
    thread_local face_net instance = prototype();
    return instance;
}

// Region `r` (clamped) of `image` as RGB, `width`×`height`: bilinear, pixel centres aligned.
dlib::matrix<dlib::rgb_pixel> region_pixels(const pm_face_image &image, const pm_face_region &r, int width,
                                            int height) {
    dlib::matrix<dlib::rgb_pixel> out(height, width);
    const double across = static_cast<double>(r.width) / width, down = static_cast<double>(r.height) / height;
    const bool colour = image.bands >= 3;
    auto at = [&](int x, int y, int band) -> float {
        const size_t offset = static_cast<size_t>(r.y + y) * static_cast<size_t>(image.stride) +
                              static_cast<size_t>(r.x + x) * static_cast<size_t>(image.bands) +
                              static_cast<size_t>(colour ? band : image.band);
        return image.pixels[offset];
    };
    for (int oy = 0; oy < height; oy++) {
        const double sy = std::clamp((oy + 0.5) * down - 0.5, 0.0, static_cast<double>(r.height - 1));
        const int y0 = static_cast<int>(sy), y1 = std::min(r.height - 1, y0 + 1);
        const float fy = static_cast<float>(sy - y0);
        for (int ox = 0; ox < width; ox++) {
            const double sx = std::clamp((ox + 0.5) * across - 0.5, 0.0, static_cast<double>(r.width - 1));
            const int x0 = static_cast<int>(sx), x1 = std::min(r.width - 1, x0 + 1);
            const float fx = static_cast<float>(sx - x0);
            unsigned char v[3];
            for (int b = 0; b < 3; b++) {
                const float top = at(x0, y0, b) * (1 - fx) + at(x1, y0, b) * fx;
                const float bottom = at(x0, y1, b) * (1 - fx) + at(x1, y1, b) * fx;
                v[b] = static_cast<unsigned char>(std::lround(std::clamp(top * (1 - fy) + bottom * fy, 0.0f, 255.0f)));
            }
            out(oy, ox) = dlib::rgb_pixel(v[0], v[1], v[2]);
        }
    }
    return out;
}

} // namespace

extern "C" int pm_face_net_load(char *error, size_t error_size) {
    return guarded(error, error_size, [] {
        prototype();
        return 0;
    });
}

extern "C" int pm_detect_faces_net(const pm_face_image *image, const pm_face_region *regions, const double *scales,
                                   int region_count, double minimum_score, pm_deadline deadline, pm_face_box *faces,
                                   int capacity, int *searched, char *error, size_t error_size) {
    if (searched) *searched = 0;
    if (!readable(image) || region_count < 0 || (region_count > 0 && (!regions || !scales)) ||
        !std::isfinite(minimum_score) || capacity < 0 || (capacity > 0 && !faces)) {
        set_error(error, error_size, "invalid arguments");
        return -1;
    }
    for (int i = 0; i < region_count; i++) {
        if (!(scales[i] >= 1.0 / 16) || !(scales[i] <= 16)) {
            set_error(error, error_size, "invalid arguments");
            return -1;
        }
    }
    return guarded(error, error_size, [&] {
        face_net &detector = net();
        std::vector<dlib::mmod_rect> all;
        for (int i = 0; i < region_count; i++) {
            if (pm_deadline_passed(deadline)) break;
            const pm_face_region &asked = regions[i];
            const int left = std::max(0, asked.x), top = std::max(0, asked.y);
            const int right = std::min(image->width, asked.x + asked.width);
            const int bottom = std::min(image->height, asked.y + asked.height);
            if (searched) *searched = i + 1;
            if (right <= left || bottom <= top) continue;
            const pm_face_region region = {left, top, right - left, bottom - top};
            const int width = std::max(1, static_cast<int>(std::lround(region.width * scales[i])));
            const int height = std::max(1, static_cast<int>(std::lround(region.height * scales[i])));
            const dlib::matrix<dlib::rgb_pixel> pixels = region_pixels(*image, region, width, height);
            const double across = static_cast<double>(region.width) / width;
            const double down = static_cast<double>(region.height) / height;
            for (dlib::mmod_rect d : detector.process(pixels, minimum_score)) {
                const dlib::rectangle r = d.rect;
                d.rect = dlib::rectangle(std::lround(region.x + r.left() * across), std::lround(region.y + r.top() * down),
                                         std::lround(region.x + (r.right() + 1) * across) - 1,
                                         std::lround(region.y + (r.bottom() + 1) * down) - 1);
                all.push_back(d);
            }
        }
        std::sort(all.begin(), all.end(), [](const dlib::mmod_rect &a, const dlib::mmod_rect &b) {
            return a.detection_confidence > b.detection_confidence;
        });
        const int count = static_cast<int>(all.size());
        for (int i = 0; i < std::min(count, capacity); i++) {
            const dlib::rectangle &r = all[static_cast<size_t>(i)].rect;
            faces[i] = pm_face_box{static_cast<int>(r.left()), static_cast<int>(r.top()), static_cast<int>(r.width()),
                                   static_cast<int>(r.height()), all[static_cast<size_t>(i)].detection_confidence};
        }
        return count;
    });
}
