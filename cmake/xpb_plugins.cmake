# The plugin interface (docs/plugins.md): the public header include/xpubench/xpubench_plugin.h,
# installed with a CMake package (find_package(xpubench) gives xpubench::plugin), the loader's
# link to libdl, and the example plugins (libraries and a SPIR-V module), built here as the tests' fixtures exactly as a user's
# own CMake builds them (in this tree xpubench::plugin is the alias below).
add_library(xpb_plugin_headers INTERFACE)
target_include_directories(xpb_plugin_headers INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                           $<INSTALL_INTERFACE:include>)
add_library(xpubench::plugin ALIAS xpb_plugin_headers)
target_link_libraries(xpb_headers INTERFACE xpb_plugin_headers)
target_link_libraries(xpb PRIVATE ${CMAKE_DL_LIBS})

# The installed binary finds its libraries where the build found them. CMake's link-path RPATH
# leaves out folders inside the project, and the BLAS wheel's is one (.venv, a link into the
# user's cache): its real folder is added by hand.
set_target_properties(xpubench PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
foreach(xpb_rpath_lib IN LISTS XPB_BLAS_LIBRARY)
  if(IS_ABSOLUTE "${xpb_rpath_lib}")
    get_filename_component(xpb_rpath_dir "${xpb_rpath_lib}" REALPATH)
    get_filename_component(xpb_rpath_dir "${xpb_rpath_dir}" DIRECTORY)
    set_property(TARGET xpubench APPEND PROPERTY INSTALL_RPATH "${xpb_rpath_dir}")
  endif()
endforeach()
install(TARGETS xpubench DESTINATION bin)
install(FILES ${PROJECT_SOURCE_DIR}/include/xpubench/xpubench_plugin.h DESTINATION include/xpubench)
install(FILES ${PROJECT_SOURCE_DIR}/cmake/xpubenchConfig.cmake DESTINATION lib/cmake/xpubench)

add_subdirectory(examples/plugins/cpu_softmax)
add_subdirectory(examples/plugins/cpu_softmax_broken) # crash isolation's fixtures (tests/plugins/plugins_isolate.sh)
add_subdirectory(examples/plugins/cpu_softmax_cached) # the checks after timing's fixtures (tests/plugins/plugins_honest.sh)
add_subdirectory(examples/plugins/cpu_gemm) # GEMM and GEMV from a plugin (tests/plugins/plugins_gemm.sh)
if(XPB_HAVE_CUDA) # built, not run in CI (no GPU there): docs/plugins.md
  add_subdirectory(examples/plugins/cuda_softmax)
  add_subdirectory(examples/plugins/cuda_softmax_oob)
  add_subdirectory(examples/plugins/cuda_gemm)
endif()
if(XPB_HAVE_VULKAN) # a SPIR-V kernel and its two faulty twins, run on lavapipe in CI (tests/plugins/plugins_vulkan.sh)
  add_subdirectory(examples/plugins/vulkan_softmax)
endif()
