// rows_regs_emu.cc - cuda/regs' long-row kernel (cuda_rowop_regs.cuh, with the three ops'
// policies; rows_transform.py) run on the CPU by emu.h at its test shape 32x16x1 (512-float
// chunks, so rows of 257 - 5000 columns have 1 - 10 chunks), the grid capped so that blocks loop
// over several tasks, every owner handing over at once (SPIN 0) or polling (4096), float4 and
// scalar rows. The outputs must match an fp64 reference within a loose bound (the GPU conformance
// runs hold the documented one), nothing after the rows may be written, and the flags must show
// the protocol's end: each row's arrive equal to its chunks, and every chunk but the
// completer's claimed exactly once (handed over or kept by its owner), so each written once.
// Blocks run one after the other, so a row's completer (its last arrival) always runs after its
// owners: every owner times out and hands over, and the completer writes those chunks from x
// again. The owner that sees every chunk arrived, or loses its bid, and writes its own chunk (the "wrote
// their own" count, 0 here) is the GPU tests' (rows_regs_*_cuda), as is what the GPU's memory
// model does to the flags.
#include "rows_gen.h"

#include <cmath>
#include <random>
#include <string>

// softmax's exp form for the case running on this thread (run_case sets it: every softmax case
// runs the default form and XPB_CUDA_ROW_EXP=once), else the environment's
static thread_local const char *row_exp_form;

// xpb_knob.h's getters for the four knobs the plan reads, from the environment (tests set them)
static const char *env_of(xpb_knob_id id)
{
    if (id == XPB_KNOB_CUDA_ROW_EXP && row_exp_form)
        return row_exp_form;
    switch (id) {
    case XPB_KNOB_CUDA_REGS_SHAPE: return getenv("XPB_CUDA_REGS_SHAPE");
    case XPB_KNOB_CUDA_REGS_SPIN: return getenv("XPB_CUDA_REGS_SPIN");
    case XPB_KNOB_CUDA_REGS_GRID: return getenv("XPB_CUDA_REGS_GRID");
    case XPB_KNOB_CUDA_ROW_EXP: return getenv("XPB_CUDA_ROW_EXP");
    default: return nullptr;
    }
}
const char *xpb_knob_value(xpb_knob_id id)
{
    const char *v = env_of(id);
    return v && *v ? v : nullptr;
}
xpb_status xpb_knob_get_long_or(xpb_knob_id id, long def, long *out, xpb_error *)
{
    const char *v = xpb_knob_value(id);
    *out = v ? atol(v) : def;
    return XPB_OK;
}
xpb_status xpb_knob_get_long(xpb_knob_id id, long *out, xpb_error *err)
{
    return xpb_knob_get_long_or(id, id == XPB_KNOB_CUDA_REGS_SPIN ? 4096 : 0, out, err);
}
xpb_status xpb_knob_get_choice(xpb_knob_id id, int *out, xpb_error *)
{
    const char *v = xpb_knob_value(id);
    *out = v && !strcmp(v, "expf") ? 1 : v && !strcmp(v, "once") ? 2 : 0; // "fast|expf|once"
    return XPB_OK;
}

struct counts {
    long handed = 0, own = 0, tasks = 0;
};

// One launch of op Op's regs kernel with the shape, spin and grid cap given through the knobs;
// y gets rows x cols outputs and `guard` floats after them that must stay 0xff bytes.
template <class Op>
static int run(const char *name, const char *shape, long spin, long grid_cap, const float *x, const float *w,
               const float *b, float *y, int64_t rows, int cols, int guard, counts *cnt)
{
    setenv("XPB_CUDA_REGS_SHAPE", shape, 1);
    setenv("XPB_CUDA_REGS_SPIN", std::to_string(spin).c_str(), 1);
    if (grid_cap > 0)
        setenv("XPB_CUDA_REGS_GRID", std::to_string(grid_cap).c_str(), 1);
    else
        unsetenv("XPB_CUDA_REGS_GRID");
    xpb_cuda_ctx ctx = {};
    ctx.sm_count = 1, ctx.max_threads_per_sm = 2048, ctx.max_grid_x = 2147483647, ctx.cc_major = 9;
    xpb_error err = {};
    xpb_rowop_regs_plan plan;
    if (xpb_rowop_regs_make_plan(&ctx, rows, cols, name, Op::regs_shape, xpb_regs_slot<typename Op::State>::U64, &plan, &err)) {
        printf("%s %s: plan: %s\n", name, shape, err.msg);
        return 1;
    }
    xpb_rowop_ptrs p = {x, w, b, y, rows, cols, 1e-5f};
    const bool vec = cols % 4 == 0 && xpb_cuda_aligned16(x) && xpb_cuda_aligned16(y) && xpb_cuda_aligned16(w) &&
                     xpb_cuda_aligned16(b);
    const size_t words = xpb_rowop_regs_variant::flag_words(plan, rows);
    std::vector<uint32_t> flags(words + 1, 0xdeadbeefu);
    std::vector<typename Op::State> part((size_t)rows * plan.chunks);
    xpb_rowop_exchange s = {rows, cols, plan.chunk, plan.chunks, part.data(), words ? flags.data() : nullptr,
                            words * 4, 0};
    memset(y, 0xff, ((size_t)rows * cols + guard) * 4);
    if (xpb_rowop_regs_variant::go<Op>(&ctx, p, vec, &s, plan, name, &err)) {
        printf("%s %s: launch: %s\n", name, shape, err.msg);
        return 1;
    }
    for (int i = 0; i < guard; i++)
        if (__float_as_uint(y[(size_t)rows * cols + i]) != 0xffffffffu) {
            printf("%s %s rows %lld cols %d: guard float %d written\n", name, shape, (long long)rows, cols, i);
            return 1;
        }
    if (flags[words] != 0xdeadbeefu) {
        printf("%s %s: a flag past the buffer written\n", name, shape);
        return 1;
    }
    if (plan.chunks > 1) { // what each owner did: state 1 handed over, 2 wrote its own (the completer's: 0)
        const uint32_t *arrive = flags.data(), *state = arrive + rows;
        for (int64_t r = 0; r < rows; r++) {
            if (arrive[r] != (uint32_t)plan.chunks) {
                printf("%s %s: row %lld arrive %u\n", name, shape, (long long)r, arrive[r]);
                return 1;
            }
            int zeros = 0; // the completer's own chunk stays 0
            for (int c = 0; c < plan.chunks; c++) {
                const uint32_t v = state[r * plan.chunks + c];
                if (v > 2) {
                    printf("%s %s: row %lld chunk %d: state %u\n", name, shape, (long long)r, c, v);
                    return 1;
                }
                cnt->handed += v == 1, cnt->own += v == 2, zeros += v == 0;
            }
            if (zeros != 1) {
                printf("%s %s: row %lld: %d chunks never claimed\n", name, shape, (long long)r, zeros - 1);
                return 1;
            }
        }
    }
    cnt->tasks += rows * plan.chunks;
    return 0;
}

// fp64 reference of one row
static void reference(int op, const float *x, const float *w, const float *b, int cols, std::vector<double> &ref)
{
    ref.assign(cols, 0.0);
    if (op == 0) {
        double m = -INFINITY, s = 0;
        for (int c = 0; c < cols; c++)
            m = std::max(m, (double)x[c]);
        for (int c = 0; c < cols; c++)
            s += std::exp((double)x[c] - m);
        for (int c = 0; c < cols; c++)
            ref[c] = std::exp((double)x[c] - m) / s;
    } else if (op == 1) {
        double s = 0;
        for (int c = 0; c < cols; c++)
            s += (double)x[c] * x[c];
        const double rms = std::sqrt(s / cols + 1e-5);
        for (int c = 0; c < cols; c++)
            ref[c] = x[c] / rms * w[c];
    } else {
        double s = 0, q = 0;
        for (int c = 0; c < cols; c++)
            s += x[c];
        const double mean = s / cols;
        for (int c = 0; c < cols; c++)
            q += (x[c] - mean) * (x[c] - mean);
        const double sd = std::sqrt(q / cols + 1e-5);
        for (int c = 0; c < cols; c++)
            ref[c] = (x[c] - mean) / sd * w[c] + b[c];
    }
}

static const char *const op_names[] = {"softmax_regs", "rmsnorm_regs", "layernorm_regs"};

// 1 where a row of y is off the fp64 reference by more than the loose bound (the first printed)
static int check(int op, const float *x, const float *w, const float *b, const float *y, int64_t rows, int cols,
                 long spin, long cap, int off, std::vector<double> &ref)
{
    for (int64_t r = 0; r < rows; r++) {
        reference(op, x + r * cols, w, b, cols, ref);
        for (int c = 0; c < cols; c++) {
            const double got = y[r * cols + c], want = ref[c];
            if (!(std::fabs(got - want) <= 1e-4 * std::fabs(want) + 1e-5)) {
                printf("  %s row %lld col %d: %.9g, reference %.9g (spin %ld cap %ld %s%s)\n", op_names[op],
                       (long long)r, c, got, want, spin, cap, off ? "scalar" : "float4",
                       row_exp_form ? ", XPB_CUDA_ROW_EXP=once" : "");
                return 1;
            }
        }
    }
    return 0;
}

static const int op_cols[] = {1, 3, 255, 257, 4096, 4097, 5000};
static const int op_rows[] = {1, 3, 7};

// case: op x (columns, rows); each runs spin 0 / 4096 x grid uncapped / 3 x float4 where the
// rows allow it and scalar (the same rows one float off 16-byte alignment)
static int run_case(int ci)
{
    const int nc = (int)(sizeof op_cols / sizeof op_cols[0]), nr = (int)(sizeof op_rows / sizeof op_rows[0]);
    const int op = ci / (nc * nr), cols = op_cols[ci / nr % nc];
    const int64_t rows = op_rows[ci % nr];
    const size_t n = (size_t)rows * cols;
    const int guard = 37;
    // the grid-capped runs name the shape per op (XPB_CUDA_REGS_SHAPE's OP:SHAPE items, the form a
    // tuning writes), the others once for every op: the same 512-float chunks either way
    const char *const shape_all = "32x16x1", *const shape_per_op = "softmax:32x16x1,rmsnorm:32x16x1,layernorm:32x16x1";
    std::mt19937 rng(99 + ci);
    std::uniform_real_distribution<float> u(-4.0f, 4.0f), uw(0.5f, 1.5f);
    std::vector<float> xb(n), wb(cols), bb(cols);
    for (auto &v : xb)
        v = u(rng);
    for (auto &v : wb)
        v = uw(rng);
    for (auto &v : bb)
        v = u(rng);
    // 64 floats of slack in front: offset 0 is 256-byte aligned (float4), offset 1 is not
    auto al = [](float *p, int off) { return reinterpret_cast<float *>(((uintptr_t)p + 255) & ~(uintptr_t)255) + off; };
    int fails = 0;
    counts cnt;
    std::vector<double> ref;
    for (int off = 0; off < 2; off++) {
        if (off == 0 && cols % 4) // no float4 form for these rows
            continue;
        std::vector<float> xa(n + 128), wa(cols + 128), ba(cols + 128), ya(n + guard + 128);
        float *x = al(xa.data(), off), *w = al(wa.data(), off), *b = al(ba.data(), off), *y = al(ya.data(), off);
        memcpy(x, xb.data(), n * 4), memcpy(w, wb.data(), cols * 4), memcpy(b, bb.data(), cols * 4);
        for (long spin : {0L, 4096L})
            for (long cap : {0L, 3L}) {
                const char *const shape = cap ? shape_per_op : shape_all;
                int bad = 0;
                if (op == 0) { // the environment's exp form, then one __expf a value (once), each checked
                    for (const char *form : {(const char *)nullptr, "once"}) {
                        row_exp_form = form;
                        bad = run<xpb_softmax_policy>(op_names[op], shape, spin, cap, x, w, b, y, rows, cols, guard, &cnt);
                        if (!bad)
                            bad = check(op, x, w, b, y, rows, cols, spin, cap, off, ref);
                        row_exp_form = nullptr;
                        if (bad)
                            break;
                    }
                    fails += bad;
                    continue;
                } else if (op == 1)
                    bad = run<xpb_rmsnorm_policy>(op_names[op], shape, spin, cap, x, w, b, y, rows, cols, guard, &cnt);
                else
                    bad = run<xpb_layernorm_policy>(op_names[op], shape, spin, cap, x, w, b, y, rows, cols, guard, &cnt);
                if (bad) {
                    fails++;
                    continue;
                }
                fails += check(op, x, w, b, y, rows, cols, spin, cap, off, ref);
            }
    }
    printf("case %2d: %-14s rows %lld cols %4d: %ld tasks, owners: %ld handed over, %ld wrote their own: %s\n", ci,
           op_names[op], (long long)rows, cols, cnt.tasks, cnt.handed, cnt.own, fails ? "FAIL" : "ok");
    return fails != 0;
}

int main(int argc, char **argv)
{
    return emu_cases_main(argc, argv, 3 * 7 * 3, run_case,
                          "FAIL: a regs launch differs from the reference, wrote past its rows or left its flags wrong",
                          "ok: every regs launch within the reference's bound, guards untouched, every chunk claimed once");
}
