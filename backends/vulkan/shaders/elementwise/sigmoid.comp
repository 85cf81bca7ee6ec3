#version 450
// sigmoid.comp - out = 1 / (1 + exp(-x)), stable for large |x|.
// Kernel shape: eltwise.glsl; launch: eltwise.c.
#extension GL_GOOGLE_include_directive : require
#define ELT_BINARY 0
#define ELT_OP(x, y) (xpb_sigmoid(x))
#include "eltwise.glsl"
