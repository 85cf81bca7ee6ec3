#version 450
// relu.comp - out = max(0, x).
// Kernel shape: eltwise.glsl; launch: eltwise.c.
#extension GL_GOOGLE_include_directive : require
#define ELT_BINARY 0
#define ELT_OP(x, y) (max((x), 0.0))
#include "eltwise.glsl"
