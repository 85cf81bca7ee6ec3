# find_package(xpubench): the plugin interface of an installed xpubench (docs/plugins.md).
# Defines xpubench::plugin, an interface target carrying the include folder of
# <xpubench/xpubench_plugin.h>; a plugin links no xpubench library.
get_filename_component(_xpb_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET xpubench::plugin)
  add_library(xpubench::plugin INTERFACE IMPORTED)
  set_target_properties(xpubench::plugin PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_xpb_prefix}/include")
endif()
unset(_xpb_prefix)
