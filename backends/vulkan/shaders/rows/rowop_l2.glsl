// rowop_l2.glsl - variant l2 of the row ops (softmax, rmsnorm, layernorm): rows in waves sized to
// stay in L2, each row in chunks of CHUNK values, one workgroup per chunk (rowop_l2.c launches it).
//
// The default variant streams a long row through one workgroup and reads it twice (layernorm:
// three times); with ~one row per SM in flight and 1 MiB rows, the re-read misses L2. Here a
// wave of a few rows (host: ~16 MiB of input) is read by many workgroups at once, each chunk's
// partial statistics go to a small buffer `part`, and the next phase (a later dispatch, after a
// barrier) merges the row's partials and re-reads its chunk, now from L2.
//
// Phases (NP of them): softmax, rmsnorm: 0 statistics, 1 write. Layernorm keeps the default's
// statistics (layernorm.glsl, docs/validation.md: sums, never merged means): 0 the chunk's sum,
// 1 the row's mean from the merged sums, then the chunk's sum of (x - mean)^2, 2 write.
// Dispatch `disp` runs phase p of wave disp - p for p in [pmin, pmax] (its tasks: the latest
// phase first, each wave's tasks row by row, chunk by chunk), so one dispatch can write wave w
// while it reads wave w + 1 for statistics (one barrier per wave instead of NP). `part` holds NP
// waves (slot = wave % NP): the waves in one dispatch never share a slot.
//
// Merging: every workgroup of a row merges the same partials in the same fixed order (invocation
// i takes partials i, i + BLOCK, ... in turn, then the workgroup reduction), so all chunks of a row
// use bit-identical statistics and every run gives the same bits.
//
// The including shader defines ROW_PARAMS (as rowop.glsl) and L2_OP: 0 softmax, 1 rmsnorm,
// 2 layernorm.
#define ROW_PUSH_EXTRA                                                                          \
    uint disp;      /* dispatch number: phase p works on wave disp - p          */           \
    uint pmin;      /* phases of this dispatch: pmin..pmax                        */           \
    uint pmax;                                                                                   \
    uint wave_rows; /* rows per wave (the last wave may have fewer)               */           \
    uint chunks;    /* chunks per row                                             */
#include "rowop.glsl"

#if ROW_PARAMS == 2
#define L2_PART_BINDING 4
#elif ROW_PARAMS == 1
#define L2_PART_BINDING 3
#else
#define L2_PART_BINDING 2
#endif
// Partial statistics of each chunk: softmax (max, sum of exp(x - max)), rmsnorm (sum of x^2, -),
// layernorm (sum of x, sum of (x - mean)^2).
layout(std430, set = 0, binding = L2_PART_BINDING) buffer Part { vec2 part[]; };

#if L2_OP == 2
const uint NP = 3u;
#else
const uint NP = 2u;
#endif

// Task t of this dispatch: its phase, row, chunk and the index of the row's first partial.
// False when t is past the last task.
bool l2_task(uint t, out uint phase, out uint row, out uint ch, out uint pbase)
{
    for (int p = int(pc.pmax); p >= int(pc.pmin); p--) {
        uint w = pc.disp - uint(p);
        uint nr = min(pc.wave_rows, pc.rows - w * pc.wave_rows);
        uint nt = nr * pc.chunks;
        if (t < nt) {
            uint r = t / pc.chunks;
            phase = uint(p);
            row = w * pc.wave_rows + r;
            ch = t - r * pc.chunks;
            pbase = ((w % NP) * pc.wave_rows + r) * pc.chunks;
            return true;
        }
        t -= nt;
    }
    phase = 0u;
    row = 0u;
    ch = 0u;
    pbase = 0u;
    return false;
}

// Component j of the row's partials, added in the fixed order above.
float part_sum(uint pbase, uint j)
{
    float s = 0.0;
    for (uint i = gl_LocalInvocationID.x; i < pc.chunks; i += BLOCK)
        s += part[pbase + i][j];
    return wg_sum(s);
}

void l2_publish(uint slot, uint j, float v)
{
    if (gl_LocalInvocationID.x == 0u)
        part[slot][j] = v;
}

#if L2_OP == 0 // ---- softmax ------------------------------------------------------------------

#include "row_parts.glsl"

void l2_chunk(uint phase, uint base, uint c0, uint pbase, uint ch)
{
    if (phase == 0u) { // the chunk's max and its sum of exp(x - max)
        row_load(base, c0, -XPB_FLT_MAX);
        vec2 ms = row_softmax_partial(c0, false);
        if (gl_LocalInvocationID.x == 0u)
            part[pbase + ch] = ms;
        return;
    }
    // The row's max, then its sum (row_parts.glsl). The chunk is loaded first, so its reads
    // overlap the merge.
    row_load(base, c0, 0.0);
    vec2 t = row_softmax_total(pbase, vec2(0.0));
    float mrow = t.x;
    float inv = 1.0 / t.y;
    [[unroll]] for (uint k = 0; k < VPT; k++)
        row_store(base, c0, k, row_exp_neg(rv[k] - mrow) * inv);
}

#elif L2_OP == 1 // ---- rmsnorm ----------------------------------------------------------------

void l2_chunk(uint phase, uint base, uint c0, uint pbase, uint ch)
{
    row_load(base, c0, 0.0);
    if (phase == 0u) { // the chunk's sum of squares
        vec4 acc = vec4(0.0);
        [[unroll]] for (uint k = 0; k < VPT; k++)
            acc += rv[k] * rv[k];
        l2_publish(pbase + ch, 0u, wg_sum(hsum(acc)));
        return;
    }
    float r = inversesqrt(part_sum(pbase, 0u) / float(pc.cols) + pc.eps);
    [[unroll]] for (uint k = 0; k < VPT; k++)
        row_store(base, c0, k, rv[k] * r * row_w(c0, k));
}

#else // ---- layernorm -----------------------------------------------------------------------

// The row's mean from its chunks' sums; phases 1 and 2 call this same code on the same partials.
float l2_mean(uint pbase) { return part_sum(pbase, 0u) / float(pc.cols); }

void l2_chunk(uint phase, uint base, uint c0, uint pbase, uint ch)
{
    row_load(base, c0, 0.0);
    if (phase == 0u) { // the chunk's sum
        vec4 s4 = vec4(0.0);
        [[unroll]] for (uint k = 0; k < VPT; k++)
            s4 += rv[k];
        l2_publish(pbase + ch, 0u, wg_sum(hsum(s4)));
        return;
    }
    float mean = l2_mean(pbase);
    if (phase == 1u) { // the chunk's sum of (x - mean)^2
        vec4 q4 = vec4(0.0);
        [[unroll]] for (uint k = 0; k < VPT; k++) {
            vec4 d = mix(vec4(0.0), rv[k] - mean, row_valid(c0, k));
            q4 += d * d;
        }
        l2_publish(pbase + ch, 1u, wg_sum(hsum(q4)));
        return;
    }
    float r = inversesqrt(part_sum(pbase, 1u) / float(pc.cols) + pc.eps);
    [[unroll]] for (uint k = 0; k < VPT; k++)
        row_store(base, c0, k, (rv[k] - mean) * r * row_w(c0, k) + row_b(c0, k));
}
#endif

void main()
{
    // Grid-stride over the tasks (the host caps the grid at maxComputeWorkGroupCount[0]); t is
    // uniform in the workgroup, so the reductions' barriers are in uniform control flow.
    for (uint t = gl_WorkGroupID.x;; t += gl_NumWorkGroups.x) {
        uint phase, row, ch, pbase;
        if (!l2_task(t, phase, row, ch, pbase))
            break;
        l2_chunk(phase, row * pc.cols, ch * CHUNK, pbase, ch);
    }
}
