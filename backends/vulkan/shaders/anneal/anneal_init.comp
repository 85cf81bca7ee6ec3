#version 450
// anneal_init.comp - the farthest-point init step (anneal_init.glsl), a point's lane partials
// summed through shared memory: any device.
#extension GL_GOOGLE_include_directive : require
#define SUM_SHUFFLE 0
#include "anneal_init.glsl"
