// anneal_tc_emu.cc - cuda/tc against cuda/default, both the kernels' own source run by emu.h on the
// CPU (anneal_tc_emu.sh builds it): every point's assign and dist must be equal bit for bit, with
// XPB_CUDA_ASSIGN_TC_RECHECK near (only near ties in the exact pass), all (every point, its
// threshold kept) and exact (every point against every anchor), each with anchor slices of 16, 32
// and 64 dimensions (XPB_CUDA_ASSIGN_TC_SLICE; zeros past d). The cases: the anneal conformance
// shapes' kinds of awkwardness (odd d: 4-byte copies and reads; d past the 128-dimension x chunk;
// m past one 128-anchor column tile; more list tiles than pass 2's grid) on data that makes near
// ties (many anchors on few blobs, duplicated anchors, small integers: exact ties), none (blobs, one
// anchor each), everything a candidate (points far from the origin) and values that are not finite
// (NaN coordinates, squares past fp32, in points and anchors), and the fp16 operands' scale
// (blobs of 1e-12 and of 1e15, outliers 100 times the anchors' size). First, every time: `supports`
// refuses, naming the scratch, a size whose fp16 anchors do not fit it. Arguments: the case
// numbers to run (default: all). Exit 0 when every case is equal.
#include "emu.h"

extern "C" const xpb_kernel xpb_cuda_anneal_assign_tc;
xpb_status xpb_cuda_anneal_assign_enqueue(const xpb_cuda_ctx *ctx, const float *x, const float *anchors, float *anorm,
                                          uint32_t *assign, float *dist, int64_t n, int64_t d, int64_t m,
                                          xpb_error *err);

enum kind { UNIFORM, BLOBS, CROWDED, DUPLICATES, FAR, ALL_POINTS, INTEGERS, NONFINITE, NONFINITE_ANCHORS, TINY, HUGE,
            OUTLIERS };
static const char *const kind_name[] = {"uniform", "blobs", "crowded", "duplicates", "far", "all-points", "integers",
                                        "nonfinite", "nf-anchors", "tiny", "huge", "outliers"};
struct shape {
    int n, d, m;
    kind k;
};
static const shape cases[] = {
    {1, 1, 1, UNIFORM},         {3, 3, 2, UNIFORM},       {255, 5, 3, BLOBS},       {257, 3, 7, BLOBS},
    {300, 64, 10, BLOBS},       {1000, 16, 16, CROWDED},  {1000, 16, 4, BLOBS},     {200, 33, 17, DUPLICATES},
    {130, 128, 129, BLOBS},     {150, 130, 40, BLOBS},    {129, 300, 9, FAR},       {140, 384, 140, CROWDED},
    {300, 8, 300, ALL_POINTS},  {260, 20, 60, INTEGERS},  {200, 16, 140, NONFINITE}, {130, 33, 7, NONFINITE},
    {200, 16, 140, NONFINITE_ANCHORS}, {300, 64, 20, TINY},  {300, 64, 20, HUGE},      {400, 33, 30, OUTLIERS},
};

static uint64_t rng = 88172645463325252ull;
static double uniform()
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}
static double normal() { return sqrt(-2 * log(uniform() + 1e-300)) * cos(6.283185307179586 * uniform()); }

struct dev_array {
    xpb_buffer b;
    xpb_view v;
    explicit dev_array(size_t bytes)
    {
        b.ptr = aligned_alloc(256, (bytes + 255) / 256 * 256), b.bytes = bytes;
        v.buf = &b, v.offset = 0;
    }
    ~dev_array() { free(b.ptr); }
    template <class T> T *as() { return static_cast<T *>(b.ptr); }
};

static int run_case(int ci)
{
    const shape c = cases[ci];
    const int n = c.n, d = c.d, m = c.m;
    const int blobs = c.k == CROWDED ? 3 : m;
    std::vector<float> x((size_t)n * d), a((size_t)m * d), centers((size_t)blobs * d);
    for (auto &v : centers)
        v = (float)(2 * uniform() - 1);
    for (int i = 0; i < n; i++)
        for (int e = 0; e < d; e++)
            x[(size_t)i * d + e] = c.k == UNIFORM    ? (float)(2 * uniform() - 1)
                                   : c.k == FAR      ? (float)(1000 + 2 * uniform() - 1)
                                   : c.k == INTEGERS ? (float)(int)(uniform() * 5)
                                                     : centers[(size_t)(i % blobs) * d + e] +
                                                           (float)(normal() * sqrt(0.01 / d));
    /* the fp16 operands' scale: blobs far below 1 (fp16's subnormals without it) and far above
     * fp16's 65504; points 100 times the anchors' size (past the scaled range: the exact pass) */
    const float mult = c.k == TINY ? 1e-12f : c.k == HUGE ? 1e15f : 1.0f;
    for (int i = 0; i < n; i++)
        for (int e = 0; e < d; e++)
            x[(size_t)i * d + e] *= mult;
    for (int j = 0; j < m; j++) {
        const int src = c.k == DUPLICATES   ? (j / 2) % n
                        : c.k == ALL_POINTS ? j
                                            : (int)((uint64_t)j * 7919 % (uint64_t)n);
        for (int e = 0; e < d; e++)
            a[(size_t)j * d + e] = c.k == UNIFORM ? (float)(2 * uniform() - 1) : x[(size_t)src * d + e];
        if (c.k == NONFINITE_ANCHORS && j == m - 1) /* the last anchor huge (every point untame) */
            a[(size_t)j * d] = 1e20f;
        if (c.k == NONFINITE_ANCHORS && j == m / 2) /* a NaN norm: every point to the exact pass */
            a[(size_t)j * d + d - 1] = NAN;
    }
    if (c.k == OUTLIERS) /* after the anchors: every 13th point 100 times as far out */
        for (int i = 0; i < n; i += 13)
            for (int e = 0; e < d; e++)
                x[(size_t)i * d + e] *= 100.0f;
    if (c.k == NONFINITE || c.k == NONFINITE_ANCHORS) /* after the anchors (clean copies): a NaN
                                                         * coordinate in every 17th point, 1e20 (its square
                                                         * past fp32) in every 19th */
        for (int i = 0; i < n; i++)
            x[(size_t)i * d + (size_t)i % d] = i % 17 == 3 ? NAN : i % 19 == 5 ? 1e20f : x[(size_t)i * d + (size_t)i % d];
    dev_array bx(x.size() * 4), ba(a.size() * 4), basg(n * 4), bdist(n * 4), bscratch(XPB_ANNEAL_SCRATCH_BYTES(n, m));
    memcpy(bx.b.ptr, x.data(), x.size() * 4), memcpy(ba.b.ptr, a.data(), a.size() * 4);
    // two SMs: pass 2's grid (two blocks an SM) is smaller than the list's tiles in the larger cases
    const xpb_cuda_ctx ctx = {0, nullptr, 2, 2048, 1 << 30, 9, 0, nullptr};
    xpb_error err = {};
    if (xpb_cuda_anneal_assign_enqueue(&ctx, bx.as<float>(), ba.as<float>(), bscratch.as<float>(), basg.as<uint32_t>(),
                                       bdist.as<float>(), n, d, m, &err)) {
        printf("default: %s\n", err.msg);
        return 1;
    }
    const std::vector<uint32_t> want_a(basg.as<uint32_t>(), basg.as<uint32_t>() + n);
    const std::vector<float> want_d(bdist.as<float>(), bdist.as<float>() + n);
    xpb_anneal_assign_args args = {bx.v, ba.v, basg.v, bdist.v, bscratch.v, n, d, m};
    int fails = 0;
    static const char *const modes[] = {"near", "all", "exact"};
    for (int run = 0; run < 9; run++) { /* slices of 16, 32, then 64, each with every mode */
        const char *mode = modes[run % 3], *slice = run < 3 ? "16" : run < 6 ? "32" : "64";
        setenv("XPB_CUDA_ASSIGN_TC_RECHECK", mode, 1);
        setenv("XPB_CUDA_ASSIGN_TC_SLICE", slice, 1);
        memset(basg.b.ptr, 0xff, n * 4), memset(bdist.b.ptr, 0xff, n * 4); /* poisoned, like the harness */
        xpb_status st = xpb_cuda_anneal_assign_tc.supports((void *)&ctx, &args, &err);
        if (st == XPB_OK)
            st = xpb_cuda_anneal_assign_tc.launch((void *)&ctx, &args, nullptr, &err);
        if (st != XPB_OK) {
            printf("tc: %s\n", err.msg);
            return 1;
        }
        // the list's count, carved after the m anchor norms and amax (256-byte pieces)
        const uint32_t listed = *reinterpret_cast<uint32_t *>(bscratch.as<char>() + (m * 4 + 255) / 256 * 256 + 256);
        int bad = 0;
        for (int i = 0; i < n; i++) {
            const uint32_t ga = basg.as<uint32_t>()[i];
            const float gd = bdist.as<float>()[i];
            if (ga != want_a[i] || memcmp(&gd, &want_d[i], 4) != 0) {
                if (bad < 5)
                    printf("  point %d: tc (%u, %.9g), default (%u, %.9g)\n", i, ga, gd, want_a[i], want_d[i]);
                bad++;
            }
        }
        printf("case %2d: n %4d d %3d m %3d %-10s slice %s recheck %-5s: %s (%u of %d points through the exact "
               "pass)\n", ci, n, d, m, kind_name[c.k], slice, mode, bad ? "DIFFERS" : "equal", listed, n);
        fails += bad != 0;
    }
    return fails;
}

/* `supports` where the anchors in fp16 do not fit the scratch (large m with large d): unsupported,
 * its reason named, before any memory is touched (no buffers behind the views). */
static int check_scratch_refusal()
{
    const xpb_cuda_ctx ctx = {0, nullptr, 2, 2048, 1 << 30, 9, 0, nullptr};
    xpb_anneal_assign_args args = {};
    args.n = 8192, args.d = 4096, args.m = 8192; /* 8192 x 4096 halves: 64 MiB past the scratch */
    xpb_error err = {};
    const xpb_status st = xpb_cuda_anneal_assign_tc.supports((void *)&ctx, &args, &err);
    const bool ok = st == XPB_ERR_UNSUPPORTED && strstr(err.msg, "scratch") != nullptr;
    printf("supports at n = m = 8192, d = 4096: %s (%s)\n", ok ? "unsupported, as it must be" : "WRONG", err.msg);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (check_scratch_refusal() != 0) /* every invocation: it takes no time */
        return 1;
    return emu_cases_main(argc, argv, (int)(sizeof cases / sizeof cases[0]), run_case,
                          "FAIL: cuda/tc differs from cuda/default",
                          "ok: cuda/tc equals cuda/default bit for bit");
}
