#version 450
// gemv.comp - y(1xN) = alpha * x(1xK) * B(KxN) + beta * y_in, fp32 (gemv.c launches it). It is
// bandwidth-bound: B is read exactly once, in rows, by coalesced loads.
//
// PASS 0: the columns are cut into strips of 4*CX, K into chunks of `chunk` rows; a workgroup
//   takes one (strip, chunk) unit at a time (grid-stride). Its CX x RY invocations: lane
//   (0..CX-1) owns 4 columns (one vec4 when VEC4, N % 4 == 0; else 4 scalars CX apart, which keeps
//   the loads coalesced), row group ry (0..RY-1) takes rows ry, ry + RY, ... of the chunk, U rows
//   per step with all U loads issued before the FMAs. The RY partial sums of a lane are added in
//   shared memory in a fixed order (ry = 0, 1, ...). With one chunk (splits == 1) that is the
//   result; else it goes to partial[chunk index][N].
// PASS 1: y = alpha * sum of the partials (chunk 0, 1, ... in order) + beta * y_in.
// No atomics: the result is the same bit for bit from run to run.
// y_in (binding 2) is read only when beta != 0; gemv.c binds y there otherwise.
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;                  // CX * RY
layout(constant_id = 1) const uint CX = 64;       // lanes across a strip
layout(constant_id = 2) const uint U = 8;         // rows in flight per invocation
layout(constant_id = 3) const bool VEC4 = true;   // N % 4 == 0
layout(constant_id = 4) const uint PASS = 0;

layout(push_constant) uniform Push {
    uint n, k;
    uint chunk;  // rows of K per unit
    uint splits; // chunks: ceil(k / chunk)
    uint strips; // ceil(n / (4 * CX))
    float alpha, beta;
} pc;

layout(std430, set = 0, binding = 0) readonly buffer X { float xs[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 1) readonly buffer B4 { vec4 b4[]; };
layout(std430, set = 0, binding = 2) readonly buffer Yi { float yi[]; };
layout(std430, set = 0, binding = 2) readonly buffer Yi4 { vec4 yi4[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { float y[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y4 { vec4 y4[]; };
layout(std430, set = 0, binding = 4) buffer P { float part[]; };
layout(std430, set = 0, binding = 4) buffer P4 { vec4 part4[]; };

const uint BLOCK = gl_WorkGroupSize.x;
const uint RY = BLOCK / CX;

shared vec4 red[BLOCK];

// Row r of B at this lane's columns; columns past N read as 0.
vec4 load_row(uint r, uint col0, uint lane)
{
    if (VEC4) {
        uint col = col0 + 4u * lane;
        return col < pc.n ? b4[(r * pc.n + col) / 4u] : vec4(0.0);
    }
    vec4 v;
    [[unroll]] for (uint j = 0; j < 4u; j++) {
        uint col = col0 + lane + j * CX;
        v[j] = col < pc.n ? b[r * pc.n + col] : 0.0;
    }
    return v;
}

float finish(float s, uint col)
{
    s *= pc.alpha;
    if (pc.beta != 0.0)
        s += pc.beta * yi[col];
    return s;
}

// Writes this lane's 4 sums: to y when there is one chunk, else to partial row `split`.
void write_sums(vec4 s, uint col0, uint lane, uint split)
{
    if (VEC4) {
        uint col = col0 + 4u * lane;
        if (col >= pc.n)
            return;
        if (pc.splits > 1u) {
            part4[(split * pc.n + col) / 4u] = s;
        } else {
            s *= pc.alpha;
            if (pc.beta != 0.0)
                s += pc.beta * yi4[col / 4u];
            y4[col / 4u] = s;
        }
        return;
    }
    [[unroll]] for (uint j = 0; j < 4u; j++) {
        uint col = col0 + lane + j * CX;
        if (col < pc.n) {
            if (pc.splits > 1u)
                part[split * pc.n + col] = s[j];
            else
                y[col] = finish(s[j], col);
        }
    }
}

void pass_main()
{
    const uint lane = gl_LocalInvocationIndex % CX, ry = gl_LocalInvocationIndex / CX;
    for (uint g = gl_WorkGroupID.x; g < pc.strips * pc.splits; g += gl_NumWorkGroups.x) {
        uint strip = g % pc.strips, split = g / pc.strips;
        uint col0 = strip * 4u * CX;
        uint kb = split * pc.chunk, ke = min(pc.k, kb + pc.chunk);
        vec4 acc = vec4(0.0);
        uint r = kb + ry;
        for (; r + (U - 1u) * RY < ke; r += U * RY) {
            vec4 v[U];
            float xv[U];
            [[unroll]] for (uint u = 0; u < U; u++) {
                v[u] = load_row(r + u * RY, col0, lane);
                xv[u] = xs[r + u * RY];
            }
            [[unroll]] for (uint u = 0; u < U; u++)
                acc += xv[u] * v[u];
        }
        for (; r < ke; r += RY)
            acc += xs[r] * load_row(r, col0, lane);

        red[gl_LocalInvocationIndex] = acc;
        barrier();
        if (ry == 0u) {
            vec4 s = red[lane];
            [[unroll]] for (uint i = 1; i < RY; i++)
                s += red[i * CX + lane];
            write_sums(s, col0, lane, split);
        }
        barrier(); // red is free again
    }
}

// One output (vec4 or float) per invocation, grid-stride.
void pass_reduce()
{
    uint units = VEC4 ? pc.n / 4u : pc.n;
    for (uint u = gl_GlobalInvocationID.x; u < units; u += gl_NumWorkGroups.x * BLOCK) {
        if (VEC4) {
            vec4 s = part4[u];
            for (uint i = 1; i < pc.splits; i++)
                s += part4[i * units + u];
            s *= pc.alpha;
            if (pc.beta != 0.0)
                s += pc.beta * yi4[u];
            y4[u] = s;
        } else {
            float s = part[u];
            for (uint i = 1; i < pc.splits; i++)
                s += part[i * units + u];
            y[u] = finish(s, u);
        }
    }
}

void main()
{
    if (PASS == 0u)
        pass_main();
    else
        pass_reduce();
}
