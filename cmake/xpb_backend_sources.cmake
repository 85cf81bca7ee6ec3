# xpb_backend_sources(SOURCES_VAR DIRS_VAR DIRS folder... GLOBS pattern...)
#
# A backend's files live in folders by concern (runtime/, elementwise/, rows/, ...; the backend's
# README.md). SOURCES_VAR gets every file under the calling CMakeLists.txt's folder that matches a
# GLOBS pattern (e.g. *.c); DIRS_VAR gets the DIRS folders as full paths, the backend's include
# path, so that a file includes a header of another folder by its name alone. A source in a folder
# that DIRS does not name is a configure error: a new folder is added to the list on purpose, never
# built without its headers being found. Folders named shaders (GLSL, compiled apart) are skipped.
include_guard(GLOBAL)

function(xpb_backend_sources sources_var dirs_var)
  cmake_parse_arguments(PARSE_ARGV 2 B "" "" "DIRS;GLOBS")
  set(patterns "")
  foreach(g ${B_GLOBS})
    list(APPEND patterns ${CMAKE_CURRENT_SOURCE_DIR}/${g})
  endforeach()
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} ${patterns})
  list(FILTER sources EXCLUDE REGEX "(^|/)shaders/")
  set(full "")
  foreach(src ${sources})
    get_filename_component(dir ${src} DIRECTORY)
    if(dir STREQUAL "")
      set(dir .)
    endif()
    if(NOT dir IN_LIST B_DIRS)
      message(FATAL_ERROR "${CMAKE_CURRENT_SOURCE_DIR}/${src}: its folder ${dir} is not in the backend's DIRS list "
                          "(${CMAKE_CURRENT_LIST_FILE}); add it there")
    endif()
    list(APPEND full ${CMAKE_CURRENT_SOURCE_DIR}/${src})
  endforeach()
  set(dirs "")
  foreach(dir ${B_DIRS})
    if(dir STREQUAL ".")
      list(APPEND dirs ${CMAKE_CURRENT_SOURCE_DIR})
    else()
      list(APPEND dirs ${CMAKE_CURRENT_SOURCE_DIR}/${dir})
    endif()
  endforeach()
  set(${sources_var} ${full} PARENT_SCOPE)
  set(${dirs_var} ${dirs} PARENT_SCOPE)
endfunction()
