#version 450
// coopmat_khr.khr.comp - vulkan/coopmat-khr on cooperative matrices through GL_KHR_cooperative_matrix
// (VK_KHR_cooperative_matrix: fp16 x fp16 + fp32 -> fp32 at 16x16x16, subgroup scope). The body is
// coopmat_khr.glsl; vk_coopmat.c checks the extension, its features and the shape before use.
// The .khr.comp suffix makes the build compile it with glslangValidator >= 13 (Debian 12's glslc
// has no GL_KHR_cooperative_matrix): backends/vulkan/CMakeLists.txt.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#include "coopmat_khr.glsl"
