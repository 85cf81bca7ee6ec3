#version 450
// layernorm_l2.comp - layernorm, variant l2: rows in L2-sized waves, a workgroup per chunk (rowop_l2.glsl).
#extension GL_GOOGLE_include_directive : require
#define ROW_PARAMS 2
#define L2_OP 2
#include "rowop_l2.glsl"
