#version 450
// layernorm_onchip.comp - layernorm, variant onchip: a workgroup per chunk, the chunk in registers,
// fp64 statistics exchanged inside one dispatch (needs shaderFloat64) (rowop_onchip.glsl).
#extension GL_GOOGLE_include_directive : require
#define ROW_PARAMS 2
#define ONCHIP_OP 2
#define STATS_F64 1
#include "rowop_onchip.glsl"
