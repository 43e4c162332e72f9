#!/bin/sh
# tools/tune/ply-tune end to end on small inputs, so that the tuner behind
# eval.c's values keeps working: the random book is deterministic per seed
# and has distinct positions; extract keeps "FEN;R" lines from the finished
# games of two PGN files (4 of 5); a tuning pass never raises the training error
# (Texel's local search keeps a step only when the error falls); and the
# values written without a pass read back as eval.c's initializer itself
# (whitespace aside), so that a tuned file can be pasted over it.
# Usage: tune.sh SOURCE_DIR BIN_DIR
set -eu
src=$1 bin=$2
tune="$bin/ply-tune"
out=$(mktemp -d /tmp/ply-tune-test.XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$tune" openings 30 8 7 >"$out/a.epd"
"$tune" openings 30 8 7 >"$out/b.epd"
"$tune" openings 30 8 8 >"$out/c.epd"
[ "$(wc -l <"$out/a.epd")" -eq 30 ] || fail "openings 30: $(wc -l <"$out/a.epd") lines"
[ "$(cut -d' ' -f1-4 "$out/a.epd" | sort -u | wc -l)" -eq 30 ] || fail "openings: positions repeat"
cmp -s "$out/a.epd" "$out/b.epd" || fail "openings: seed 7 twice gave two books"
! cmp -s "$out/a.epd" "$out/c.epd" || fail "openings: seeds 7 and 8 gave one book"
grep -Eq '^[1-8pnbrqkPNBRQK/]+ [wb] [KQkq-]+ [a-h36-]+ id "random 30";$' "$out/a.epd" ||
    fail "openings: line 30 is not an EPD record: $(tail -1 "$out/a.epd")"

pgn="$src/tests/data/pgn"
"$tune" extract "$pgn/opera.pgn" "$pgn/results.pgn" >"$out/pos.txt" 2>"$out/extract.err"
# five games, of which the unfinished one (Result "*") has no label: four
grep -q '^4 games, ' "$out/extract.err" || fail "extract: $(cat "$out/extract.err")"
[ "$(wc -l <"$out/pos.txt")" -ge 20 ] || fail "extract: $(wc -l <"$out/pos.txt") positions"
bad=$(grep -Evc '^[1-8pnbrqkPNBRQK/]+ [wb] [KQkq-]+ [a-h36-]+ [0-9]+ [0-9]+;(1|0|0\.5)$' \
    "$out/pos.txt" || true)
[ "$bad" -eq 0 ] || fail "extract: $bad lines are not FEN;R"

"$tune" tune "$out/pos.txt" - 3 all "$out/tuned.inc" 2>"$out/tune.err" || fail "$(cat "$out/tune.err")"
awk '/^[0-9]+ positions, K / {e = $NF} /^pass / {if ($NF > e + 1e-12) bad = 1; e = $NF; n++}
     END {exit bad || n < 1}' "$out/tune.err" || fail "tune: the error rose:
$(cat "$out/tune.err")"
grep -q '^\.piece_value = {' "$out/tuned.inc" || fail "tune: no initializer in the output"

"$tune" tune "$out/pos.txt" - 0 all "$out/same.inc" 2>"$out/tune0.err" || fail "$(cat "$out/tune0.err")"
sed -n '/eval_params_t param = {/,/^};/p' "$src/worker/engine/eval.c" | sed '1d;$d' | tr -d ' \n' \
    >"$out/eval.txt"
tr -d ' \n' <"$out/same.inc" >"$out/same.txt"
[ -s "$out/eval.txt" ] || fail "eval.c: no 'eval_params_t param = {' initializer found"
cmp -s "$out/eval.txt" "$out/same.txt" || fail "the values written without a pass differ from eval.c's"
echo "ply-tune: book, extract ($(wc -l <"$out/pos.txt") positions), tuning and round trip ok"
