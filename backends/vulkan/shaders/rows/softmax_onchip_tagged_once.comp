#version 450
// softmax_onchip_tagged_once.comp - softmax_onchip_once.comp with its partials in epoch-tagged
// slots (needs shaderFloat64, shaderInt64 and shaderBufferInt64Atomics; rowop_onchip.glsl).
#extension GL_GOOGLE_include_directive : require
#define ROW_PARAMS 0
#define OC_TAGGED 1
#define OC_ONCE 1
#define ONCHIP_OP 0
#include "rowop_onchip.glsl"
