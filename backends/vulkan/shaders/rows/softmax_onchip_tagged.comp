#version 450
// softmax_onchip_tagged.comp - softmax, variant onchip with its partials in epoch-tagged slots
// (needs shaderInt64 and shaderBufferInt64Atomics; rowop_onchip.glsl).
#extension GL_GOOGLE_include_directive : require
#define ROW_PARAMS 0
#define OC_TAGGED 1
#define ONCHIP_OP 0
#include "rowop_onchip.glsl"
