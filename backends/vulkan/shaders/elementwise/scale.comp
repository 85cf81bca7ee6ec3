#version 450
// scale.comp - out = a * x.
// Kernel shape: eltwise.glsl; launch: eltwise.c.
#extension GL_GOOGLE_include_directive : require
#define ELT_BINARY 0
#define ELT_OP(x, y) (pc.a * (x))
#include "eltwise.glsl"
