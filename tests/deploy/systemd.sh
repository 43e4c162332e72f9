#!/bin/sh
# deploy/systemd: both units pass `systemd-analyze verify` (exit 0 and not a word
# of warning) in a scratch root that holds the system's own units and the built
# programs at the units' paths (/usr/bin/ply-...), and `systemd-analyze security`
# rates each at most PLY_MAX_EXPOSURE (default 2.0; 10 is fully exposed). A copy
# with a misspelt key must fail the same check, so the check can fail.
# Then, where strace runs, the programs themselves, run as an unprivileged user with
# the units' options (CURVE, a state file) through a perft and an analysis, are traced:
# every system call they make must be one the unit's SystemCallFilter= lets through
# (a refused one would be EPERM, and libzmq aborts on some), and every socket family
# one of its RestrictAddressFamilies=.
# Usage: systemd.sh SOURCE_DIR BIN_DIR [SANITIZER]. Exit 77 where systemd-analyze is
# missing. With SANITIZER (the programs were built with one), no trace: its runtime
# makes system calls of its own that a deployed build does not.
set -eu
src=$1 bin=$2 sanitizer=${3:-}
max=${PLY_MAX_EXPOSURE:-2.0}
command -v systemd-analyze >/dev/null 2>&1 ||
    { echo "skipped: no systemd-analyze (Debian package systemd)"; exit 77; }
sysunits=/usr/lib/systemd/system
[ -d "$sysunits" ] || sysunits=/lib/systemd/system
[ -f "$sysunits/sysinit.target" ] || { echo "skipped: no $sysunits/sysinit.target"; exit 77; }

root=$(mktemp -d /tmp/ply-systemd.XXXXXX)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/usr/bin" "$root/usr/lib/systemd" "$root/etc/systemd/system"
cp -a "$sysunits" "$root/usr/lib/systemd/system"
cp "$bin/ply-coordinator" "$bin/ply-worker" "$root/usr/bin/"
cp "$src/deploy/systemd/ply-coordinator.service" "$src/deploy/systemd/ply-worker@.service" \
    "$root/etc/systemd/system/"

# The worker's instance is host:port; ':' is written \x3a on systemd-analyze's command
# line (a bare one would read as FILE:ALIAS), and %i gives it back as ':'.
units="ply-coordinator.service ply-worker@coord.example.org\\x3a5555.service"

# verify UNIT: exit 0 and no output. --man=no: the man pages named by Documentation=
# come with `cmake --install`, not in this scratch root.
verify() {
    if ! out=$(systemd-analyze verify --man=no --root="$root" "$1" 2>&1) || [ -n "$out" ]; then
        printf '%s\n' "$out"
        return 1
    fi
}
fail=0
for u in $units; do
    if verify "$u"; then echo "verify $u: ok"; else echo "FAIL: verify $u"; fail=1; fi
    sec=$(systemd-analyze security --offline=true --root="$root" "$u" 2>&1) ||
        { printf '%s\n' "$sec"; echo "FAIL: security $u"; fail=1; continue; }
    score=$(printf '%s\n' "$sec" | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p')
    [ -n "$score" ] || { printf '%s\n' "$sec"; echo "FAIL: no exposure level for $u"; fail=1; continue; }
    echo "security $u: exposure $score (at most $max)"
    if awk -v s="$score" -v m="$max" 'BEGIN { exit !(s > m) }'; then
        printf '%s\n' "$sec" | grep '✗' || true
        echo "FAIL: $u is exposed $score, above $max"; fail=1
    fi
done

# The options of each ExecStart= (with its continuation lines) are the program's.
for pair in ply-coordinator.service:ply-coordinator ply-worker@.service:ply-worker; do
    unit=$src/deploy/systemd/${pair%%:*} prog=${pair#*:}
    "$bin/$prog" --help >"$root/help" 2>&1 || true
    sed -n '/^ExecStart=/,/[^\\]$/p' "$unit" | grep -o -- ' --[a-z][a-z-]*' | sed 's/^ //' >"$root/opts"
    [ -s "$root/opts" ] || { echo "FAIL: no options read from $unit's ExecStart="; fail=1; }
    while read -r opt; do
        grep -Eq -- "${opt}([ =,]|\$)" "$root/help" ||
            { echo "FAIL: ${pair%%:*} gives $prog $opt, which its --help does not list"; fail=1; }
    done <"$root/opts"
    echo "${pair%%:*}: ExecStart's options $(tr '\n' ' ' <"$root/opts")are $prog's"
done

# The negative case: a misspelt key is reported, so the check above can fail.
sed 's/^Restart=/Restrat=/' "$src/deploy/systemd/ply-coordinator.service" \
    >"$root/etc/systemd/system/ply-coordinator.service"
if verify ply-coordinator.service >/dev/null; then
    echo "FAIL: verify passed a unit with 'Restrat='"; fail=1
else
    echo "verify of a misspelt copy: fails, as it should"
fi

# --- The programs under the units' filters, by trace. ---
if [ -n "$sanitizer" ] || ! command -v strace >/dev/null 2>&1 || ! command -v setpriv >/dev/null 2>&1; then
    echo "built with a sanitizer ($sanitizer), or strace or setpriv missing: the programs' system calls are not checked"
    [ "$fail" -eq 0 ] && echo "systemd units: ok"
    exit "$fail"
fi
# expand @GROUP: the system calls of a systemd group, its nested groups expanded.
expand() {
    systemd-analyze syscall-filter "$1" | tail -n +2 | sed 's/^ *//; /^#/d; /^$/d' |
        while read -r s; do case $s in @*) expand "$s" ;; *) echo "$s" ;; esac; done
}
# allowed UNIT: the system calls its SystemCallFilter= lines let through.
allowed() {
    sed -n 's/^SystemCallFilter=//p' "$1" >"$root/filters"
    : >"$root/allow"
    : >"$root/deny"
    while read -r line; do
        case $line in ~*) list=${line#\~} to=deny ;; *) list=$line to=allow ;; esac
        for g in $list; do
            case $g in @*) expand "$g" ;; *) echo "$g" ;; esac >>"$root/$to"
        done
    done <"$root/filters"
    sort -u "$root/allow" >"$root/allow.s"
    sort -u "$root/deny" >"$root/deny.s"
    comm -23 "$root/allow.s" "$root/deny.s"
}
families() { sed -n 's/^RestrictAddressFamilies=//p' "$1" | tr ' ' '\n' | sort -u; }
# check NAME TRACE UNIT
check() {
    sed -n 's/^[0-9]* *\([a-z_0-9]*\)(.*/\1/p' "$2" | sort -u >"$root/$1.used"
    allowed "$3" >"$root/$1.allowed"
    out=$(comm -23 "$root/$1.used" "$root/$1.allowed")
    if [ -n "$out" ]; then
        echo "FAIL: $1 makes system calls its unit refuses: $(echo "$out" | tr '\n' ' ')"; fail=1
    else
        echo "$1: all $(wc -l <"$root/$1.used") system calls it made are allowed by its unit"
    fi
    grep -o 'socket(AF_[A-Z0-9]*' "$2" | sed 's/socket(//' | sort -u >"$root/$1.fam"
    families "$3" >"$root/$1.ufam"
    out=$(comm -23 "$root/$1.fam" "$root/$1.ufam")
    if [ -n "$out" ]; then
        echo "FAIL: $1 opens sockets of families its unit refuses: $(echo "$out" | tr '\n' ' ')"; fail=1
    else
        echo "$1: socket families $(tr '\n' ' ' <"$root/$1.fam")within its unit's"
    fi
}
run=$root/run
mkdir -p "$run/allowed"
for n in coord worker client; do "$bin/ply" keygen --out "$run" --name "$n" >/dev/null; done
cp "$run/worker.key" "$run/client.key" "$run/allowed/"
chmod -R a+rX "$root"
chmod 777 "$run"
nobody="setpriv --reuid=65534 --regid=65534 --clear-groups --"
# A free port: the coordinator takes one and says which.
# shellcheck disable=SC2086 # $nobody is a list of words
$nobody strace -f -qq -o "$run/coord.trace" "$bin/ply-coordinator" --bind 'tcp://127.0.0.1:*' \
    --state "$run/state.db" --curve --cert "$run/coord.key_secret" --allow "$run/allowed" \
    --verbose >"$run/coord.log" 2>&1 &
cpid=$! # setpriv, then strace: the coordinator is its child
trap 'for p in $(pgrep -P "$cpid") $(pgrep -P "${wpid:-$cpid}"); do kill "$p"; done 2>/dev/null; rm -rf "$root"' EXIT
port=""
for _ in $(seq 1 100); do
    port=$(sed -n 's|.*listening on tcp://[^ ]*:\([0-9][0-9]*\).*|\1|p' "$run/coord.log" | head -n 1)
    [ -n "$port" ] && break
    sleep 0.1
done
if [ -z "$port" ]; then
    cat "$run/coord.log"
    kill "$cpid" 2>/dev/null || true
    echo "FAIL: the traced coordinator did not start"; exit 1
fi
# shellcheck disable=SC2086
$nobody strace -f -qq -o "$run/worker.trace" "$bin/ply-worker" --connect "tcp://127.0.0.1:$port" \
    --reconnect --threads 2 --hash 16 --curve --cert "$run/worker.key_secret" \
    --server-key "$run/coord.key" >"$run/worker.log" 2>&1 &
wpid=$!
client="--coordinator tcp://127.0.0.1:$port --curve --cert $run/client.key_secret --server-key $run/coord.key"
# shellcheck disable=SC2086 # $client is a list of words without spaces inside
perft=$(timeout 60 "$bin/ply" perft $client -d 4 2>&1 | head -n 1) || true
# shellcheck disable=SC2086
analyse=$(timeout 60 "$bin/ply" analyse $client -d 3 -q 2>&1 | grep '^Best:') || true
# Stop the traced programs (strace's children), the coordinator first: it says Bye.
for p in $cpid $wpid; do
    c=$(pgrep -P "$p" | head -n 1) || true
    [ -n "$c" ] && kill "$c" 2>/dev/null
    sleep 0.5
done
wait "$cpid" "$wpid" 2>/dev/null || true
[ "$perft" = "Nodes searched: 197281" ] ||
    { echo "FAIL: the traced cluster's perft(4) said '$perft'"; cat "$run/coord.log" "$run/worker.log"; fail=1; }
[ -n "$analyse" ] || { echo "FAIL: the traced cluster's analysis gave no best move"; fail=1; }
echo "traced as user 65534: perft(4) $perft; analysis $analyse"
check ply-coordinator "$run/coord.trace" "$src/deploy/systemd/ply-coordinator.service"
check ply-worker "$run/worker.trace" "$src/deploy/systemd/ply-worker@.service"

[ "$fail" -eq 0 ] && echo "systemd units: ok"
exit "$fail"
