# Shared by the strength scripts of bench/ (tactics.sh, positional.sh, match.sh,
# smp.sh); sourced, not run. Finds the programs and prints the machine header.
#   PLY     the ply command (default: build/release/bin/ply, as `make` builds it;
#           a build directory's bin/ply works too, e.g. PLY=build/ci/bin/ply)
#   ENGINE  ply's UCI engine command line (default: "$PLY uci")
#   SF      Debian's Stockfish 15.1 (default: stockfish on PATH, or /usr/games/stockfish)
#   BENCH_OUT  where the logs and PGN go (default /tmp: /tmp/ply-bench-NAME/)
cd "$(dirname "$0")/.." || exit 1
PLY=${PLY:-./build/release/bin/ply}
ENGINE=${ENGINE:-"$PLY uci"}
SF=${SF:-$(command -v stockfish || echo /usr/games/stockfish)}
# --help anywhere on the command line needs neither program
case " $* " in
*" -h "* | *" --help "*) ;;
*)
    [ -x "$PLY" ] || { echo "$0: no ply at $PLY (build first: make, or set PLY)" >&2; exit 1; }
    [ -x "$SF" ] || { echo "$0: no Stockfish at $SF (apt-get install stockfish, or set SF)" >&2; exit 1; }
    ;;
esac

# The date, the CPU, whether ply uses PEXT sliders (it does where PEXT is
# fast: BMI2 on Intel, AMD from Zen 3), and the two engines.
machine_header() {
    echo "date:    $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "cpu:     $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores"
    case "$("$PLY" --version)" in
    *pext*) echo "pext:    fast (ply uses its PEXT sliders)" ;;
    *) echo "pext:    not fast or absent (ply uses magic bitboards)" ;;
    esac
    echo "ply:     $ENGINE ($("$PLY" --version))"
    echo "sf:      $SF"
}

# median of the numbers on standard input, one per line
median() {
    sort -g | awk '{a[NR] = $1} END {if (!NR) print "nan"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}
