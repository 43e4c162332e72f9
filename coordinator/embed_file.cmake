# Writes the bytes of IN as a C array NAME (NUL-terminated) and NAME_len into OUT, so that
# the coordinator serves dashboard.html from its binary (http.h).
# Run as: cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed_file.cmake
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" hexlen)
math(EXPR nbytes "${hexlen} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n  " bytes "${bytes}")
file(WRITE "${OUT}.tmp"
  "/* Generated from ${IN} by coordinator/embed_file.cmake: do not edit. */\n"
  "#include <stddef.h>\n"
  "const char ${NAME}[] = {\n  ${bytes}0x00};\n"
  "const size_t ${NAME}_len = ${nbytes};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
