#!/bin/sh
# Gathers the results of a ply-array.sbatch campaign (deploy/slurm/README.md):
# RESULTS/I.json and RESULTS/I.rc for I = 1..N, N the number of lines of LIST (or
# the largest I found). Writes RESULTS/all.json, an array of
#   {"task": I, "exit": STATUS or null, "line": "the EPD line", "result": the task's JSON or null}
# and says how many tasks finished, failed (exit status not 0) and are missing.
# Usage: gather.sh RESULTS [LIST]. Exit status 0 all finished with 0, 1 otherwise, 2 usage.
set -eu
if [ $# -lt 1 ] || [ ! -d "$1" ]; then echo "usage: gather.sh RESULTS_DIR [LIST]" >&2; exit 2; fi
dir=$1
if [ $# -ge 2 ]; then
    [ -r "$2" ] || { echo "gather.sh: cannot read $2" >&2; exit 2; }
    n=$(wc -l <"$2")
else
    n=$(find "$dir" -maxdepth 1 -name '[0-9]*.rc' | sed 's|.*/||; s|\.rc$||' | sort -n | tail -n 1)
    n=${n:-0}
fi

# JSON string of a line: backslashes and double quotes escaped (EPD has no control characters).
jstr() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }

ok=0 failed=0 missing=0 bad=""
out=$dir/all.json.part
{
    echo "["
    i=1
    while [ "$i" -le "$n" ]; do
        line=""
        if [ $# -ge 2 ]; then line=$(sed -n "${i}p" "$2");
        elif [ -r "$dir/$i.epd" ]; then line=$(cat "$dir/$i.epd"); fi
        rc=null result=null
        if [ -r "$dir/$i.rc" ]; then rc=$(cat "$dir/$i.rc"); fi
        if [ "$rc" != null ] && [ -s "$dir/$i.json" ]; then result=$(cat "$dir/$i.json"); fi
        case $rc in
            null) missing=$((missing + 1)); bad="$bad $i(missing)" ;;
            0) ok=$((ok + 1)) ;;
            *) failed=$((failed + 1)); bad="$bad $i(exit $rc)" ;;
        esac
        [ "$i" -gt 1 ] && echo ","
        printf '{"task": %s, "exit": %s, "line": %s, "result": %s}' "$i" "$rc" "$(jstr "$line")" "$result"
        i=$((i + 1))
    done
    echo
    echo "]"
} >"$out"
mv "$out" "$dir/all.json"
echo "gather: $n tasks: $ok ok, $failed failed, $missing missing; all results in $dir/all.json"
[ -z "$bad" ] || echo "gather: not ok:$bad"
[ "$failed" -eq 0 ] && [ "$missing" -eq 0 ]
