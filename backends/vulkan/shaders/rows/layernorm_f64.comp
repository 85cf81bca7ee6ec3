#version 450
// layernorm_f64.comp - layernorm, variant f64stats: the statistics in fp64, one pass (needs shaderFloat64) (layernorm.glsl).
#extension GL_GOOGLE_include_directive : require
#define ROW_PARAMS 2
#define STATS_F64 1
#include "rowop.glsl"
#include "layernorm.glsl"
