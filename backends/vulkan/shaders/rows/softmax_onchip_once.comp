#version 450
// softmax_onchip_once.comp - softmax, variant onchip with one exp a value (XPB_VULKAN_ROW_ONCHIP_EXPS
// =once; its factor in fp64, so it needs shaderFloat64): a workgroup per chunk, the chunk in
// registers, the partials exchanged inside one dispatch (rowop_onchip.glsl).
#extension GL_GOOGLE_include_directive : require
#define ROW_PARAMS 0
#define OC_ONCE 1
#define ONCHIP_OP 0
#include "rowop_onchip.glsl"
