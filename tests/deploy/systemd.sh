#!/bin/sh
# deploy/systemd: both units pass `systemd-analyze verify` (exit 0 and not a word
# of warning) in a scratch root that holds the system's own units and the built
# programs at the units' paths (/usr/bin/ply-...), and `systemd-analyze security`
# rates each at most PLY_MAX_EXPOSURE (default 2.0; 10 is fully exposed). A copy
# with a misspelt key must fail the same check, so the check can fail.
# Usage: systemd.sh SOURCE_DIR BIN_DIR. Exit 77 where systemd-analyze is missing.
set -eu
src=$1 bin=$2
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

# The negative case: a misspelt key is reported, so the check above can fail.
sed 's/^Restart=/Restrat=/' "$src/deploy/systemd/ply-coordinator.service" \
    >"$root/etc/systemd/system/ply-coordinator.service"
if verify ply-coordinator.service >/dev/null; then
    echo "FAIL: verify passed a unit with 'Restrat='"; fail=1
else
    echo "verify of a misspelt copy: fails, as it should"
fi
[ "$fail" -eq 0 ] && echo "systemd units: ok"
exit "$fail"
