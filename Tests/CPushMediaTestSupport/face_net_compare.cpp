// The test entry point of the face net's convolution (CPushMediaTestSupport.h): dlib's own CPU
// convolution against pm_face_net::convolve on the same random tensors. As CFaceNet, without
// BLAS and LAPACK (dlib's calls to BLAS reach CFaceNet's face_net_blas.cpp).
#include "CPushMediaTestSupport.h"

#include <dlib/assert.h>
#include <dlib/test_for_odr_violations.h>
#undef DLIB_USE_BLAS
#undef DLIB_USE_LAPACK
#undef DLIB_USE_CUDA

#include <dlib/dnn.h>

#include <cstring>

#include "../../Sources/CFaceDetect/face_entry.h"
#include "../../Sources/CFaceNet/face_net_conv.h"

extern "C" long pm_face_net_convolution_differences(int channels, int rows, int columns, int count, int filter_rows,
                                                    int filter_columns, int stride_y, int stride_x, int padding_y,
                                                    int padding_x, int biased, unsigned seed, long *outputs,
                                                    char *error, size_t error_size) {
    // A failed dlib assertion is a fatal_error, and dlib aborts the process at the second one:
    // shapes it would refuse are refused here.
    const long out_rows = stride_y > 0 ? 1 + (rows + 2L * padding_y - filter_rows) / stride_y : 0;
    const long out_columns = stride_x > 0 ? 1 + (columns + 2L * padding_x - filter_columns) / stride_x : 0;
    if (channels < 1 || rows < 1 || columns < 1 || count < 1 || filter_rows < 1 || filter_columns < 1 ||
        padding_y < 0 || padding_x < 0 || padding_y >= filter_rows || padding_x >= filter_columns ||
        out_rows < 1 || out_columns < 1) {
        pm_face_entry::set_error(error, error_size, "invalid shape");
        return -1;
    }
    return pm_face_entry::guarded(error, error_size, [&]() -> long {
        dlib::resizable_tensor data(1, channels, rows, columns), filters(count, channels, filter_rows, filter_columns);
        dlib::resizable_tensor biases(1, count), expected;
        // dlib's tensor_rand wants an even count of values; its generator does not.
        dlib::rand random(seed);
        for (dlib::tensor *t : {&data, &filters, &biases}) {
            float *values = t->host_write_only();
            for (size_t i = 0; i < t->size(); i++) values[i] = static_cast<float>(random.get_random_gaussian());
        }
        // What dlib's con_ layer does in its forward pass.
        dlib::tt::tensor_conv conv;
        conv.setup(data, filters, stride_y, stride_x, padding_y, padding_x);
        if (biased)
            conv(false, expected, data, filters, biases);
        else
            conv(false, expected, data, filters);
        std::vector<float> actual(expected.size(), std::nanf(""));
        pm_face_net::convolve(data.host(), channels, rows, columns, filters.host(), biased ? biases.host() : nullptr,
                              count, filter_rows, filter_columns, stride_y, stride_x, padding_y, padding_x,
                              actual.data());
        if (outputs) *outputs = static_cast<long>(expected.size());
        long differences = 0;
        const float *want = expected.host();
        for (size_t i = 0; i < actual.size(); i++) differences += std::memcmp(&want[i], &actual[i], sizeof(float)) != 0;
        return differences;
    });
}
