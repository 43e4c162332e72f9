# Run at every build (cmake -P, from the ply_git_hash target): writes
# ply_git.h with the commit the sources are at, rewriting it only when the
# text changes, so an unchanged tree rebuilds nothing.
#   -DSOURCE_DIR=<the project's sources> -DOUTPUT=<path of ply_git.h>
# "unknown" when git is missing or SOURCE_DIR is not the top of a git
# checkout (a tarball unpacked inside some other repository must not take
# that repository's commit). "-dirty" when tracked files differ from it.
set(PLY_GIT_HASH "unknown")
find_program(GIT_EXECUTABLE git)
if(GIT_EXECUTABLE)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} rev-parse --show-toplevel
    OUTPUT_VARIABLE top RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0)
    file(REAL_PATH "${top}" top)
    file(REAL_PATH "${SOURCE_DIR}" src)
  endif()
  if(rc EQUAL 0 AND top STREQUAL src)
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} rev-parse --short=12 HEAD
      OUTPUT_VARIABLE hash RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(rc EQUAL 0 AND hash MATCHES "^[0-9a-f]+$")
      set(PLY_GIT_HASH "${hash}")
      # status refreshes the index first (a file merely touched is not a change) and,
      # unlike update-index, skips that when another git holds the index lock
      execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} status --porcelain --untracked-files=no
        OUTPUT_VARIABLE changes RESULT_VARIABLE rc ERROR_QUIET)
      if(rc EQUAL 0 AND NOT changes STREQUAL "")
        set(PLY_GIT_HASH "${PLY_GIT_HASH}-dirty")
      endif()
    endif()
  endif()
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/ply_git.h.in ${OUTPUT} @ONLY)
