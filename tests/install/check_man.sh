#!/bin/sh
# The man pages read cleanly and say every option the programs have.
# Usage: check_man.sh BIN_DIR MAN_DIR   (the built programs; the built pages, man/*.1)
#  1. `man --warnings` renders each page with no warning (groff and man-db are the
#     tools Debian users read them with) and lexgrog finds its NAME line (what
#     mandb indexes for apropos and whatis).
#  2. Every long option listed by `ply-coordinator --help` and `ply-worker --help`
#     appears in its page, and every long option listed by `ply CMD --help`
#     appears in the page's "ply CMD" subsection (or under "Every command"), so
#     the pages cannot fall behind the programs. Every command of `ply --help`
#     has its subsection.
set -eu
bin=$1
man=$2
for tool in man lexgrog groff; do
    command -v "$tool" >/dev/null || { echo "check_man: $tool is missing (groff-base, man-db)"; exit 77; }
done
fail=0
bad() { echo "check_man: $*"; fail=1; }

for page in ply ply-coordinator ply-worker; do
    src=$man/$page.1
    [ -f "$src" ] || { bad "$src is missing"; continue; }
    warn=$(man --warnings -E UTF-8 -l -Tutf8 "$src" 2>&1 >/dev/null) || bad "$page.1: man failed"
    [ -z "$warn" ] || bad "$page.1: man --warnings printed:
$warn"
    lex=$(lexgrog "$src") || bad "$page.1: lexgrog finds no NAME section"
    case $lex in *"\"$page - "*) ;; *) bad "$page.1: lexgrog read '$lex', not '$page - ...'" ;; esac
done

# The long options of an option list: lines that start (after a few spaces)
# with "-x, --name" or "--name".
help_opts() { "$@" --help | sed -nE 's/^ {1,8}(-[A-Za-z0-9], *)?(--[a-z0-9][a-z0-9-]*).*/\2/p' | sort -u; }

# "SECTION<TAB>--option" for every long option written in a page, rendered on
# one very long line per paragraph (no line breaks, so no hyphenation inside
# an option). A section is a .SH heading or a .SS subsection ("ply perft").
page_opts() {
    groff -man -Tascii -rLL=4000n -P-cbou "$1" 2>/dev/null | awk '
        /^[A-Z]/ { sec = $0; next }
        /^   [^ ]/ { sec = substr($0, 4); next }
        { line = $0
          while (match(line, /--[a-z0-9][a-z0-9-]*/)) {
              print sec "\t" substr(line, RSTART, RLENGTH)
              line = substr(line, RSTART + RLENGTH)
          } }' | sort -u
}

# check PAGE_OPTS SECTION... : every option read on stdin is in one of the sections
check() {
    opts_file=$1
    label=$2
    shift 2
    while read -r opt; do
        found=0
        for sec in "$@"; do
            grep -qxF "$sec	$opt" "$opts_file" && found=1 && break
        done
        [ "$found" = 1 ] || bad "$label: $opt is in --help but not in its man page section ($*)"
    done
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for prog in ply-coordinator ply-worker; do
    page_opts "$man/$prog.1" | sed 's/^[^\t]*\t/OPTIONS\t/' >"$tmp/$prog"
    help_opts "$bin/$prog" >"$tmp/$prog.help"
    [ -s "$tmp/$prog.help" ] || bad "$prog --help lists no option"
    check "$tmp/$prog" "$prog" OPTIONS <"$tmp/$prog.help"
done

page_opts "$man/ply.1" >"$tmp/ply"
commands=$("$bin/ply" --help | sed -nE '/^Commands:/,/^$/s/^  ([a-z][a-z-]*) .*/\1/p')
[ -n "$commands" ] || bad "ply --help lists no command"
n=0
for cmd in $commands; do
    n=$((n + 1))
    groff -man -Tascii -rLL=4000n -P-cbou "$man/ply.1" 2>/dev/null | grep -qx "   ply $cmd" ||
        bad "ply.1 has no subsection \"ply $cmd\""
    help_opts "$bin/ply" "$cmd" >"$tmp/ply-$cmd.help"
    check "$tmp/ply" "ply $cmd" "ply $cmd" "Every command" <"$tmp/ply-$cmd.help"
done
echo "check_man: 3 pages; ply-coordinator $(wc -l <"$tmp/ply-coordinator.help") options," \
    "ply-worker $(wc -l <"$tmp/ply-worker.help") options, ply $n commands" \
    "($(cat "$tmp"/ply-*.help | wc -l) options) checked"
exit $fail
