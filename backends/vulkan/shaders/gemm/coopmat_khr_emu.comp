#version 450
// coopmat_khr_emu.comp - vulkan/coopmat-khr's tiling (coopmat_khr.glsl) with its 16x16x16 matrix
// operations emulated in shared memory: fp16 inputs, fp32 products and sums. coopmat_khr.c uses it
// only when XPB_VULKAN_COOPMAT_EMULATE=1 on a device without VK_KHR_cooperative_matrix
// (lavapipe), to test the stages, indexing, padding and both epilogues. Slow; compiled by glslc,
// so it exists even in a build without glslangValidator.
#extension GL_GOOGLE_include_directive : require
#define XPB_CM_EMULATE 1
#include "coopmat_khr.glsl"
