/* elementwise.c - the elementwise and row-op workload (spec section 1): its presets, inputs and
 * argument packing. The fp64 reference and error bounds are in reference.c. */
#include "elementwise.h"
#include "size_keys.h"

#include <stdlib.h>
#include <string.h>

#include "xpb_rng.h"

#define RMSNORM_EPS 1e-6
#define LAYERNORM_EPS 1e-6
#define SCALE_A 0.7071067811865476 /* rounded to fp32 when passed: ops use the fp32 value */
#define ROPE_BASE 10000.0

static const xpb_op pointwise_ops[] = {XPB_OP_COPY, XPB_OP_ADD,     XPB_OP_MUL, XPB_OP_SCALE,
                                       XPB_OP_RELU, XPB_OP_SIGMOID, XPB_OP_SILU};
static const xpb_op row_ops[] = {XPB_OP_SOFTMAX, XPB_OP_RMSNORM, XPB_OP_LAYERNORM};

ew_family ew_family_of(xpb_op op)
{
    if (op == XPB_OP_SOFTMAX || op == XPB_OP_RMSNORM || op == XPB_OP_LAYERNORM)
        return EW_ROWS;
    return op == XPB_OP_ROPE ? EW_ROPE : EW_POINTWISE;
}

/* ---- sizes of each preset ------------------------------------------------------------------ */

typedef struct rows_size { int64_t rows, cols; } rows_size;
typedef struct rope_size { int64_t batch, heads, seq, head_dim; } rope_size;
typedef struct preset {
    const char *name;
    const int64_t *n; size_t n_count;
    const rows_size *rows; size_t rows_count;
    const rope_size *rope; size_t rope_count;
    bool wide_range; /* also run sigmoid/silu on inputs in [-100, 100) (stability) */
} preset;

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Awkward sizes: empty, tiny, around powers of two, odd row lengths, one long row. */
static const int64_t conf_n[] = {0, 1, 3, 255, 257, 4097, (1 << 20) + 3};
static const rows_size conf_rows[] = {{1, 1}, {3, 7}, {257, 7}, {37, 1000}, {5, 4096}, {1, 4097},
                                      {2, 65537}};
static const rope_size conf_rope[] = {{1, 1, 1, 2}, {1, 3, 7, 6}, {2, 3, 17, 64}, {1, 2, 257, 128}};

static const int64_t quick_n[] = {4097, 1 << 20};
static const rows_size quick_rows[] = {{255, 1000}, {64, 4096}};
static const rope_size quick_rope[] = {{1, 4, 128, 64}};

/* default: the DRAM roof needs arrays far over a 50 MB L2, hence 2^28; rows match the shapes
 * PyTorch figures exist for (device-facts.md). */
static const int64_t default_n[] = {1 << 20, 1 << 24, 1 << 28};
static const rows_size default_rows[] = {{4096, 1000}, {4096, 4096}, {32768, 4096}, {4096, 32768},
                                         {1024, 262144}};
static const rope_size default_rope[] = {{1, 32, 512, 64}, {4, 32, 2048, 128}};

static const int64_t full_n[] = {1 << 20, 1 << 24, (1 << 26) + 1, 1 << 28, 1 << 29};
static const rows_size full_rows[] = {{4096, 1000}, {4096, 4096},    {32768, 4096}, {4096, 32768},
                                      {1024, 262144}, {16384, 16384}, {65536, 128}};
static const rope_size full_rope[] = {{1, 32, 512, 64}, {4, 32, 2048, 128}, {8, 32, 4096, 128}};

static const preset presets[] = {
    {"conformance", conf_n, COUNT(conf_n), conf_rows, COUNT(conf_rows), conf_rope, COUNT(conf_rope), true},
    {"quick", quick_n, COUNT(quick_n), quick_rows, COUNT(quick_rows), quick_rope, COUNT(quick_rope), false},
    {"default", default_n, COUNT(default_n), default_rows, COUNT(default_rows), default_rope,
     COUNT(default_rope), false},
    {"full", full_n, COUNT(full_n), full_rows, COUNT(full_rows), full_rope, COUNT(full_rope), true},
};

/* ---- case construction ----------------------------------------------------------------------- */

static xpb_case new_case(xpb_op op)
{
    xpb_case c;
    memset(&c, 0, sizeof c);
    c.workload = &xpb_workload_elementwise;
    c.op = op;
    c.dtype = XPB_DTYPE_F32;
    return c;
}

static xpb_status push_pointwise(xpb_op op, int64_t n, int64_t range, xpb_case_list *l, xpb_error *e)
{
    xpb_case c = new_case(op);
    xpb_case_set_param(&c, "n", n);
    if (range != 1)
        xpb_case_set_param(&c, "range", range);
    c.scalar[0] = SCALE_A;
    int inputs = (op == XPB_OP_ADD || op == XPB_OP_MUL) ? 2 : 1;
    static const double flops_per[] = {[XPB_OP_COPY] = 0, [XPB_OP_ADD] = 1, [XPB_OP_MUL] = 1,
                                       [XPB_OP_SCALE] = 1, [XPB_OP_RELU] = 1, [XPB_OP_SIGMOID] = 4,
                                       [XPB_OP_SILU] = 5};
    c.elements = (uint64_t)n;
    c.bytes_read = (uint64_t)n * 4 * (uint64_t)inputs;
    c.bytes_written = (uint64_t)n * 4;
    c.flops = flops_per[op] * (double)n;
    xpb_case_make_id(&c);
    return xpb_case_list_push(l, &c, e);
}

static xpb_status push_rows_class(xpb_op op, int64_t rows, int64_t cols, xpb_input_class k,
                                  xpb_case_list *l, xpb_error *e)
{
    xpb_case c = new_case(op);
    xpb_case_set_param(&c, "rows", rows);
    xpb_case_set_param(&c, "cols", cols);
    if (k != XPB_INPUT_RANDOM) {
        xpb_case_set_param(&c, XPB_INPUT_KEY, k);
        c.validate_only = true;
    }
    c.scalar[1] = op == XPB_OP_LAYERNORM ? LAYERNORM_EPS : RMSNORM_EPS;
    uint64_t n = (uint64_t)rows * (uint64_t)cols;
    uint64_t params = op == XPB_OP_RMSNORM ? 1 : op == XPB_OP_LAYERNORM ? 2 : 0;
    c.elements = n;
    c.bytes_read = n * 4 + params * (uint64_t)cols * 4;
    c.bytes_written = n * 4;
    c.flops = (op == XPB_OP_SOFTMAX ? 5.0 : op == XPB_OP_RMSNORM ? 4.0 : 7.0) * (double)n;
    xpb_case_make_id(&c);
    return xpb_case_list_push(l, &c, e);
}

/* A row size: the random-input case, then one case per other input class of the op, or only
 * class `only` when it is not XPB_INPUT_COUNT (--size input=NAME). */
static xpb_status push_rows(xpb_op op, int64_t rows, int64_t cols, xpb_input_class only, xpb_case_list *l,
                            xpb_error *e)
{
    const xpb_input_class *classes;
    int n = ew_input_classes(op, &classes);
    xpb_status st = XPB_OK;
    for (int i = 0; i < n && !st; i++)
        if (only == XPB_INPUT_COUNT || only == classes[i])
            st = push_rows_class(op, rows, cols, classes[i], l, e);
    return st;
}

static xpb_status push_rope(const rope_size *s, xpb_case_list *l, xpb_error *e)
{
    xpb_case c = new_case(XPB_OP_ROPE);
    xpb_case_set_param(&c, "batch", s->batch);
    xpb_case_set_param(&c, "heads", s->heads);
    xpb_case_set_param(&c, "seq", s->seq);
    xpb_case_set_param(&c, "head_dim", s->head_dim);
    c.scalar[2] = ROPE_BASE;
    uint64_t n = (uint64_t)(s->batch * s->heads * s->seq * s->head_dim);
    c.elements = n;
    c.bytes_read = n * 4;
    c.bytes_written = n * 4;
    c.flops = 6.0 * (double)n;
    xpb_case_make_id(&c);
    return xpb_case_list_push(l, &c, e);
}

static xpb_status check_size(const char *what, int64_t v, int64_t min, xpb_error *err)
{
    /* 2^31 elements per array keeps every buffer under 8 GiB and every row count in int32 grids. */
    if (v < min || v > ((int64_t)1 << 31))
        return xpb_fail(err, XPB_ERR_USAGE, "bad size %s=%lld (must be %lld..2^31)", what,
                        (long long)v, (long long)min);
    return XPB_OK;
}

/* Cases from --size: each family whose keys are all given. */
static xpb_status add_sized(const xpb_sizes *s, xpb_case_list *l, xpb_error *err)
{
    int64_t n, rows, cols, b, h, q, d, in = XPB_INPUT_COUNT;
    xpb_status st = XPB_OK;
    xpb_sizes_get(s, XPB_INPUT_KEY, &in);
    bool random = in == XPB_INPUT_COUNT || in == XPB_INPUT_RANDOM; /* pointwise and rope: random only */
    if (random && xpb_sizes_get(s, "n", &n)) {
        if ((st = check_size("n", n, 0, err)))
            return st;
        for (size_t i = 0; i < COUNT(pointwise_ops) && !st; i++)
            st = push_pointwise(pointwise_ops[i], n, 1, l, err);
    }
    if (!st && xpb_sizes_get(s, "rows", &rows) && xpb_sizes_get(s, "cols", &cols)) {
        if ((st = check_size("rows", rows, 0, err)) || (st = check_size("cols", cols, 1, err)) ||
            (st = check_size("rows*cols", rows * cols, 0, err)))
            return st;
        for (size_t i = 0; i < COUNT(row_ops) && !st; i++)
            st = push_rows(row_ops[i], rows, cols, (xpb_input_class)in, l, err);
    }
    if (!st && random && xpb_sizes_get(s, "batch", &b) && xpb_sizes_get(s, "heads", &h) &&
        xpb_sizes_get(s, "seq", &q) && xpb_sizes_get(s, "head_dim", &d)) {
        if ((st = check_size("batch", b, 0, err)) || (st = check_size("heads", h, 0, err)) ||
            (st = check_size("seq", q, 0, err)) || (st = check_size("head_dim", d, 2, err)))
            return st;
        if (d % 2)
            return xpb_fail(err, XPB_ERR_USAGE, "bad size head_dim=%lld (rope needs it even)", (long long)d);
        if (b > 0 && h > 0 && q > 0 && b * h * q > (((int64_t)1 << 31) / d))
            return xpb_fail(err, XPB_ERR_USAGE, "bad size: rope batch*heads*seq*head_dim over 2^31");
        rope_size rs = {b, h, q, d};
        st = push_rope(&rs, l, err);
    }
    return st;
}

static xpb_status add_cases(const char *preset_name, const xpb_sizes *sizes, xpb_case_list *l,
                            xpb_error *err)
{
    if (sizes && sizes->count > 0)
        return add_sized(sizes, l, err);
    const preset *p = NULL;
    for (size_t i = 0; i < COUNT(presets); i++)
        if (strcmp(presets[i].name, preset_name) == 0)
            p = &presets[i];
    if (!p)
        return xpb_fail(err, XPB_ERR_USAGE, "unknown preset '%s' (quick, default, full, conformance)",
                        preset_name);
    xpb_status st = XPB_OK;
    for (size_t o = 0; o < COUNT(pointwise_ops) && !st; o++) {
        for (size_t i = 0; i < p->n_count && !st; i++)
            st = push_pointwise(pointwise_ops[o], p->n[i], 1, l, err);
        bool exp_op = pointwise_ops[o] == XPB_OP_SIGMOID || pointwise_ops[o] == XPB_OP_SILU;
        if (!st && exp_op && p->wide_range)
            st = push_pointwise(pointwise_ops[o], 4097, 100, l, err);
    }
    for (size_t o = 0; o < COUNT(row_ops) && !st; o++)
        for (size_t i = 0; i < p->rows_count && !st; i++)
            st = push_rows(row_ops[o], p->rows[i].rows, p->rows[i].cols, XPB_INPUT_COUNT, l, err);
    for (size_t i = 0; i < p->rope_count && !st; i++)
        st = push_rope(&p->rope[i], l, err);
    return st;
}

static bool knows_size_key(const char *k)
{
    static const char *const keys[] = {"n", "rows", "cols", "batch", "heads", "seq", "head_dim", XPB_INPUT_KEY};
    return xpb_size_key_in(k, keys, COUNT(keys));
}

/* ---- inputs ---------------------------------------------------------------------------------- */

/* Appends input `name` of n floats, filled with U[-1, 1) * scale + shift unless !fill (the
 * caller fills it). */
static xpb_status add_input(xpb_case_data *d, const char *name, size_t n, uint64_t seed,
                            float scale, float shift, bool fill, xpb_error *err)
{
    size_t bytes = n * sizeof(float);
    float *p = malloc(bytes ? bytes : 1);
    if (!p)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "cannot allocate %zu bytes of host memory for input %s",
                        bytes, name);
    if (fill)
        xpb_rng_fill_f32(p, n, seed, (uint64_t)d->n_in, scale, shift);
    d->in_name[d->n_in] = name;
    d->in[d->n_in] = p;
    d->in_bytes[d->n_in++] = bytes;
    return XPB_OK;
}

static xpb_status make_data(const xpb_case *c, uint64_t seed, xpb_case_data *d, xpb_error *err)
{
    memset(d, 0, sizeof *d);
    size_t n = (size_t)c->elements;
    float range = (float)xpb_case_param(c, "range", 1);
    bool random = ew_input_of(c) == XPB_INPUT_RANDOM;
    xpb_status st = add_input(d, "x", n, seed, range, 0.0f, random, err);
    if (!st && !random)
        ew_fill_row_input(ew_input_of(c), c->op, d->in[EW_IN_X], xpb_case_param(c, "rows", 0),
                          xpb_case_param(c, "cols", 0), seed);
    if (!st && (c->op == XPB_OP_ADD || c->op == XPB_OP_MUL))
        st = add_input(d, "y", n, seed, 1.0f, 0.0f, true, err);
    if (!st && (c->op == XPB_OP_RMSNORM || c->op == XPB_OP_LAYERNORM)) {
        size_t cols = (size_t)xpb_case_param(c, "cols", 0);
        st = add_input(d, "w", cols, seed, 0.5f, 1.0f, true, err); /* weights near 1, never all ones */
        if (!st && c->op == XPB_OP_LAYERNORM)
            st = add_input(d, "b", cols, seed, 0.5f, 0.0f, true, err);
    }
    if (st) {
        xpb_case_data_free(d);
        return st;
    }
    d->n_out = 1;
    d->out_name[0] = "out";
    d->out_bytes[0] = n * sizeof(float);
    d->out_elements = n;
    return XPB_OK;
}

static void make_args(const xpb_case *c, const xpb_view *in, const xpb_view *out, void *args)
{
    switch (ew_family_of(c->op)) {
    case EW_POINTWISE: {
        xpb_eltwise_args *a = args;
        memset(a, 0, sizeof *a);
        a->x = in[EW_IN_X];
        if (c->op == XPB_OP_ADD || c->op == XPB_OP_MUL)
            a->y = in[EW_IN_Y];
        a->out = out[0];
        a->n = (int64_t)c->elements;
        a->a = (float)c->scalar[0];
        break;
    }
    case EW_ROWS: {
        xpb_rowop_args *a = args;
        memset(a, 0, sizeof *a);
        a->x = in[EW_IN_X];
        if (c->op != XPB_OP_SOFTMAX)
            a->w = in[EW_IN_W];
        if (c->op == XPB_OP_LAYERNORM)
            a->b = in[EW_IN_B];
        a->out = out[0];
        a->rows = xpb_case_param(c, "rows", 0);
        a->cols = xpb_case_param(c, "cols", 0);
        a->eps = (float)c->scalar[1];
        break;
    }
    case EW_ROPE: {
        xpb_rope_args *a = args;
        memset(a, 0, sizeof *a);
        a->x = in[EW_IN_X];
        a->out = out[0];
        a->batch = xpb_case_param(c, "batch", 0);
        a->heads = xpb_case_param(c, "heads", 0);
        a->seq = xpb_case_param(c, "seq", 0);
        a->head_dim = xpb_case_param(c, "head_dim", 0);
        a->base = (float)c->scalar[2];
        break;
    }
    }
}

const xpb_workload_i xpb_workload_elementwise = {
    .name = "elementwise",
    .description = "copy, add, mul, scale, relu, sigmoid, silu, softmax, rmsnorm, layernorm, rope (fp32, bandwidth-bound)",
    .add_cases = add_cases,
    .knows_size_key = knows_size_key,
    .make_data = make_data,
    .make_args = make_args,
    .unit_elements = ew_unit_elements,
    .reference = ew_reference,
    .tolerance_text = ew_tolerance_text,
};
