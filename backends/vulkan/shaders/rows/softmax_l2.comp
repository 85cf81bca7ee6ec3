#version 450
// softmax_l2.comp - softmax, variant l2: rows in L2-sized waves, a workgroup per chunk (rowop_l2.glsl).
#extension GL_GOOGLE_include_directive : require
#define ROW_PARAMS 0
#define L2_OP 0
#include "rowop_l2.glsl"
