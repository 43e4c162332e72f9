#!/usr/bin/python3
"""Make an opening book of random balanced positions for fixed-node matches.

Each opening: 8 random legal plies from the initial position (the legal moves
are Stockfish's `go perft 1`), kept when Debian's Stockfish 15.1 at depth 10
(1 thread, 16 MiB) scores it within +-50 cp and it is not already in the book.
Fixed-node games are deterministic, so a match of G games needs G/2 different
openings; this gives as many as asked. Usage:
    bench/random-book.py [N] [SEED] > FILE.epd     (defaults 300, 1)
"""
import random
import subprocess
import sys


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rng = random.Random(seed)
    sf = subprocess.Popen(["/usr/games/stockfish"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True, bufsize=1)

    def send(line):
        sf.stdin.write(line + "\n")
        sf.stdin.flush()

    def until(prefix):
        lines = []
        while True:
            line = sf.stdout.readline()
            if not line:
                sys.exit("random-book: stockfish exited")
            lines.append(line.rstrip("\n"))
            if line.startswith(prefix):
                return lines

    send("uci")
    until("uciok")
    send("setoption name Threads value 1")
    send("setoption name Hash value 16")
    send("isready")
    until("readyok")
    print("# Random balanced openings for fixed-node matches (bench/random-book.py %d %d):" % (n, seed))
    print("# 8 random legal plies from the initial position, kept when Debian's Stockfish 15.1")
    print("# at depth 10 scores the position within +-50 cp; c1 is that score for the side to move,")
    print("# c2 the moves in UCI notation. Each opening is played twice, colours swapped.")
    seen = set()
    made = tries = 0
    while made < n:
        tries += 1
        moves = []
        ok = True
        for _ in range(8):
            send("position startpos moves " + " ".join(moves))
            send("go perft 1")
            legal = [l.split(":")[0] for l in until("Nodes searched") if ": " in l and l[0] in "abcdefgh"]
            if not legal:
                ok = False
                break
            moves.append(rng.choice(legal))
        if not ok:
            continue
        send("position startpos moves " + " ".join(moves))
        send("d")
        fen = next(l[5:] for l in until("Checkers") if l.startswith("Fen: "))
        epd = " ".join(fen.split()[:4])
        if epd in seen:
            continue
        send("ucinewgame")
        send("go depth 10")
        score = None
        for l in until("bestmove"):
            w = l.split()
            if "score" in w and w[w.index("score") + 1] == "cp":
                score = int(w[w.index("score") + 2])
            elif "score" in w:
                score = None  # a mate score: not balanced
        if score is None or abs(score) > 50:
            continue
        seen.add(epd)
        made += 1
        print('%s; id "random %d"; c1 "Stockfish 15.1 depth 10: %+d cp"; c2 "%s";'
              % (epd, made, score, " ".join(moves)))
    send("quit")
    print("# %d kept of %d tries" % (made, tries))


if __name__ == "__main__":
    main()
