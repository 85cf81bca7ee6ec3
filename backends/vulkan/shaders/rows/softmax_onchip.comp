#version 450
// softmax_onchip.comp - softmax, variant onchip: a workgroup per chunk, the chunk in registers,
// the partials exchanged inside one dispatch (rowop_onchip.glsl).
#extension GL_GOOGLE_include_directive : require
#define ROW_PARAMS 0
#define ONCHIP_OP 0
#include "rowop_onchip.glsl"
