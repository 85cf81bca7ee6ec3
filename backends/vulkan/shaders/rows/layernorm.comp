#version 450
// layernorm.comp - layernorm, the default variant: fp32 statistics in two passes (layernorm.glsl).
#extension GL_GOOGLE_include_directive : require
#define ROW_PARAMS 2
#define STATS_F64 0
#include "rowop.glsl"
#include "layernorm.glsl"
