#version 450
// burst_dynamics.comp - burst propagation, steps 2 and 3 for burst b (burst_dynamics.c launches
// it; xpb_ops.h): per neuron i, in = input[i] + (stimulus_draw(i, b) < stim_floor ? S : 0), then
// steps a-g of burst_dynamics_neuron (workloads/burst/reference.c) bit for bit (burst.glsl says
// how the fp32 steps stay exact); writes v, countdown, count, fired_flag[i] = 1 / 0 and input[i]
// = 0. Also compact's first pass, fused: a workgroup takes one of compact's blocks (the tiling of
// burst_compact.glsl) and leaves its fired count and degree sum in scratch, so a batch needs only
// compact's second pass. An invocation per neuron of a tile (the workgroup is a tile where the
// device allows); each neuron's inputs are loaded at once, so a neuron costs one memory round
// trip (refractory and snooze are read only when it fires).

#include "burst.glsl"

layout(local_size_x_id = 0) in;            // TILE, or less where the device allows less
layout(constant_id = 1) const uint TILE = 1024u; // neurons per tile (burst_compact.glsl)

layout(std430, set = 0, binding = 0) readonly buffer Threshold { float threshold[]; };
layout(std430, set = 0, binding = 1) readonly buffer ThresholdLimit { float threshold_limit[]; };
layout(std430, set = 0, binding = 2) readonly buffer Leak { float leak[]; };
layout(std430, set = 0, binding = 3) readonly buffer Excitability { float excitability[]; };
layout(std430, set = 0, binding = 4) readonly buffer Refractory { uint refractory[]; };
layout(std430, set = 0, binding = 5) readonly buffer FireLimit { uint fire_limit[]; };
layout(std430, set = 0, binding = 6) readonly buffer Snooze { uint snooze[]; };
layout(std430, set = 0, binding = 7) buffer V { float v_[]; };
layout(std430, set = 0, binding = 8) buffer Countdown { uint countdown[]; };
layout(std430, set = 0, binding = 9) buffer Count { uint count[]; };
layout(std430, set = 0, binding = 10) buffer Input { int input_[]; };
layout(std430, set = 0, binding = 11) writeonly buffer Flag { uint fired_flag[]; };
layout(std430, set = 0, binding = 12) readonly buffer Offsets { uint offsets[]; };
layout(std430, set = 0, binding = 13) writeonly buffer Scratch { uint scratch[]; };

shared uint s_count, s_events;

// Steps a-g for neuron i with its summed input; returns whether it fires.
bool neuron(uint i, int in_)
{
    const uint limit = fire_limit[i], cd0 = countdown[i], cnt0 = count[i];
    const float v0 = v_[i], th = threshold[i], lim = threshold_limit[i], lk = leak[i];
    const float ex = excitability[i];
    // a. refractory: count down; the count resets when the countdown ends a limit's snooze
    if (cd0 > 0u) {
        countdown[i] = cd0 - 1u;
        count[i] = cd0 == 1u && limit > 0u && cnt0 >= limit ? 0u : cnt0;
        return false;
    }
    // b. integrate
    float v = burst_integrate(v0, in_, pc.scale);
    // c. candidate
    bool candidate = th <= v && (lim == 0.0 || v <= lim);
    uint cnt = cnt0;
    bool fire = false;
    if (candidate && limit > 0u && cnt >= limit) {
        cnt = 0u; // d. limit hit: no fire, on to g
    } else if (candidate) {
        // e. excitability
        if (ex >= 0.999)
            fire = true;
        else if (ex > 0.0)
            fire = burst_draw_fires(burst_excitability_draw(i, pc.burst), ex);
    }
    if (fire) {
        // f. fire
        cnt += 1u;
        bool hit = limit > 0u && cnt >= limit;
        countdown[i] = refractory[i] + (hit ? snooze[i] : 0u);
        count[i] = cnt;
        v_[i] = 0.0;
        return true;
    }
    // g. rest: the count resets where a limit is set; leak
    countdown[i] = 0u;
    count[i] = limit > 0u ? 0u : cnt;
    v_[i] = burst_leak(v, lk);
    return false;
}

void main()
{
    const uint t = gl_LocalInvocationID.x, size = gl_WorkGroupSize.x;
    for (uint blk = gl_WorkGroupID.x; blk < pc.blocks; blk += gl_NumWorkGroups.x) {
        if (t == 0u) {
            s_count = 0u;
            s_events = 0u;
        }
        barrier();
        uint count = 0u, events = 0u;
        const uint t0 = blk * pc.per_block, t1 = min(t0 + pc.per_block, pc.tiles);
        for (uint tl = t0; tl < t1; tl++)
            for (uint o = t; o < TILE; o += size) {
                uint i = tl * TILE + o; // < 2^32: tiles start below n
                if (i >= pc.n)
                    break;
                int in_ = input_[i];
                if (burst_stimulus_draw(i, pc.burst) < pc.stim_floor)
                    in_ += pc.stim;
                bool fired = neuron(i, in_);
                input_[i] = 0;
                fired_flag[i] = fired ? 1u : 0u;
                if (fired) {
                    count += 1u;
                    events += offsets[i + 1u] - offsets[i];
                }
            }
        if (count != 0u) {
            atomicAdd(s_count, count);
            atomicAdd(s_events, events);
        }
        barrier();
        if (t == 0u) {
            scratch[2u * blk] = s_count;
            scratch[2u * blk + 1u] = s_events;
        }
        barrier(); // before the next block resets the sums
    }
}
