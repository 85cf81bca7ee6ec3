#version 450
// add.comp - out = x + y.
// Kernel shape: eltwise.glsl; launch: eltwise.c.
#extension GL_GOOGLE_include_directive : require
#define ELT_BINARY 1
#define ELT_OP(x, y) ((x) + (y))
#include "eltwise.glsl"
