#version 450
// rmsnorm_l2.comp - rmsnorm, variant l2: rows in L2-sized waves, a workgroup per chunk (rowop_l2.glsl).
#extension GL_GOOGLE_include_directive : require
#define ROW_PARAMS 1
#define L2_OP 1
#include "rowop_l2.glsl"
