# bash completion for ply, ply-coordinator and ply-worker. Installed once per
# program name in share/bash-completion/completions (bash-completion loads it
# by the command's name). The options come from the program's own --help,
# read once per shell and command, so they cannot fall behind the program.

declare -gA _ply_opts_cache 2>/dev/null

# The long and short options listed by "$@ --help" (lines that start with one).
_ply_help_opts()
{
    local key="$*"
    if [[ -z ${_ply_opts_cache[$key]+set} ]]; then
        _ply_opts_cache[$key]=$("$@" --help 2>/dev/null |
            sed -nE 's/^ {1,8}(-[A-Za-z0-9], *)?(--[a-z0-9][a-z0-9-]*).*/\1 \2/p' |
            tr -s ', ' '\n\n' | sort -u | tr '\n' ' ')
    fi
    printf '%s' "${_ply_opts_cache[$key]}"
}

# ply's commands, from the "Commands:" list of `ply --help`.
_ply_commands()
{
    "$1" --help 2>/dev/null | sed -nE '/^Commands:/,/^$/s/^  ([a-z][a-z-]*) .*/\1/p'
}

# Options whose argument is a file or a directory (every program).
_ply_file_arg()
{
    case $1 in
    --epd | --pgn | --state | --cert | --server-key | --book | -o | --output | --engine | -e | \
        --uci-engine | --worker-exe)
        _filedir
        return 0
        ;;
    --allow | --allow-clients | --admin-keys | --out)
        _filedir -d
        return 0
        ;;
    --laws)
        mapfile -t COMPREPLY < <(compgen -W 'fide2000 fide2023' -- "$2")
        return 0
        ;;
    --flag)
        mapfile -t COMPREPLY < <(compgen -W 'white black' -- "$2")
        return 0
        ;;
    --notation)
        mapfile -t COMPREPLY < <(compgen -W 'san lan fide' -- "$2")
        return 0
        ;;
    --to)
        mapfile -t COMPREPLY < <(compgen -W 'san lan fide uci' -- "$2")
        return 0
        ;;
    --verify)
        mapfile -t COMPREPLY < <(compgen -W 'none sample= all' -- "$2")
        compopt -o nospace 2>/dev/null
        return 0
        ;;
    esac
    return 1
}

_ply()
{
    local cur prev words cword
    _init_completion || return
    local prog=${words[0]}
    if [[ $cword -eq 1 ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_ply_commands "$prog") --help --version" -- "$cur")
        return
    fi
    _ply_file_arg "$prev" "$cur" && return
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_ply_help_opts "$prog" "${words[1]}")" -- "$cur")
        return
    fi
    case ${words[1]} in
    arbiter | analyse-pgn) _filedir '@(pgn|PGN)' ;;
    perft | analyse) [[ $cword -eq 2 ]] && mapfile -t COMPREPLY < <(compgen -W 'startpos' -- "$cur") ;;
    *) _filedir ;;
    esac
}

_ply_daemon()
{
    local cur prev words cword
    _init_completion || return
    _ply_file_arg "$prev" "$cur" && return
    mapfile -t COMPREPLY < <(compgen -W "$(_ply_help_opts "${words[0]}")" -- "$cur")
}

complete -F _ply ply
complete -F _ply_daemon ply-coordinator ply-worker
