/* row_inputs.c - the x of a row op (softmax, rmsnorm, layernorm) for each input class
 * (harness/core/xpb_input.h; bounds in reference.c, reasons in docs/validation.md). */
#include <stdlib.h>

#include "elementwise.h"
#include "xpb_rng.h"

/* Generator streams of the class-specific draws (x itself is stream 0). */
enum { STREAM_ROW = 100, STREAM_PICK = 101 };

#define GRID 0x1p-10 /* exact norm rows: x = k * 2^-10 with small integers k */
#define SPREAD 3     /* k = mu + delta, delta in [-SPREAD, SPREAD] */
#define MU_MAX 2     /* mu in [-MU_MAX, MU_MAX] */

static uint64_t draw(uint64_t seed, uint64_t stream, uint64_t i) { return xpb_rng_hash(seed, stream, i); }

/* softmax, exact: every element is the row's maximum m (an integer in [-8, 8]) or m - 128, whose
 * exp (e^-128) is 0 in fp32. So the sum is the count K of maxima, exact in any order, and each
 * output is 1/K or 0. The first and last elements are maxima (edges are where bugs live); the
 * others with probability 1/2. */
static void softmax_exact_row(float *x, int64_t r, int64_t cols, uint64_t seed)
{
    float m = (float)((int)(draw(seed, STREAM_ROW, (uint64_t)r) % 17) - 8);
    for (int64_t j = 0; j < cols; j++) {
        bool is_max = j == 0 || j == cols - 1 || (draw(seed, STREAM_PICK, (uint64_t)(r * cols + j)) >> 63);
        x[j] = is_max ? m : m - 128.0f;
    }
}

/* rmsnorm and layernorm, exact: x = (mu + delta_j) * 2^-10 with integers |delta_j| <= 3 that sum
 * to 0, so the mean is exactly mu * 2^-10, x - mean is exact, and every sum (of x, x^2 and
 * (x - mean)^2: at most 25 * 2^18 units of 2^-20 for rows up to 2^18) is an integer under 2^24
 * units: exact in fp32 in any order. The mean square, about 6 * 2^-20, is within a factor of
 * ten of eps, so eps matters too. */
static void norm_exact_row(float *x, int64_t r, int64_t cols, uint64_t seed)
{
    int mu = (int)(draw(seed, STREAM_ROW, (uint64_t)r) % (2 * MU_MAX + 1)) - MU_MAX;
    int64_t sum = 0;
    for (int64_t j = 0; j < cols; j++) {
        int d = (int)(draw(seed, STREAM_PICK, (uint64_t)(r * cols + j)) % (2 * SPREAD + 1)) - SPREAD;
        x[j] = (float)d;
        sum += d;
    }
    /* Bring the deltas' sum to 0, starting at a random column so that no end of the row is
     * always the one adjusted; each column moves at most to +-SPREAD, and there is room. */
    int64_t j = cols > 0 ? (int64_t)(draw(seed, STREAM_ROW + 10, (uint64_t)r) % (uint64_t)cols) : 0;
    for (int64_t step = 0; step < cols && sum != 0; step++, j = (j + 1) % cols) {
        int64_t room = sum > 0 ? x[j] + SPREAD : SPREAD - x[j];
        int64_t move = llabs(sum) < room ? llabs(sum) : room;
        x[j] += sum > 0 ? -(float)move : (float)move;
        sum += sum > 0 ? -move : move;
    }
    for (int64_t k = 0; k < cols; k++)
        x[k] = ((float)mu + x[k]) * (float)GRID;
}

int ew_input_classes(xpb_op op, const xpb_input_class **out)
{
    static const xpb_input_class softmax[] = {XPB_INPUT_RANDOM, XPB_INPUT_EXACT, XPB_INPUT_LARGE, XPB_INPUT_PEAK};
    static const xpb_input_class norm[] = {XPB_INPUT_RANDOM, XPB_INPUT_EXACT, XPB_INPUT_TINY, XPB_INPUT_CONST,
                                           XPB_INPUT_OFFSET, XPB_INPUT_LEAD};
    static const xpb_input_class random_only[] = {XPB_INPUT_RANDOM};
    if (op == XPB_OP_SOFTMAX) {
        *out = softmax;
        return (int)(sizeof softmax / sizeof softmax[0]);
    }
    if (op == XPB_OP_RMSNORM || op == XPB_OP_LAYERNORM) {
        *out = norm;
        return (int)(sizeof norm / sizeof norm[0]);
    }
    *out = random_only;
    return 1;
}

xpb_input_class ew_input_of(const xpb_case *c)
{
    return (xpb_input_class)xpb_case_param(c, XPB_INPUT_KEY, XPB_INPUT_RANDOM);
}

void ew_fill_row_input(xpb_input_class k, xpb_op op, float *x, int64_t rows, int64_t cols,
                       uint64_t seed)
{
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; r++) {
        float *xr = x + r * cols;
        switch (k) {
        case XPB_INPUT_EXACT:
            if (op == XPB_OP_SOFTMAX)
                softmax_exact_row(xr, r, cols, seed);
            else
                norm_exact_row(xr, r, cols, seed);
            break;
        case XPB_INPUT_LARGE: /* far above 88, where expf overflows */
            for (int64_t j = 0; j < cols; j++)
                xr[j] = 100.0f + 8.0f * xpb_rng_uniform(seed, 0, (uint64_t)(r * cols + j));
            break;
        case XPB_INPUT_PEAK: { /* U[-1, 1) and one element of 100 at a random place */
            for (int64_t j = 0; j < cols; j++)
                xr[j] = xpb_rng_uniform(seed, 0, (uint64_t)(r * cols + j));
            xr[draw(seed, STREAM_ROW, (uint64_t)r) % (uint64_t)cols] = 100.0f;
            break;
        }
        case XPB_INPUT_TINY: /* mean square about 2^-20 / 3, near eps = 1e-6 */
            for (int64_t j = 0; j < cols; j++)
                xr[j] = (float)GRID * xpb_rng_uniform(seed, 0, (uint64_t)(r * cols + j));
            break;
        case XPB_INPUT_CONST: { /* one value per row in [32, 96): variance exactly 0 */
            float v = 64.0f + 32.0f * xpb_rng_uniform(seed, STREAM_ROW, (uint64_t)r);
            for (int64_t j = 0; j < cols; j++)
                xr[j] = v;
            break;
        }
        case XPB_INPUT_OFFSET: /* 1000 + U[-1, 1): E[x^2] - E[x]^2 cancels ~6 digits */
            for (int64_t j = 0; j < cols; j++)
                xr[j] = 1000.0f + xpb_rng_uniform(seed, 0, (uint64_t)(r * cols + j));
            break;
        case XPB_INPUT_LEAD: /* U[-1, 1) led by 1000: the row's first value x0 nearly as far
                              * from the mean as a row allows (sqrt(n - 1) standard deviations),
                              * where sums of x - x0 with too little precision lose the variance */
            for (int64_t j = 0; j < cols; j++)
                xr[j] = j == 0 ? 1000.0f : xpb_rng_uniform(seed, 0, (uint64_t)(r * cols + j));
            break;
        case XPB_INPUT_RANDOM:
        case XPB_INPUT_COUNT:
            for (int64_t j = 0; j < cols; j++)
                xr[j] = xpb_rng_uniform(seed, 0, (uint64_t)(r * cols + j));
            break;
        }
    }
}
