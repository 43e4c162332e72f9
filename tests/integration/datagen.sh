#!/bin/sh
# tools/nnue/ply-datagen end to end on a few short games, so that the recipe
# behind the evaluation network keeps working: a chunk is a function of its
# number alone (two runs give the same bytes); a run resumes (complete chunks
# are kept, a missing one is made again byte for byte, a stale .tmp is
# replaced); every record decodes to a position the rule engine accepts, with
# the side to move not in check and a move to play; and the Chess960 start
# positions follow Scharnagl's numbering (0 BBQNNRKR, 518 the standard
# position, 959 RKRNNQBB: Wikipedia, "Fischer random chess numbering scheme").
# Usage: datagen.sh SOURCE_DIR BIN_DIR
set -eu
bin=$2
gen="$bin/ply-datagen"
out=$(mktemp -d /tmp/ply-datagen-test.XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

for n in 0:bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR 518:rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR \
    959:rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB; do
    got=$("$gen" --chess960 "${n%%:*}")
    [ "$got" = "${n#*:} w KQkq - 0 1" ] || fail "--chess960 ${n%%:*}: $got"
done
if "$gen" --chess960 960 2>/dev/null; then fail "--chess960 960 accepted"; fi
if "$gen" --out "$out/x" --bogus 1 2>/dev/null; then fail "an unknown option accepted"; fi
if "$gen" --out "$out/x" --eval "$out/none.nnue" 2>"$out/eval.err"; then fail "a missing net accepted"; fi
grep -q "none.nnue" "$out/eval.err" || fail "a missing net: $(cat "$out/eval.err")"

args="--games 2 --nodes 1500 --frc 50"
"$gen" --out "$out/a" $args --chunks 3 2>"$out/a.err" || fail "$(cat "$out/a.err")"
"$gen" --out "$out/b" $args --first 1 --chunks 2 2>/dev/null
for k in 1 2; do
    cmp -s "$out/a/chunk-00000$k.bin" "$out/b/chunk-00000$k.bin" || fail "chunk $k differs between runs"
done
[ ! -e "$out/b/chunk-000000.bin" ] || fail "--first 1 wrote chunk 0"
cp "$out/a/chunk-000001.bin" "$out/one.bin"
rm "$out/a/chunk-000001.bin"
echo junk >"$out/a/chunk-000001.tmp"
touch -d '2000-01-01' "$out/a/chunk-000000.bin"
"$gen" --out "$out/a" $args --chunks 3 2>"$out/resume.err"
cmp -s "$out/a/chunk-000001.bin" "$out/one.bin" || fail "the resumed chunk 1 differs"
[ ! -e "$out/a/chunk-000001.tmp" ] || fail "the stale .tmp is still there"
if grep -q '^chunk 0:' "$out/resume.err"; then fail "resuming made chunk 0 again"; fi
[ "$(stat -c %Y "$out/a/chunk-000000.bin")" -lt 1000000000 ] || fail "resuming rewrote chunk 0"

n=0
for f in "$out"/a/chunk-*.bin; do
    [ $(($(stat -c %s "$f") % 32)) -eq 0 ] || fail "$f: not whole 32-byte records"
    "$gen" --dump "$f" >>"$out/dump.txt" || fail "--dump $f"
done
records=$(wc -l <"$out/dump.txt")
[ "$records" -ge 20 ] || fail "only $records positions from 6 games"
awk '$2 != "w" && $2 != "b" || $7 !~ /^-?[0-9]+$/ || $8 !~ /^[012]$/ || $9 < 1 {exit 1}' \
    "$out/dump.txt" || fail "a dumped record is malformed"
# every 7th position through the rule engine
awk 'NR % 7 == 1 {print $1, $2, $3, $4, $5, $6}' "$out/dump.txt" | while read -r fen; do
    "$bin/ply" arbiter --fen "$fen" --json >"$out/pos.json" 2>&1 || fail "rule engine: $fen: $(cat "$out/pos.json")"
    grep -q '"valid": true' "$out/pos.json" || fail "not valid: $fen"
    grep -q '"in_check": false' "$out/pos.json" || fail "side to move in check: $fen"
    if grep -q '"legal_moves": 0,' "$out/pos.json"; then fail "no legal move: $fen"; fi
done
printf 'x' >>"$out/one.bin"
if "$gen" --dump "$out/one.bin" >/dev/null 2>"$out/trunc.err"; then fail "a truncated file dumped"; fi
grep -q 'truncated record at offset' "$out/trunc.err" || fail "truncation: $(cat "$out/trunc.err")"
echo "datagen: $records positions, resumable and deterministic"
