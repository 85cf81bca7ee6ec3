#version 450
// coopmat.comp - vulkan/coopmat on cooperative matrices through GL_NV_cooperative_matrix
// (VK_NV_cooperative_matrix: fp16 x fp16 + fp32 -> fp32 at 16x16x16, subgroup scope). The body is
// coopmat.glsl; coopmat.c checks the extension, its features and the shape before using it.
// Debian 12's glslc has no GLSL for GL_KHR_cooperative_matrix, hence the NV extension.
#extension GL_GOOGLE_include_directive : require
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#include "coopmat.glsl"
