#!/bin/bash
# The bash completion (completions/ply.bash) offers ply's commands and each
# program's options, read from its --help, as bash-completion would call it.
# Usage: check_completion.sh BIN_DIR COMPLETION_FILE
set -u
bin=$1
comp=$2
bc=/usr/share/bash-completion/bash_completion
[ -r "$bc" ] || { echo "check_completion: bash-completion is not installed"; exit 77; }
export PATH="$bin:$PATH"
# shellcheck disable=SC1090
. "$bc"
# shellcheck disable=SC1090
. "$comp"
fail=0

# complete LINE: what <TAB> offers at the end of LINE (the last word may be empty)
complete_line() {
    read -r -a COMP_WORDS <<<"$1"
    [[ $1 == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMP_LINE=$1
    COMP_POINT=${#1}
    COMPREPLY=()
    local fn
    fn=$(complete -p "${COMP_WORDS[0]}" | sed -nE 's/.*-F ([^ ]+).*/\1/p')
    "$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
}

expect() {
    local got
    got=$(complete_line "$1")
    if [ "$got" != "$2" ]; then
        echo "check_completion: '$1<TAB>' gave '$got', expected '$2'"
        fail=1
    else
        echo "ok: '$1<TAB>' -> $got"
    fi
}

expect "ply per" "perft perft-diff "
expect "ply an" "analyse analyse-pgn "
expect "ply --v" "--version "
expect "ply perft --d" "--depth --detach --divide "
expect "ply perft -" "$(ply perft --help | sed -nE 's/^ {1,8}(-[A-Za-z0-9], *)?(--[a-z0-9][a-z0-9-]*).*/\1 \2/p' | tr -s ', ' '\n\n' | sort -u | tr '\n' ' ')"
expect "ply analyse-pgn --ca" "--cache "
expect "ply arbiter --laws f" "fide2000 fide2023 "
expect "ply arbiter --notation " "fide lan san "
expect "ply arbiter --not" "--notation "
expect "ply san --to l" "lan "
expect "ply perft --verify s" "sample= "
expect "ply-worker --conn" "--connect "
expect "ply-worker --engine-o" "--engine-option "
expect "ply-coordinator --allow-c" "--allow-clients "
expect "ply-coordinator --worker-" "--worker-exe --worker-hash --worker-threads --worker-wait-ms "
exit $fail
