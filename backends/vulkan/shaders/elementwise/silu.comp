#version 450
// silu.comp - out = x * sigmoid(x), accurate down to x e^x ~ FLT_MIN.
// Kernel shape: eltwise.glsl; launch: eltwise.c.
#extension GL_GOOGLE_include_directive : require
#define ELT_BINARY 0
#define ELT_OP(x, y) (xpb_silu(x))
#include "eltwise.glsl"
