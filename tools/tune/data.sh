#!/bin/sh
# The tuner's data (tools/tune/README.md): games of ply against itself from
# random openings, their quiet positions, each labelled by a blend of the
# game's result and Stockfish's win probability, split by game into a
# training and a validation set.
#   PLY      ply (default build/ci/bin/ply); PLY_TUNE ply-tune (same folder)
#   SF       Stockfish 15.1 (default /usr/games/stockfish)
#   OUT      where everything goes (default /tmp/ply-tune)
#   OPENINGS random openings (2000), PLIES their length (8), SEED (20261201)
#   GAMES    games (4000: each opening twice), NODES a move (6000)
#   DEPTH    Stockfish's depth for the labels (7), LAMBDA the weight of the
#            game's result in the label (0.3; the rest is Stockfish's)
# Cost on one core of the loaded project machine: 1741 games about 20 min,
# their 116,000 quiet positions labelled in
# about 6 min (see eval.c for the run behind its values).
set -eu
cd "$(dirname "$0")/../.."
PLY=${PLY:-build/ci/bin/ply}
PLY_TUNE=${PLY_TUNE:-$(dirname "$PLY")/ply-tune}
SF=${SF:-/usr/games/stockfish}
OUT=${OUT:-/tmp/ply-tune}
OPENINGS=${OPENINGS:-2000} PLIES=${PLIES:-8} SEED=${SEED:-20261201}
GAMES=${GAMES:-4000} NODES=${NODES:-6000} DEPTH=${DEPTH:-7} LAMBDA=${LAMBDA:-0.3}
mkdir -p "$OUT"

[ -s "$OUT/book.epd" ] || "$PLY_TUNE" openings "$OPENINGS" "$PLIES" "$SEED" >"$OUT/book.epd"
if [ ! -s "$OUT/games.pgn" ]; then
    nice -n 5 "$PLY" match -e "$PLY uci" -e "$PLY uci" --nodes "$NODES" --games "$GAMES" \
        --book "$OUT/book.epd" --pgn "$OUT/games.pgn" -q --report 500
fi
"$PLY_TUNE" extract "$OUT/games.pgn" >"$OUT/quiet.txt"

# Stockfish's win probability for White (UCI_ShowWDL: (win + draw / 2) / 1000
# for the side to move, from the last info line before each bestmove). The
# closing "go depth 1" makes Stockfish finish the last real search first.
cut -d';' -f1 "$OUT/quiet.txt" |
    awk -v d="$DEPTH" 'BEGIN { print "uci"; print "setoption name UCI_ShowWDL value true"; print "isready" }
        { print "position fen " $0; print "go depth " d }
        END { print "position startpos"; print "go depth 1" }' |
    nice -n 5 "$SF" |
    awk '/ wdl / { for (i = 1; i < NF; i++) if ($i == "wdl") p = ($(i + 1) + $(i + 2) / 2) / 1000 }
        /^bestmove/ { print p; p = 0.5 }' | head -n "$(wc -l <"$OUT/quiet.txt")" >"$OUT/sf.txt"

# label = LAMBDA * result + (1 - LAMBDA) * Stockfish, both for White
paste -d';' "$OUT/quiet.txt" "$OUT/sf.txt" |
    awk -F';' -v l="$LAMBDA" '{ split($1, f, " "); p = f[2] == "w" ? $3 : 1 - $3
        printf "%s;%.4f\n", $1, l * $2 + (1 - l) * p }' >"$OUT/labelled.txt"

# the last tenth of the games (positions are in game order) for validation
n=$(wc -l <"$OUT/labelled.txt")
head -n $((n * 9 / 10)) "$OUT/labelled.txt" >"$OUT/train.txt"
tail -n +$((n * 9 / 10 + 1)) "$OUT/labelled.txt" >"$OUT/valid.txt"
wc -l "$OUT/train.txt" "$OUT/valid.txt"
