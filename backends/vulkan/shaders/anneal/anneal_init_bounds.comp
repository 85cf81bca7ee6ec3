#version 450
// anneal_init_bounds.comp - the dispatch before step s of the farthest-point init
// (anneal_init.glsl, "The bound"): each anchor's threshold against the step's new anchor.
#extension GL_GOOGLE_include_directive : require
#define SUM_SHUFFLE 0
#define BOUNDS 1
#include "anneal_init.glsl"
