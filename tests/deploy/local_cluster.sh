#!/bin/sh
# deploy/local-cluster.sh as installed (PREFIX/share/ply/deploy, no build tree next to
# it) and from a directory with the programs only on PATH: it finds them and says which,
# starts its workers only once the coordinator listens (no worker says "connection
# refused"), and the cluster answers perft(3) of the start position: 8902 (Chess
# Programming Wiki, Perft Results).
# Usage: local_cluster.sh SOURCE_DIR BIN_DIR
set -u
src=$1 bin=$2
tmp=$(mktemp -d /tmp/ply-local-cluster.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; [ -f "$tmp/err" ] && cat "$tmp/err"; exit 1; }
# A free port below the kernel's ephemeral range (32768 up): one inside it can become some
# other test's outgoing source port before the coordinator binds it.
free_port() {
    python3 -c '
import random, socket
while True:
    p = random.randint(10000, 32767)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
    except OSError:
        continue
    finally:
        s.close()
    print(p)
    break'
}

# run SCRIPT WANT_SAYS [env...]: starts it, checks what it says and a perft through it
run() {
    script=$1 says=$2
    port=$(free_port)
    env -u PLY_BIN PATH="$3" "$script" 2 "$port" 1 2>"$tmp/err" &
    pid=$!
    for _ in $(seq 100); do
        grep -q "with 2 workers" "$tmp/err" && break
        kill -0 "$pid" 2>/dev/null || fail "$script exited early"
        sleep 0.1
    done
    grep -q "$says" "$tmp/err" || fail "$script does not say '$says'"
    out=$("$bin/ply" perft --coordinator "tcp://127.0.0.1:$port" -d 3 --timeout 60 2>&1) ||
        fail "perft through $script: $out"
    echo "$out" | grep -q "8902" || fail "perft(3) through $script: $out"
    kill "$pid"
    wait "$pid" 2>/dev/null
    pid=
    ! grep -qi "connection refused" "$tmp/err" || fail "$script started workers before the coordinator listened"
}

# installed: PREFIX/bin and PREFIX/share/ply/deploy
mkdir -p "$tmp/prefix/bin" "$tmp/prefix/share/ply/deploy"
for p in ply ply-coordinator ply-worker; do ln -s "$bin/$p" "$tmp/prefix/bin/$p"; done
cp "$src/deploy/local-cluster.sh" "$tmp/prefix/share/ply/deploy/"
run "$tmp/prefix/share/ply/deploy/local-cluster.sh" "using the installed programs in" "/usr/bin:/bin"
# a copy elsewhere, the programs on PATH
mkdir -p "$tmp/elsewhere"
cp "$src/deploy/local-cluster.sh" "$tmp/elsewhere/"
run "$tmp/elsewhere/local-cluster.sh" "using the programs on PATH, in $bin" "$bin:/usr/bin:/bin"
# nothing anywhere: a clear failure
if ! PATH=/usr/bin:/bin command -v ply-coordinator >/dev/null; then
    env -u PLY_BIN PATH=/usr/bin:/bin "$tmp/elsewhere/local-cluster.sh" 2>"$tmp/err" && fail "no programs, yet exit 0"
    grep -q "build first, or set PLY_BIN" "$tmp/err" || fail "no programs: unclear message"
fi
echo "local-cluster: installed and PATH layouts found, perft(3) = 8902 through each"
