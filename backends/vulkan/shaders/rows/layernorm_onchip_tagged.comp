#version 450
// layernorm_onchip_tagged.comp - layernorm, variant onchip with its partials in epoch-tagged slots
// (needs shaderInt64 and shaderBufferInt64Atomics, and shaderFloat64; rowop_onchip.glsl).
#extension GL_GOOGLE_include_directive : require
#define ROW_PARAMS 2
#define OC_TAGGED 1
#define ONCHIP_OP 2
#define STATS_F64 1
#include "rowop_onchip.glsl"
