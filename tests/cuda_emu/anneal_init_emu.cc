// anneal_init_emu.cc - the sharded anneal run's INIT (anneal_sharded.cu: each rank the one-GPU
// step kernel over its points [r n / P, (r+1) n / P), then an all_reduce max of slot[s]) against
// the one-GPU init op (anneal_init.cu), both the kernels' own source run by emu.h on the CPU
// (anneal_init_emu.sh builds it): for groups of P = 1 .. 4 ranks, every rank's anchors and chosen
// must equal the one-GPU op's bit for bit, and no rank may write mind outside its own points (the
// odd steps' backward walk stays within the range). The all_reduce is emulated: after every
// rank's step s, each rank's slot[s] becomes the max over the ranks' slot[s]. The steps are queued
// as anneal_sharded.cu queues them (each rank's step s, then the reduce; none after the last).
// The data makes ties: small integers (exact distances, many equal), duplicated rows, one point
// repeated n times; on those the one-GPU op is also checked against a serial farthest-point
// init in double (exact here), ties to the lowest index; one case of uniform floats. Shapes: n 1,
// 3, 255, 257, 4097 (ranks of 0 points when P > n, ranges not a multiple of the 32 points of a
// block pass, more passes than the grid), m 1, 2, 7, d from 1 to 132 (float4 and scalar rows).
// The rows a step skips (its bounds: anneal_init.cu's "Speed") must change nothing: the one-GPU
// op (bounds on) is also run as one plan with them off, and its anchors, chosen ids and every
// point's mind must be equal bit for bit; clustered cases (tight blobs, m up to 24, float4 and
// scalar rows) make most rows skip, and each case prints the share of rows its steps skipped.
// Arguments: the case numbers to run (default: all). Exit 0 when every case is equal.
#include "cuda_anneal_emu.h"

extern "C" const xpb_kernel xpb_cuda_anneal_init;

enum kind { INTEGERS, DUPLICATES, SAME, UNIFORM, BLOBS };
static const char *const kind_name[] = {"integers", "duplicates", "same-point", "uniform", "blobs"};
struct shape {
    int n, m, d;
    kind k;
};
static const shape cases[] = {
    {1, 1, 4, INTEGERS},     {3, 1, 3, INTEGERS},      {3, 2, 1, SAME},          {255, 1, 8, UNIFORM},
    {255, 2, 5, INTEGERS},   {255, 7, 4, DUPLICATES},  {257, 1, 2, INTEGERS},    {257, 2, 132, DUPLICATES},
    {257, 7, 3, INTEGERS},   {4097, 1, 4, INTEGERS},   {4097, 2, 7, DUPLICATES}, {4097, 7, 4, INTEGERS},
    {257, 7, 1, INTEGERS},   {257, 7, 8, SAME},        {257, 7, 12, UNIFORM},
    {1000, 24, 16, BLOBS},   {300, 20, 132, BLOBS},    {600, 20, 7, BLOBS},      {257, 16, 3, UNIFORM},
};

static uint64_t rng; /* seeded per case: a case's data does not depend on which cases ran before */
static double uniform()
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

struct dev_array {
    xpb_buffer b = {};
    xpb_view v = {};
    explicit dev_array(size_t bytes)
    {
        b.ptr = aligned_alloc(256, (bytes + 255) / 256 * 256), b.bytes = bytes;
        memset(b.ptr, 0xff, (bytes + 255) / 256 * 256); /* poisoned, like the harness */
        v.buf = &b, v.offset = 0;
    }
    ~dev_array() { free(b.ptr); }
    dev_array(const dev_array &) = delete;
    template <class T> T *as() { return static_cast<T *>(b.ptr); }
};

// One device's buffers: x (a copy of the points: every rank holds them all), anchors, chosen, scratch.
struct device {
    dev_array x, anchors, chosen, scratch;
    xpb_anneal_init_args args;
    device(const std::vector<float> &pts, int n, int d, int m)
        : x(pts.size() * 4), anchors((size_t)m * d * 4), chosen((size_t)m * 4), scratch(XPB_ANNEAL_SCRATCH_BYTES(n, m))
    {
        memcpy(x.b.ptr, pts.data(), pts.size() * 4);
        args = {x.v, anchors.v, chosen.v, scratch.v, n, d, m};
    }
};

// The serial farthest-point init of docs/workloads.md in double: exact on small integers.
static std::vector<uint32_t> serial_init(const std::vector<float> &x, int n, int d, int m)
{
    std::vector<double> mind(n, INFINITY);
    std::vector<uint32_t> chosen(m);
    uint32_t p = 0;
    for (int s = 0; s < m; s++) {
        chosen[s] = p;
        uint32_t best = 0;
        for (int i = 0; i < n; i++) {
            double t = 0;
            for (int k = 0; k < d; k++) {
                const double u = (double)x[(size_t)i * d + k] - x[(size_t)p * d + k];
                t += u * u;
            }
            mind[i] = t < mind[i] ? t : mind[i];
            if (mind[i] > mind[best])
                best = (uint32_t)i;
        }
        p = best;
    }
    return chosen;
}

static int run_case(int ci)
{
    const shape c = cases[ci];
    const int n = c.n, m = c.m, d = c.d;
    rng = 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull * (uint64_t)ci;
    std::vector<float> x((size_t)n * d);
    std::vector<float> centre((size_t)8 * d); /* BLOBS: 8 centres in [-1, 1]^d, points within 0.01 */
    for (float &v : centre)
        v = (float)(2 * uniform() - 1);
    for (int i = 0; i < n; i++) {
        const int src = c.k == DUPLICATES ? (int)(uniform() * (n / 3 + 1)) : c.k == SAME ? 0 : i;
        const int b = (int)(uniform() * 8);
        for (int k = 0; k < d; k++)
            x[(size_t)i * d + k] = c.k == UNIFORM ? (float)(2 * uniform() - 1)
                                   : c.k == BLOBS ? centre[(size_t)b * d + k] + (float)(0.02 * uniform() - 0.01)
                                                  : (float)(int)(uniform() * 4);
        if (src < i)
            memcpy(&x[(size_t)i * d], &x[(size_t)src * d], (size_t)d * 4);
    }
    // one SM: a grid of 8 blocks (2048 / 256 threads), fewer than 4097 points' passes need
    const xpb_cuda_ctx ctx = {0, nullptr, 1, 2048, 1 << 30, 9, 0, nullptr};
    xpb_error err = {};
    device one(x, n, d, m);
    if (xpb_cuda_anneal_init.supports((void *)&ctx, &one.args, &err) != XPB_OK ||
        xpb_cuda_anneal_init.launch((void *)&ctx, &one.args, nullptr, &err) != XPB_OK) {
        printf("one GPU: %s\n", err.msg);
        return 1;
    }
    int fails = 0;
    if (c.k != UNIFORM && c.k != BLOBS) { // exact in double only on integers
        const std::vector<uint32_t> want = serial_init(x, n, d, m);
        if (memcmp(want.data(), one.chosen.as<uint32_t>(), (size_t)m * 4) != 0) {
            printf("case %2d: the one-GPU init differs from the serial one\n", ci);
            fails++;
        }
    }
    const size_t mind_at = xpb_anneal_piece((size_t)m * 8);
    {   // the bounds change nothing: one plan over all the points with them on and one with them
        // off, step by step; the rows skipped counted from the bounds kernel's thresholds and the
        // running minima (and their owners) before each step
        device on(x, n, d, m), off(x, n, d, m);
        xpb_anneal_init_plan pon, poff;
        if (xpb_cuda_anneal_init_plan_make(&ctx, &on.args, 0, n, &pon, &err) != XPB_OK ||
            xpb_cuda_anneal_init_plan_make(&ctx, &off.args, 0, n, &poff, &err) != XPB_OK) {
            printf("one plan: %s\n", err.msg);
            return 1;
        }
        poff.bound = false;
        long long skipped = 0, rows = 0;
        std::vector<float> mind0(n);
        std::vector<uint32_t> owner0(n);
        for (int s = 0; s < m; s++) {
            memcpy(mind0.data(), pon.mind, (size_t)n * 4);
            memcpy(owner0.data(), pon.owner, (size_t)n * 4);
            if (xpb_cuda_anneal_init_step_enqueue(&ctx, &pon, s, &err) != XPB_OK ||
                xpb_cuda_anneal_init_step_enqueue(&ctx, &poff, s, &err) != XPB_OK) {
                printf("step %d: %s\n", s, err.msg);
                return 1;
            }
            if (s >= 1 && s < m - 1) { // the thresholds this step used
                for (int i = 0; i < n; i++)
                    skipped += mind0[i] <= pon.thr[owner0[i]];
                rows += n;
            }
        }
        const float *mind_one = reinterpret_cast<const float *>(one.scratch.as<unsigned char>() + mind_at);
        bool same = true;
        for (const device *dv : {&on, &off})
            same = same && memcmp(dv->anchors.b.ptr, one.anchors.b.ptr, (size_t)m * d * 4) == 0 &&
                   memcmp(dv->chosen.b.ptr, one.chosen.b.ptr, (size_t)m * 4) == 0;
        same = same && (m == 1 || (memcmp(pon.mind, mind_one, (size_t)n * 4) == 0 &&
                                   memcmp(poff.mind, mind_one, (size_t)n * 4) == 0));
        printf("case %2d: n %4d m %2d d %3d %-10s bounds on / off: %s; rows skipped: %.1f%% of steps 1 .. m-2\n", ci,
               n, m, d, kind_name[c.k], same ? "equal (anchors, chosen, mind)" : "DIFFER",
               rows ? 100.0 * (double)skipped / (double)rows : 0.0);
        fails += !same;
    }
    for (int p = 1; p <= 4; p++) {
        std::vector<std::unique_ptr<device>> rank;
        std::vector<xpb_anneal_init_plan> plan(p);
        for (int r = 0; r < p; r++) {
            rank.emplace_back(new device(x, n, d, m));
            if (xpb_cuda_anneal_init_plan_make(&ctx, &rank[r]->args, (int64_t)r * n / p, (int64_t)(r + 1) * n / p,
                                               &plan[r], &err) != XPB_OK) {
                printf("rank %d of %d: %s\n", r, p, err.msg);
                return 1;
            }
        }
        for (int s = 0; s < m; s++) {
            for (int r = 0; r < p; r++)
                if (xpb_cuda_anneal_init_step_enqueue(&ctx, &plan[r], s, &err) != XPB_OK) {
                    printf("rank %d of %d, step %d: %s\n", r, p, s, err.msg);
                    return 1;
                }
            if (s == m - 1)
                break; /* as anneal_sharded.cu: nothing reads the last slot */
            unsigned long long top = 0;
            for (int r = 0; r < p; r++)
                top = plan[r].slot[s] > top ? plan[r].slot[s] : top;
            for (int r = 0; r < p; r++)
                plan[r].slot[s] = top;
        }
        int bad = 0;
        for (int r = 0; r < p; r++) {
            const bool same = memcmp(rank[r]->anchors.b.ptr, one.anchors.b.ptr, (size_t)m * d * 4) == 0 &&
                              memcmp(rank[r]->chosen.b.ptr, one.chosen.b.ptr, (size_t)m * 4) == 0;
            // mind outside [lo, hi) still the poison (m = 1 writes none at all)
            const int lo = (int)((int64_t)r * n / p), hi = (int)((int64_t)(r + 1) * n / p);
            const unsigned char *mind = rank[r]->scratch.as<unsigned char>() + mind_at;
            int stray = -1;
            for (int i = 0; i < n && stray < 0; i++)
                if ((i < lo || i >= hi || m == 1) && (mind[4 * i] & mind[4 * i + 1] & mind[4 * i + 2] & mind[4 * i + 3]) != 0xff)
                    stray = i;
            if (!same || stray >= 0) {
                if (bad < 3) {
                    printf("  P %d rank %d [%d, %d): %s", p, r, lo, hi, same ? "" : "anchors/chosen differ (chosen");
                    for (int s = 0; !same && s < m; s++)
                        printf(" %u/%u", rank[r]->chosen.as<uint32_t>()[s], one.chosen.as<uint32_t>()[s]);
                    printf("%s", same ? "" : ", rank/one GPU)");
                    if (stray >= 0)
                        printf(" wrote mind[%d] outside its points", stray);
                    printf("\n");
                }
                bad++;
            }
        }
        printf("case %2d: n %4d m %d d %3d %-10s P %d: %s (chosen", ci, n, m, d, kind_name[c.k], p,
               bad ? "DIFFERS" : "equal");
        for (int s = 0; s < m; s++)
            printf(" %u", one.chosen.as<uint32_t>()[s]);
        printf(")\n");
        fails += bad != 0;
    }
    return fails;
}

int main(int argc, char **argv)
{
    return emu_cases_main(argc, argv, (int)(sizeof cases / sizeof cases[0]), run_case,
                          "FAIL: the sharded init differs from the one-GPU init",
                          "ok: the sharded init equals the one-GPU init bit for bit on every rank");
}
