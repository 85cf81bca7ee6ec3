/* rope.c - rotary position embedding on x[batch, heads, seq, head_dim]: the pair
 * (x[2i], x[2i+1]) at position p rotates by theta = p * base^(-2i/head_dim):
 *   out[2i] = x0 cos - x1 sin,  out[2i+1] = x0 sin + x1 cos.
 *
 * The angle depends on (p, i) only, so cos and sin are computed once per (p, i) per call, not per
 * (batch, head): the (p, i) plane is cut into tiles of TILE entries whose cos/sin table stays in
 * L2, and each table is applied to every (batch, head). inv_freq[i] = base^(-2i/head_dim) is a
 * table made once per call. Angles are formed and reduced in double (cpu_math.h), so even at
 * p in the thousands the angle carries no fp32 rounding error (p * 2^-24 radians); cos and sin
 * are rounded once to float and the rotation is done in float. */
#include "cpu_internal.h"
#include "cpu_math.h"

#include <omp.h>
#include <stdlib.h>

/* (position, pair) entries per cos/sin table (2 x 64 KiB, in L2). A tile of x, applied for one
 * (batch, head), is 2 TILE contiguous floats: long runs for the hardware prefetcher. Measured at
 * DRAM-bound sizes, one thread: 2048 entries ran 10-20% slower, 65536 about 8% slower. */
#define TILE 16384

typedef struct rope_tiling {
    int64_t half;      /* pairs per head_dim row                   */
    int64_t pairs;     /* pairs per tile (the last one may be short) */
    int64_t positions; /* positions per tile                        */
    int64_t pair_tiles, tiles;
} rope_tiling;

static rope_tiling make_tiling(const xpb_cpu_rope_view *v)
{
    rope_tiling g;
    g.half = v->head_dim / 2;
    g.pairs = g.half < TILE ? g.half : TILE;
    g.positions = TILE / g.pairs;
    g.pair_tiles = (g.half + g.pairs - 1) / g.pairs;
    g.tiles = g.pair_tiles * ((v->seq + g.positions - 1) / g.positions);
    return g;
}

/* The bounds of tile `tile`: positions [*p0, *p1), pairs [*i0, *i1). */
static void tile_bounds(const rope_tiling *g, int64_t seq, int64_t tile, int64_t *p0,
                        int64_t *p1, int64_t *i0, int64_t *i1)
{
    *p0 = tile / g->pair_tiles * g->positions;
    *p1 = *p0 + g->positions < seq ? *p0 + g->positions : seq;
    *i0 = tile % g->pair_tiles * g->pairs;
    *i1 = *i0 + g->pairs < g->half ? *i0 + g->pairs : g->half;
}

static void fill_table(const double *inv_freq, int64_t p0, int64_t p1, int64_t i0, int64_t i1,
                       float *cos_t, float *sin_t)
{
    int64_t ni = i1 - i0;
    for (int64_t p = p0; p < p1; p++) {
        float *c = cos_t + (p - p0) * ni, *s = sin_t + (p - p0) * ni;
#pragma omp simd
        for (int64_t i = 0; i < ni; i++) {
            double sd, cd;
            xpb_cpu_sincos((double)p * inv_freq[i0 + i], &sd, &cd);
            c[i] = (float)cd;
            s[i] = (float)sd;
        }
    }
}

/* Rotates pairs [i0, i0 + ni) of the rows at positions [p0, p1) of one (batch, head). */
static void apply_table(const float *x, float *out, int64_t head_dim, int64_t p0, int64_t p1,
                        int64_t i0, int64_t ni, const float *cos_t, const float *sin_t)
{
    for (int64_t p = p0; p < p1; p++) {
        const float *xr = x + p * head_dim + 2 * i0;
        float *o = out + p * head_dim + 2 * i0;
        const float *c = cos_t + (p - p0) * ni, *s = sin_t + (p - p0) * ni;
#pragma omp simd
        for (int64_t i = 0; i < ni; i++) {
            float x0 = xr[2 * i], x1 = xr[2 * i + 1];
            o[2 * i] = x0 * c[i] - x1 * s[i];
            o[2 * i + 1] = x0 * s[i] + x1 * c[i];
        }
    }
}

/* tables: 2 TILE floats per thread of the team */
static void rope_run(const xpb_cpu_rope_view *v, const double *inv_freq, float *tables)
{
    rope_tiling g = make_tiling(v);
    int64_t items = g.tiles * v->batch_heads; /* (tile, batch-head), tile-major */
    int64_t head_size = v->seq * v->head_dim;
#pragma omp parallel if (head_size * v->batch_heads >= XPB_CPU_PARALLEL_MIN)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        float *cos_t = tables + (size_t)t * 2 * TILE, *sin_t = cos_t + TILE;
        /* a contiguous range of items per thread: a table is rebuilt only when the tile changes */
        int64_t first = items * t / nt, last = items * (t + 1) / nt;
        int64_t have = -1;
        int64_t p0 = 0, p1 = 0, i0 = 0, i1 = 0;
        for (int64_t item = first; item < last; item++) {
            int64_t tile = item / v->batch_heads, bh = item % v->batch_heads;
            if (tile != have) {
                tile_bounds(&g, v->seq, tile, &p0, &p1, &i0, &i1);
                fill_table(inv_freq, p0, p1, i0, i1, cos_t, sin_t);
                have = tile;
            }
            apply_table(v->x + bh * head_size, v->out + bh * head_size, v->head_dim, p0, p1, i0,
                        i1 - i0, cos_t, sin_t);
        }
    }
}

/* inv_freq[i] = base^(-2i/head_dim), computed as base^(-2(i-j)/head_dim) * base^(-2j/head_dim)
 * with j = i mod 64: pow runs half/64 + 64 times instead of half times (a head_dim in the
 * millions would otherwise spend longer here than in the rotation), and each entry is a product
 * of two correctly rounded doubles (~2e-16 relative). */
static void fill_inv_freq(double *inv_freq, int64_t half, int64_t head_dim, double base)
{
    double step[64];
    for (int64_t j = 0; j < 64 && j < half; j++)
        step[j] = pow(base, -2.0 * (double)j / (double)head_dim);
#pragma omp parallel for schedule(static) if (half >= 65536)
    for (int64_t i0 = 0; i0 < half; i0 += 64) {
        double f0 = pow(base, -2.0 * (double)i0 / (double)head_dim);
        for (int64_t j = 0; j < 64 && i0 + j < half; j++)
            inv_freq[i0 + j] = f0 * step[j];
    }
}

static xpb_status rope_launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)ctx;
    (void)state;
    const xpb_rope_args *a = args;
    xpb_cpu_rope_view v;
    xpb_status st = xpb_cpu_rope_resolve(a, &v, err);
    if (st != XPB_OK || v.batch_heads == 0 || v.seq == 0 || v.head_dim == 0)
        return st;
    int64_t half = v.head_dim / 2;
    size_t threads = (size_t)omp_get_max_threads();
    double *inv_freq = malloc((size_t)half * sizeof *inv_freq);
    float *tables = malloc(threads * 2 * TILE * sizeof *tables);
    if (!inv_freq || !tables) {
        free(inv_freq);
        free(tables);
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY,
                        "cpu: rope: cannot allocate %lld frequencies and %zu tables",
                        (long long)half, threads);
    }
    fill_inv_freq(inv_freq, half, v.head_dim, (double)a->base);
    rope_run(&v, inv_freq, tables);
    free(tables);
    free(inv_freq);
    return XPB_OK;
}

const xpb_kernel xpb_cpu_rope = {
    .op = XPB_OP_ROPE,
    .variant = "default",
    .precision = "fp32",
    .launch = rope_launch,
};
