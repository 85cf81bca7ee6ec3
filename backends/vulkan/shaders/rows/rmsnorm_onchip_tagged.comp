#version 450
// rmsnorm_onchip_tagged.comp - rmsnorm, variant onchip with its partials in epoch-tagged slots
// (needs shaderInt64 and shaderBufferInt64Atomics; rowop_onchip.glsl).
#extension GL_GOOGLE_include_directive : require
#define ROW_PARAMS 1
#define OC_TAGGED 1
#define ONCHIP_OP 1
#include "rowop_onchip.glsl"
