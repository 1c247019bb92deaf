#include "CResample.h"

#include <math.h>

static double pm_kernel(pm_resample_kernel kernel, double x) {
    if (x <= -(double)kernel || x >= (double)kernel) return 0;
    if (kernel == PM_RESAMPLE_TRIANGLE) return 1 - fabs(x);
    if (x == 0) return 1;
    double px = M_PI * x;
    return 3 * sin(px) * sin(px / 3) / (px * px);
}

int pm_resample_most_taps(pm_resample_kernel kernel, int in, int out) {
    return (int)ceil(2 * (int)kernel * ((double)in / out)) + 1;
}

int pm_resample_taps(pm_resample_kernel kernel, int in, int out, int o, int *first, double *weights) {
    const double reach = (double)in / out;
    const double support = (int)kernel * reach;
    const double centre = (o + 0.5) * reach - 0.5;
    int from = (int)floor(centre - support) + 1;
    int to = (int)ceil(centre + support) - 1;
    if (from < 0) from = 0;
    if (to > in - 1) to = in - 1;
    const int most = pm_resample_most_taps(kernel, in, out);
    if (to > from + most - 1) to = from + most - 1;
    if (to < from) to = from;
    double sum = 0;
    for (int i = from; i <= to; i++) {
        weights[i - from] = pm_kernel(kernel, (i - centre) / reach);
        sum += weights[i - from];
    }
    for (int i = from; i <= to; i++) weights[i - from] = sum > 0 ? weights[i - from] / sum : 1.0 / (to - from + 1);
    *first = from;
    return to - from + 1;
}
