#version 450
// anneal_init_shuffle.comp - the farthest-point init step (anneal_init.glsl), a point's lane
// partials summed by subgroup shuffles: devices that shuffle in compute shaders (anneal_init.c).
#extension GL_GOOGLE_include_directive : require
#define SUM_SHUFFLE 1
#include "anneal_init.glsl"
