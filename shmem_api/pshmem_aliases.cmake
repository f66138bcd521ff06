# cmake -DCC=<C compiler> -DINCLUDE=<shmem_api/include> -DOUT=<file> -P pshmem_aliases.cmake
# Writes the linker script that gives every routine of pshmem.h its second name: one line
# "pshmem_NAME = shmem_NAME;" per routine, the list read from the preprocessed pshmem.h (so it
# is the declaration list itself).  A routine declared but not defined fails the link here.
file(WRITE ${OUT}.c "#include <pshmem.h>\n")
execute_process(COMMAND ${CC} -E -P -std=c99 -I${INCLUDE} ${OUT}.c
  OUTPUT_VARIABLE pre RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "preprocessing pshmem.h failed: ${err}")
endif()
string(REGEX MATCHALL "pshmem_[A-Za-z0-9_]+[ ]*\\(" calls "${pre}")
set(names "")
foreach(c IN LISTS calls)
  string(REGEX REPLACE "^pshmem_([A-Za-z0-9_]+).*" "\\1" n "${c}")
  list(APPEND names ${n})
endforeach()
list(REMOVE_DUPLICATES names)
list(SORT names)
list(LENGTH names count)
if(count LESS 100)
  message(FATAL_ERROR "only ${count} pshmem_ routines found in pshmem.h")
endif()
set(text "/* Generated from pshmem.h by pshmem_aliases.cmake: ${count} routines. */\n")
foreach(n IN LISTS names)
  string(APPEND text "pshmem_${n} = shmem_${n};\n")
endforeach()
file(WRITE ${OUT}.tmp "${text}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.tmp ${OUT})
