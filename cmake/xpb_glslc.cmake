# xpb_glslc(SRC OUT [ASM ASM_OUT] [FLAGS flag...] [DEPENDS file...] [COMMENT text])
#
# One custom command: glslc compiles the GLSL compute shader SRC into OUT (binary SPIR-V; C
# numbers with -mfmt=num among FLAGS), writing a depfile so that a change to a file SRC includes
# re-runs it; OUT's folder is made at configure time. ASM also writes the disassembly (the same FLAGS but -mfmt, with -S) for reading.
# Used for the Vulkan backend's shaders (backends/vulkan/CMakeLists.txt) and the SPIR-V example
# plugin (examples/plugins/vulkan_softmax). Needs Vulkan_GLSLC_EXECUTABLE (find_package(Vulkan
# COMPONENTS glslc)).
include_guard(GLOBAL)

function(xpb_glslc src out)
  cmake_parse_arguments(G "" "ASM;COMMENT" "FLAGS;DEPENDS" ${ARGN})
  get_filename_component(dir ${out} DIRECTORY)
  file(MAKE_DIRECTORY ${dir}) # glslc writes no folder (nor its depfile's)
  set(outs ${out})
  set(cmds COMMAND ${Vulkan_GLSLC_EXECUTABLE} ${G_FLAGS} -MD -MF ${out}.d -o ${out} ${src})
  if(G_ASM)
    set(asm_flags ${G_FLAGS})
    list(FILTER asm_flags EXCLUDE REGEX "^-mfmt=")
    list(APPEND cmds COMMAND ${Vulkan_GLSLC_EXECUTABLE} ${asm_flags} -S -o ${G_ASM} ${src})
    list(APPEND outs ${G_ASM})
  endif()
  if(NOT G_COMMENT)
    set(G_COMMENT "glslc ${src}")
  endif()
  add_custom_command(OUTPUT ${outs} ${cmds} DEPENDS ${src} ${G_DEPENDS} DEPFILE ${out}.d COMMENT "${G_COMMENT}"
                     VERBATIM)
endfunction()
