#version 450
// anneal_stats_anchor.comp - per-anchor statistics of anneal stats (anneal_stats.c launches it
// after anneal_stats.comp grouped the points): one workgroup per anchor j (grid-stride), with its
// c = cnt[j] members (dist bits, point index) at members[start[j] ..].
//  1. Sort the members ascending by the key (dist bits, index): a bitonic network in which every
//     compare-exchange puts the smaller key first (the first step of each merge compares mirrored
//     pairs), over c rounded up to a power of two; the missing keys count as +infinity, so a pair
//     whose upper end is >= c never exchanges and is skipped. In shared memory when c <= S, else
//     in place in scratch (coherent buffer, memoryBarrierBuffer + barrier between steps: only
//     this workgroup touches that range). Keys are distinct (indices are), so the sorted order is
//     unique: every later sum has a canonical order, and the result is the same bits whatever
//     order the scatter's atomics left.
//  2. t = floor(c * trim) in double; kept = sorted positions [t, c - t), or all of them when
//     c - 2t < 1 (also for a negative or NaN t).
//  3. Per dimension (DP dimensions at a time, R = B / DP member slices each: slice r takes the
//     positions r, r + R, ... in order): the kept points' sum in double, the R slices added in
//     order; mean = float(sum / kept). Then sum over all c points of (x - mean)^2 in double, with
//     the fp32 mean; var = float(sum / (c - 1)), 0 when c < 2. An anchor with c = 0 gets zeros.
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;           // B, a power of two
layout(constant_id = 1) const uint S = 2048; // keys sorted in shared memory (power of two)
layout(constant_id = 2) const uint DP = 128; // dimensions per pass (power of two <= B)

layout(push_constant) uniform Push {
    uint n, d, m, pad;
    double trim;
} pc;

layout(std430, set = 0, binding = 0) readonly buffer X { float xs[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Mu { float mean[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Var { float var[]; };
layout(std430, set = 0, binding = 3) coherent buffer Su { uint su[]; };
layout(std430, set = 0, binding = 3) coherent buffer Sm { uvec2 members[]; };

const uint B = gl_WorkGroupSize.x;
const uint R = B / DP;

shared uint kd[S], ki[S]; // the keys of a group of at most S members: dist bits, index
shared double red[B];
shared float mus[DP];

bool key_gt(uvec2 a, uvec2 b)
{
    return a.x > b.x || (a.x == b.x && a.y > b.y);
}

uvec2 key_at(bool sh, uint base, uint p)
{
    return sh ? uvec2(kd[p], ki[p]) : members[base + p];
}

void key_put(bool sh, uint base, uint p, uvec2 v)
{
    if (sh) {
        kd[p] = v.x;
        ki[p] = v.y;
    } else {
        members[base + p] = v;
    }
}

uint index_at(bool sh, uint base, uint p)
{
    return sh ? ki[p] : members[base + p].y;
}

void sort_keys(bool sh, uint base, uint c)
{
    const uint tid = gl_LocalInvocationIndex;
    uint pw = 1u;
    while (pw < c)
        pw <<= 1;
    for (uint k = 2u; k <= pw; k <<= 1) {
        for (uint j = k >> 1; j > 0u; j >>= 1) {
            for (uint q = tid; q < pw / 2u; q += B) {
                uint lo = (q / j) * 2u * j + q % j;
                uint hi = j == (k >> 1) ? (q / j) * k + k - 1u - q % j : lo + j;
                if (hi < c) {
                    uvec2 a = key_at(sh, base, lo), b = key_at(sh, base, hi);
                    if (key_gt(a, b)) {
                        key_put(sh, base, lo, b);
                        key_put(sh, base, hi, a);
                    }
                }
            }
            memoryBarrierBuffer();
            barrier();
        }
    }
}

// sum over positions p0, p0 + R, ... < p1 of x[index(p)][k], in double, in that order
double sum_x(bool sh, uint base, uint p0, uint p1, uint k)
{
    double acc = 0.0;
    uint p = p0;
    for (; p + 3u * R < p1; p += 4u * R) {
        float v0 = xs[index_at(sh, base, p) * pc.d + k];
        float v1 = xs[index_at(sh, base, p + R) * pc.d + k];
        float v2 = xs[index_at(sh, base, p + 2u * R) * pc.d + k];
        float v3 = xs[index_at(sh, base, p + 3u * R) * pc.d + k];
        acc += double(v0);
        acc += double(v1);
        acc += double(v2);
        acc += double(v3);
    }
    for (; p < p1; p += R)
        acc += double(xs[index_at(sh, base, p) * pc.d + k]);
    return acc;
}

// sum over positions p0, p0 + R, ... < p1 of (x[index(p)][k] - mu)^2, in double, in that order
double sum_sq(bool sh, uint base, uint p0, uint p1, uint k, float mu)
{
    const double dm = double(mu);
    double acc = 0.0;
    uint p = p0;
    for (; p + 3u * R < p1; p += 4u * R) {
        float v0 = xs[index_at(sh, base, p) * pc.d + k];
        float v1 = xs[index_at(sh, base, p + R) * pc.d + k];
        float v2 = xs[index_at(sh, base, p + 2u * R) * pc.d + k];
        float v3 = xs[index_at(sh, base, p + 3u * R) * pc.d + k];
        double t0 = double(v0) - dm, t1 = double(v1) - dm, t2 = double(v2) - dm, t3 = double(v3) - dm;
        acc += t0 * t0;
        acc += t1 * t1;
        acc += t2 * t2;
        acc += t3 * t3;
    }
    for (; p < p1; p += R) {
        double t = double(xs[index_at(sh, base, p) * pc.d + k]) - dm;
        acc += t * t;
    }
    return acc;
}

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    const uint kk = tid % DP, r = tid / DP;
    const uint cnt = 2u * pc.n, start = cnt + pc.m;
    for (uint j = gl_WorkGroupID.x; j < pc.m; j += gl_NumWorkGroups.x) {
        const uint c = su[cnt + j], base = su[start + j];
        if (c == 0u) {
            for (uint k = tid; k < pc.d; k += B) {
                mean[j * pc.d + k] = 0.0;
                var[j * pc.d + k] = 0.0;
            }
            continue;
        }

        // 1. sort the group by key
        const bool sh = c <= S;
        if (sh) {
            for (uint p = tid; p < c; p += B) {
                uvec2 v = members[base + p];
                kd[p] = v.x;
                ki[p] = v.y;
            }
            barrier();
        }
        sort_keys(sh, base, c);

        // 2. the kept positions
        uint lo = 0u, hi = c;
        double tt = floor(double(c) * pc.trim);
        if (tt >= 0.0 && double(c) - 2.0 * tt >= 1.0) {
            lo = uint(tt);
            hi = c - lo;
        }

        // 3. mean and variance, DP dimensions at a time
        for (uint k0 = 0u; k0 < pc.d; k0 += DP) {
            const uint k = k0 + kk;
            red[tid] = k < pc.d ? sum_x(sh, base, lo + r, hi, k) : 0.0;
            barrier();
            if (r == 0u) {
                float mu = 0.0;
                if (k < pc.d) {
                    double s = red[kk];
                    for (uint q = 1u; q < R; q++)
                        s += red[q * DP + kk];
                    mu = float(s / double(hi - lo));
                    mean[j * pc.d + k] = mu;
                }
                mus[kk] = mu;
            }
            barrier();
            red[tid] = k < pc.d ? sum_sq(sh, base, r, c, k, mus[kk]) : 0.0;
            barrier();
            if (r == 0u && k < pc.d) {
                double s = red[kk];
                for (uint q = 1u; q < R; q++)
                    s += red[q * DP + kk];
                var[j * pc.d + k] = c >= 2u ? float(s / double(c - 1u)) : 0.0;
            }
            barrier(); // red, mus and the keys are written again
        }
    }
}
