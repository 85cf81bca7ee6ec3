#version 450
// coopmat_emu.comp - vulkan/coopmat's tiling (coopmat.glsl) with its 16x16x16 matrix operations
// emulated in shared memory: fp16 inputs, fp32 products and sums, like the cooperative-matrix
// version. coopmat.c uses it only when XPB_VULKAN_COOPMAT_EMULATE=1 on a device without
// cooperative matrices (lavapipe), to test the kernel's indexing, padding and epilogue. Slow.
#extension GL_GOOGLE_include_directive : require
#define XPB_CM_EMULATE 1
#include "coopmat.glsl"
