#!/bin/sh
# ply-coordinator's command line: usage errors exit 2 with a message naming the value,
# failures 1, what it says it listens on is where it listens, and its log lines carry the time.
# usage: coordinator_cli.sh PATH/TO/ply-coordinator
set -u
. "$(dirname "$0")/lib.sh"
unset PLY_LOG_TIME
C=$1
fail=0
tmp=$(mktemp -d)
trap 'kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
pid=
# expect RC PATTERN ARGS...: exit status RC and PATTERN in stderr
expect() {
    want=$1 pat=$2
    shift 2
    timeout 10 "$C" "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne "$want" ] || ! grep -q -- "$pat" "$tmp/err"; then
        echo "FAIL: ply-coordinator $*: exit $got (want $want), stderr:" >&2
        cat "$tmp/err" >&2
        fail=1
    fi
}
expect 2 "port '99999' must be a number 0..65535" --bind tcp://127.0.0.1:99999
expect 2 "port '-1' must be" --bind tcp://127.0.0.1:-1
expect 2 "bad endpoint 'coord:5555'" --bind coord:5555
expect 2 "bad endpoint 'tcp://127.0.0.1'" --bind tcp://127.0.0.1
expect 2 "port '99999'" --bind tcp://127.0.0.1:5,tcp://127.0.0.1:99999
expect 1 "unknown host 'nonexistent.invalid'" --bind tcp://nonexistent.invalid:5555 --insecure
expect 2 "--http 127.0.0.1: not ADDR:PORT" --bind tcp://127.0.0.1:0 --http 127.0.0.1
expect 2 "--http localhost:58181: not ADDR:PORT" --bind tcp://127.0.0.1:0 --http localhost:58181
expect 2 "--rule-engine-threads needs a non-negative integer" --bind tcp://127.0.0.1:0 \
    --rule-engine-threads two
expect 2 "--rule-engine-threads 65: at most 64" --bind tcp://127.0.0.1:0 --rule-engine-threads 65
printf 'ab\n' >"$tmp/token"
expect 1 "shorter than 16 characters" --bind tcp://127.0.0.1:0 --http 127.0.0.1:0 \
    --http-token-file "$tmp/token"
"$C" --help | grep -q "perft and analysis runs" || { echo "FAIL: --help names only perft runs" >&2; fail=1; }

# -v: the HTTP line once (it was printed by the log and by main)
"$C" -v --bind tcp://127.0.0.1:0 --http 127.0.0.1:0 2>"$tmp/errv" &
pid=$!
for _ in $(seq 50); do
    grep -q "status over HTTP" "$tmp/errv" && break
    sleep 0.1
done
sleep 0.3
kill "$pid"
wait "$pid" 2>/dev/null
pid=
n=$(grep -c "status over HTTP" "$tmp/errv")
[ "$n" -eq 1 ] || { echo "FAIL: -v printed the HTTP line $n times" >&2; cat "$tmp/errv" >&2; fail=1; }
# every log line starts with the UTC time in ISO 8601 to the millisecond (ply-coordinator(1)
# DIAGNOSTICS), and PLY_LOG_TIME=0 leaves it out
iso='^[0-9]\{4\}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]\.[0-9]\{3\}Z ply-coordinator '
if grep -v "$iso" "$tmp/errv" | grep -q .; then
    echo "FAIL: a log line without its ISO 8601 time:" >&2
    grep -v "$iso" "$tmp/errv" >&2
    fail=1
fi
PLY_LOG_TIME=0 "$C" -v --bind tcp://127.0.0.1:0 2>"$tmp/err_notime" &
pid=$!
for _ in $(seq 50); do
    grep -q "listening on" "$tmp/err_notime" && break
    sleep 0.1
done
kill "$pid"
wait "$pid" 2>/dev/null
pid=
grep -q "^ply-coordinator info: listening on tcp:" "$tmp/err_notime" ||
    { echo "FAIL: PLY_LOG_TIME=0 still stamps lines:" >&2; cat "$tmp/err_notime" >&2; fail=1; }

# port 0: the port printed is the one that accepts connections
"$C" --bind tcp://127.0.0.1:0 2>"$tmp/err0" &
pid=$!
ep=$(coordinator_endpoint "$tmp/err0")
port=${ep##*:}
case $port in
'' | 0 | *[!0-9]*)
    echo "FAIL: --bind tcp://127.0.0.1:0 printed '$ep', not a real port" >&2
    fail=1
    ;;
*)
    if ! python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 2)" "$port"; then
        echo "FAIL: nothing accepts on the printed port $port" >&2
        fail=1
    fi
    ;;
esac
kill "$pid"
wait "$pid" 2>/dev/null
pid=
exit $fail
