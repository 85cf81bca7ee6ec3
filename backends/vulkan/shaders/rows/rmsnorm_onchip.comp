#version 450
// rmsnorm_onchip.comp - rmsnorm, variant onchip: a workgroup per chunk, the chunk in registers,
// the partials exchanged inside one dispatch (rowop_onchip.glsl).
#extension GL_GOOGLE_include_directive : require
#define ROW_PARAMS 1
#define ONCHIP_OP 1
#include "rowop_onchip.glsl"
