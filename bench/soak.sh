#!/bin/bash
# The soak benchmark (issue 27): a coordinator with --state, three workers and four clients
# submitting perft and analyse runs in a loop, while one fault injector kills, stops and
# restarts workers and another SIGKILLs and restarts the coordinator on its state file, each
# every 5-20 s; then a phase without --state (worker faults only: without a state file a
# killed coordinator loses its runs by design). Every answer is checked against an independent value; the report gives
# runs by outcome, errors by message and whether an injected fault explains each, faults by
# kind, and the coordinator's and workers' memory at the start and end of each phase.
#
# usage: bench/soak.sh [--duration S] [--nostate-duration S] [--out DIR] [--clients N]
#                      [--workers N] [--hang S] [--no-faults]
#   --duration S          the phase with --state, seconds (default 600, or $DURATION)
#   --nostate-duration S  the phase without --state (default 180, or $NOSTATE_DURATION; 0: none)
#   --out DIR             where everything goes (default /tmp/ply-bench-soak): summary.txt (the
#                         report), runs.tsv (one line a run), faults.tsv, rss.tsv (every 10 s),
#                         the logs (logs/) and each run's output (runs/). A finished phase
#                         leaves DIR/PHASE.done: run again with the same --out, it goes on
#                         with the next phase and reports on all of them (rm -r DIR to start over)
#   --hang S              a client command still running after S s is killed and counted as a
#                         hang (default 300: longer than any client --timeout below)
#   PLY=path/to/ply       the build (default build/release/bin/ply; ply-coordinator and
#                         ply-worker from the same directory)
#
# Outcomes: right (exit 0 and the answer is the published one), wrong (exit 0 and another
# answer, or an illegal PV), error (the command failed), hang (killed by --hang). An error is
# "explained" when a fault was injected while the command ran (or in the 2 s before it).
#
# Independent values: perft node counts from the chessprogramming wiki "Perft Results" (the
# start position, Kiwipete, positions 3, 4 and 5; Stockfish's go perft gives the same), the
# statistics columns of the start position and Kiwipete from tests/data/perft_p0_results.json
# and perft_p1_results.json (tests/data/PROVENANCE.md). An analysis answer is right when it has
# one line per legal root move (perft(1) above) and every PV is legal by `ply san`.
set -u
cd "$(dirname "$0")/.." || exit 1
PLY=${PLY:-./build/release/bin/ply}
BIN=$(dirname "$PLY")
DURATION=${DURATION:-600}
NOSTATE_DURATION=${NOSTATE_DURATION:-180}
OUT=/tmp/ply-bench-soak
CLIENTS=4 WORKERS=3 HANG=300 FAULTS=1
while [ $# -gt 0 ]; do
    case $1 in
    --duration) DURATION=$2; shift 2 ;;
    --nostate-duration) NOSTATE_DURATION=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --clients) CLIENTS=$2; shift 2 ;;
    --workers) WORKERS=$2; shift 2 ;;
    --hang) HANG=$2; shift 2 ;;
    --no-faults) FAULTS=0; shift ;;
    -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "soak.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
for p in "$PLY" "$BIN/ply-coordinator" "$BIN/ply-worker"; do
    [ -x "$p" ] || { echo "soak.sh: no $p (build first: make, or set PLY)" >&2; exit 1; }
done
command -v jq >/dev/null || { echo "soak.sh: needs jq" >&2; exit 1; }
DATA=$PWD/tests/data
mkdir -p "$OUT/logs" "$OUT/runs" "$OUT/pids" || exit 1
OUT=$(cd "$OUT" && pwd)
export XDG_STATE_HOME=$OUT/xdg # the clients' owner token: one owner, so `ply result` reads
now_ms() { date +%s%3N; }

# ------------------------------------------------------------------ positions
# name fen and published perft(1..N): chessprogramming wiki, "Perft Results"
declare -A FEN COUNTS STATS_FILE
FEN[start]='rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'
COUNTS[start]='20 400 8902 197281 4865609'
STATS_FILE[start]=$DATA/perft_p0_results.json
FEN[kiwipete]='r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1'
COUNTS[kiwipete]='48 2039 97862 4085603'
STATS_FILE[kiwipete]=$DATA/perft_p1_results.json
FEN[pos3]='8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1'
COUNTS[pos3]='14 191 2812 43238 674624 11030083'
FEN[pos4]='r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1'
COUNTS[pos4]='6 264 9467 422333 15833292'
FEN[pos5]='rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8'
COUNTS[pos5]='44 1486 62379 2103487'
NAMES=(start kiwipete pos3 pos4 pos5)
count_of() { local c; read -ra c <<<"${COUNTS[$1]}"; echo "${c[$2 - 1]}"; } # count_of NAME DEPTH
depth_max() { local c; read -ra c <<<"${COUNTS[$1]}"; echo "${#c[@]}"; }

# ------------------------------------------------------------------ processes
EP= # the coordinator's endpoint, fixed for the whole benchmark once known
PHASE=
coord_start() { # coord_start [--state FILE]
    local bind=${EP:-tcp://127.0.0.1:0} log=$OUT/logs/coordinator-$PHASE.log
    "$BIN/ply-coordinator" --bind "$bind" -v "$@" 2>>"$log" &
    echo $! >"$OUT/pids/coord"
    disown $! # killed on purpose: no "Killed" line from the shell
    if [ -z "$EP" ]; then
        for _ in $(seq 100); do
            EP=$(sed -n 's/.*listening on \(tcp:[^ ]*\).*/\1/p' "$log" | tail -1)
            [ -n "$EP" ] && break
            sleep 0.1
        done
        [ -n "$EP" ] || { echo "soak.sh: the coordinator did not start (see $log)" >&2; exit 1; }
    fi
}
worker_start() { # worker_start I
    "$BIN/ply-worker" --connect "$EP" --threads 1 --hash 16 --id "w$1" --reconnect -v \
        2>>"$OUT/logs/worker$1-$PHASE.log" &
    echo $! >"$OUT/pids/w$1"
    disown $!
}
pid_of() { cat "$OUT/pids/$1" 2>/dev/null; }
gone() { # gone PID: waits (up to 20 s) until the process has exited
    local i
    for ((i = 0; i < 200; i++)); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
}
# VmHWM and VmRSS of a process in KiB, "- -" when it is gone
mem_of() {
    local f
    f=/proc/$(pid_of "$1")/status
    [ -r "$f" ] || { echo "- -"; return; }
    awk '/^VmHWM/{h=$2} /^VmRSS/{r=$2} END{if (h) print h, r; else print "- -"}' "$f"
}
fault() { echo "$(now_ms)	$PHASE	$1	$2" >>"$OUT/faults.tsv"; } # fault KIND TARGET

# ------------------------------------------------------------------ one client
# a run's line in runs.tsv: phase client start_ms end_ms kind spec outcome exit message
record() {
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$PHASE" "$1" "$2" "$(now_ms)" "$3" "$4" "$5" \
        "$6" "$7" >>"$OUT/runs.tsv"
}
# the first line of stderr that says something, run ids and numbers kept
first_error() { grep -v '^\s*$' "$1" | grep -iv 'progress\|^Time:' | head -1 | tr '\t' ' ' | cut -c1-300; }
# wrap CMD...: runs it with the hang wrapper; sets RC (124 or 137: killed by the wrapper)
wrap() { timeout -s KILL "$HANG" "$@"; RC=$?; }

check_perft() { # check_perft OUTFILE NAME DEPTH STATS DIVIDE: "" when right, else what is wrong
    local f=$1 want got
    want=$(count_of "$2" "$3")
    got=$(sed -n 's/^Nodes searched: //p' "$f")
    [ "$got" = "$want" ] || { echo "nodes $got, want $want"; return; }
    if [ "$4" = 1 ] && [ -n "${STATS_FILE[$2]:-}" ]; then
        local col v w
        for col in captures enpassants castles promotions total_checks total_mates; do
            w=$(jq ".results[] | select(.depth == $3) | .$col" "${STATS_FILE[$2]}")
            v=$(awk -v c="$col" '$1 == c {print $2}' "$f")
            [ "$v" = "$w" ] || { echo "$col $v, want $w"; return; }
        done
    fi
    if [ "$5" = 1 ]; then # one line per root move, summing to the total
        local n sum
        n=$(grep -cE '^[a-h][1-8][a-h][1-8][qrbn]?: [0-9]+$' "$f")
        sum=$(awk -F': ' '/^[a-h][1-8][a-h][1-8][qrbn]?: [0-9]+$/ {s += $2} END {print s + 0}' "$f")
        [ "$n" = "$(count_of "$2" 1)" ] || { echo "divide: $n root moves, want $(count_of "$2" 1)"; return; }
        [ "$sum" = "$want" ] || { echo "divide: sum $sum, want $want"; return; }
    fi
}

check_analyse() { # check_analyse JSONFILE NAME: "" when right
    local f=$1 n want i pv
    n=$(jq '.lines | length' "$f" 2>/dev/null) || { echo "no JSON answer"; return; }
    want=$(count_of "$2" 1)
    [ "$n" = "$want" ] || { echo "$n lines, want $want (every legal root move)"; return; }
    for ((i = 0; i < n; i++)); do
        pv=$(jq -r ".lines[$i].pv | join(\" \")" "$f")
        [ -n "$pv" ] || { echo "line $i: empty PV"; return; }
        # shellcheck disable=SC2086
        "$PLY" san --fen "${FEN[$2]}" --to uci $pv >/dev/null 2>&1 || { echo "illegal PV: $pv"; return; }
    done
}

client() { # client K DEADLINE_MS
    local k=$1 deadline=$2 i=0
    RANDOM=$((k * 7919 + 10#$(date +%N) % 1000))
    while [ "$(now_ms)" -lt "$deadline" ]; do
        i=$((i + 1))
        local name=${NAMES[RANDOM % ${#NAMES[@]}]} t0 out=$OUT/runs/$PHASE-c$k-$i err
        local d=$((1 + RANDOM % $(depth_max "$name"))) opts=() kind stats=0 divide=0 bad id
        err=$out.err
        t0=$(now_ms)
        case $((RANDOM % 7)) in
        0) kind=perft ;;
        1) kind=divide opts=(--divide) divide=1 ;;
        2) kind=stats opts=(--stats) stats=1 ;;
        3) kind=sample opts=(--verify sample=0.5) ;;
        4) kind=verify-all opts=(--verify all) ;;
        5) kind=detach ;;
        6) kind=analyse d=$((2 + RANDOM % 2)) ;;
        esac
        local spec="$name d$d"
        if [ "$kind" = analyse ]; then
            wrap "$PLY" analyse --coordinator "$EP" --fen "${FEN[$name]}" -d "$d" --json -q \
                >"$out" 2>"$err"
        elif [ "$kind" = detach ]; then
            wrap "$PLY" perft --coordinator "$EP" --fen "${FEN[$name]}" -d "$d" --detach -q \
                >"$out.id" 2>"$err"
            id=$(tr -dc 0-9 <"$out.id")
            if [ "$RC" = 0 ] && [ -n "$id" ]; then
                spec="$spec run $id"
                wrap "$PLY" result --coordinator "$EP" --wait "$id" --timeout 90 >"$out" 2>>"$err"
            elif [ "$RC" = 0 ]; then
                RC=1
                echo "--detach printed no run id" >>"$err"
            fi
        else
            wrap "$PLY" perft --coordinator "$EP" --fen "${FEN[$name]}" -d "$d" "${opts[@]}" -q \
                >"$out" 2>"$err"
        fi
        if [ "$RC" = 124 ] || [ "$RC" = 137 ]; then
            record "c$k" "$t0" "$kind" "$spec" hang "$RC" "killed after $HANG s"
            continue
        elif [ "$RC" != 0 ]; then
            record "c$k" "$t0" "$kind" "$spec" error "$RC" "$(first_error "$err")"
            continue
        fi
        if [ "$kind" = analyse ]; then bad=$(check_analyse "$out" "$name")
        else bad=$(check_perft "$out" "$name" "$d" "$stats" "$divide"); fi
        if [ -z "$bad" ]; then
            record "c$k" "$t0" "$kind" "$spec" right 0 ""
            rm -f "$out" "$err" "$out.id" # keep only what is worth reading
        else
            record "c$k" "$t0" "$kind" "$spec" wrong 0 "$bad"
        fi
    done
}

# ------------------------------------------------------------------ faults
# Two injectors, each striking every 5-20 s until DEADLINE_MS. Workers: one SIGKILLed and
# restarted within 2 s, SIGSTOPped for 2-8 s then SIGCONT, or stopped (SIGTERM) and
# restarted. The coordinator (with --state only): SIGKILLed and restarted on its state file
# 0.2-1 s later.
pause_until() { # pause_until DEADLINE_MS: sleeps 5-20 s; fails once past the deadline
    local next=$(($(now_ms) + 5000 + RANDOM % 15001))
    while [ "$(now_ms)" -lt "$next" ]; do
        [ "$(now_ms)" -ge "$1" ] && return 1
        sleep 0.5
    done
}
worker_faults() { # worker_faults DEADLINE_MS
    local w pid
    while pause_until "$1"; do
        w=$((1 + RANDOM % WORKERS))
        pid=$(pid_of "w$w")
        case $((RANDOM % 3)) in
        0)
            kill -KILL "$pid" 2>/dev/null
            fault worker-kill "w$w"
            gone "$pid"
            sleep "$((RANDOM % 2)).$((RANDOM % 10))"
            worker_start "$w"
            ;;
        1)
            kill -STOP "$pid" 2>/dev/null
            fault worker-stop "w$w"
            sleep $((2 + RANDOM % 7))
            kill -CONT "$pid" 2>/dev/null
            ;;
        2)
            kill -TERM "$pid" 2>/dev/null
            fault worker-restart "w$w"
            gone "$pid"
            worker_start "$w"
            ;;
        esac
    done
}
coordinator_faults() { # coordinator_faults DEADLINE_MS STATEFILE
    local pid
    RANDOM=$((10#$(date +%N) % 32768)) # a subshell: not the worker injector's sequence
    while pause_until "$1"; do
        pid=$(pid_of coord)
        kill -KILL "$pid" 2>/dev/null
        fault coordinator-kill coordinator
        gone "$pid"
        sleep "0.$((2 + RANDOM % 8))"
        coord_start --state "$2"
    done
}

sampler() { # every 10 s: time phase process VmHWM VmRSS (KiB)
    local p
    while :; do
        for p in coord $(seq -f 'w%g' 1 "$WORKERS"); do
            echo "$(now_ms)	$PHASE	$p	$(mem_of "$p" | tr ' ' '\t')" >>"$OUT/rss.tsv"
        done
        sleep 10
    done
}

mem_line() { # mem_line WHEN: one line per process into mem.tsv
    local p
    for p in coord $(seq -f 'w%g' 1 "$WORKERS"); do
        echo "$PHASE	$1	$p	$(mem_of "$p" | tr ' ' '\t')" >>"$OUT/mem.tsv"
    done
}

phase() { # phase NAME SECONDS [--state FILE]
    PHASE=$1
    local secs=$2 state=""
    shift 2
    [ $# -gt 0 ] && state=$2
    if [ -e "$OUT/$PHASE.done" ]; then
        echo "phase $PHASE: done before, skipped (rm $OUT/$PHASE.done to run it again)"
        return
    fi
    [ "$secs" -gt 0 ] || return
    # a phase cut short (the benchmark was stopped) starts over: its lines are dropped
    for f in runs.tsv faults.tsv mem.tsv; do
        [ -e "$OUT/$f" ] && awk -F'\t' -v p="$PHASE" '$1 != p && $2 != p' "$OUT/$f" >"$OUT/$f.tmp" &&
            mv "$OUT/$f.tmp" "$OUT/$f"
    done
    [ -n "$state" ] && rm -f "$state" "$state-wal" "$state-shm"
    echo "phase $PHASE: ${secs} s, $CLIENTS clients, $WORKERS workers$([ -n "$state" ] && echo ", --state $state")"
    EP=
    coord_start "$@"
    for w in $(seq "$WORKERS"); do worker_start "$w"; done
    sleep 3
    mem_line start
    sampler &
    local sp=$! deadline=$(($(now_ms) + secs * 1000)) cps=()
    for k in $(seq "$CLIENTS"); do
        client "$k" "$deadline" &
        cps+=($!)
    done
    if [ "$FAULTS" = 1 ] && [ -n "$state" ]; then
        coordinator_faults "$deadline" "$state" &
        cps+=($!)
    fi
    if [ "$FAULTS" = 1 ]; then worker_faults "$deadline"; else sleep "$secs"; fi
    wait "${cps[@]}"
    sleep 1
    mem_line end
    kill "$sp" 2>/dev/null
    local pids=()
    for p in $(seq -f 'w%g' 1 "$WORKERS") coord; do
        pids+=("$(pid_of "$p")")
        kill -TERM "${pids[-1]}" 2>/dev/null
    done
    for p in "${pids[@]}"; do gone "$p"; done
    wait 2>/dev/null
    touch "$OUT/$PHASE.done"
}

# ------------------------------------------------------------------ report
explained() { # runs.tsv lines on stdin; appends a column: 1 when a fault fell in [start-2s, end]
    awk -F'\t' -v OFS='\t' 'FILENAME == ARGV[1] {t[FNR] = $1; ph[FNR] = $2; n = FNR; next}
        {e = 0; for (i = 1; i <= n; i++) if (ph[i] == $1 && t[i] >= $3 - 2000 && t[i] <= $4) e = 1
         print $0, e}' "$OUT/faults.tsv" -
}

report() {
    touch "$OUT/runs.tsv" "$OUT/faults.tsv" "$OUT/mem.tsv"
    {
        echo "# ply soak benchmark (bench/soak.sh)"
        echo "date:    $(date -u '+%Y-%m-%d %H:%M UTC')"
        echo "cpu:     $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores"
        echo "ply:     $("$PLY" --version)"
        echo "command: bench/soak.sh --duration $DURATION --nostate-duration $NOSTATE_DURATION --clients $CLIENTS --workers $WORKERS --hang $HANG$([ "$FAULTS" = 0 ] && echo ' --no-faults')"
        echo
        echo "## runs by outcome"
        awk -F'\t' '{n[$1 "\t" $7]++; k[$1]; o[$7]; all[$7]++; tot++}
            END {printf "%-8s", "phase"; split("right wrong error hang", os, " ")
                 for (i = 1; i <= 4; i++) printf " %7s", os[i]; printf " %7s\n", "total"
                 for (p in k) {printf "%-8s", p; s = 0
                     for (i = 1; i <= 4; i++) {printf " %7d", n[p "\t" os[i]]; s += n[p "\t" os[i]]}
                     printf " %7d\n", s}
                 printf "%-8s", "all"; for (i = 1; i <= 4; i++) printf " %7d", all[os[i]]
                 printf " %7d\n", tot}' "$OUT/runs.tsv"
        echo
        echo "## runs by kind (right/total)"
        awk -F'\t' '{t[$5]++; if ($7 == "right") r[$5]++} END {for (k in t) printf "%-11s %d/%d\n", k, r[k], t[k]}' \
            "$OUT/runs.tsv" | sort
        echo
        echo "## errors by message (numbers as N), explained by an injected fault or not"
        awk -F'\t' '$7 == "error"' "$OUT/runs.tsv" | explained |
            awk -F'\t' '{m = $9; gsub(/[0-9]+/, "N", m); c[m]++; if ($10) x[m]++}
                END {for (m in c) printf "%5d  (%d explained, %d not)  %s\n", c[m], x[m], c[m] - x[m], m}' |
            sort -rn
        echo
        echo "## wrong answers and hangs"
        awk -F'\t' '$7 == "wrong" || $7 == "hang" {print $1, $2, $5, $6, $7, $9}' "$OUT/runs.tsv"
        echo
        echo "## faults injected by kind"
        awk -F'\t' '{n[$2 "\t" $3]++} END {for (k in n) print k "\t" n[k]}' "$OUT/faults.tsv" | sort |
            awk -F'\t' '{printf "%-8s %-17s %d\n", $1, $2, $3}'
        echo
        echo "## memory (KiB): VmHWM (peak) and VmRSS of each process at the phase's start and end"
        echo "(the coordinator's and a worker's figures are its current process's: a restarted one starts again)"
        awk -F'\t' '{printf "%-8s %-6s %-6s HWM %8s  RSS %8s\n", $1, $2, $3, $4, $5}' "$OUT/mem.tsv"
        echo
        local wrong hang unexpl
        wrong=$(awk -F'\t' '$7 == "wrong"' "$OUT/runs.tsv" | wc -l)
        hang=$(awk -F'\t' '$7 == "hang"' "$OUT/runs.tsv" | wc -l)
        unexpl=$(awk -F'\t' '$7 == "error"' "$OUT/runs.tsv" | explained | awk -F'\t' '!$10' | wc -l)
        echo "verdict: $wrong wrong, $hang hang, $unexpl error(s) no injected fault explains"
    } >"$OUT/summary.txt"
    cat "$OUT/summary.txt"
}

cleanup() {
    for p in "$OUT"/pids/*; do [ -e "$p" ] && kill -CONT "$(cat "$p")" 2>/dev/null && kill -TERM "$(cat "$p")" 2>/dev/null; done
    local j
    for j in $(jobs -p); do kill "$j" 2>/dev/null; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

phase state "$DURATION" --state "$OUT/state.db"
phase nostate "$NOSTATE_DURATION"
report
