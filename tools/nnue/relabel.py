#!/usr/bin/python3
"""relabel.py: a stronger teacher's score for ply-datagen's records.

For every chunk-K.bin of SRC, writes OUT/chunk-K.bin: the same records with the
teacher field set to a UCI engine's score at a fixed depth (Debian's Stockfish
15.1 by default), centipawns from White's view; a mate is written as +-3000.
Resumable like the generator: a chunk is written under .tmp and renamed when
complete, and chunks already in OUT are skipped. --jobs engines work on
different chunks at once. --every K keeps one record in K of each chunk (records
K-1, 2K-1, ...: a game's positions are strongly correlated, and the teacher's
time is best spent on more games, fewer positions of each).

The records keep no castling rights and no en passant square (the network does
not see them either): the teacher scores each position as if there were none.

usage: /usr/bin/python3 tools/nnue/relabel.py SRC OUT [--engine CMD] [--depth D] [--jobs N]
                                             [--every K]
"""

import argparse
import glob
import multiprocessing
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train  # noqa: E402  (the record layout)

MATE_CP = 3000


def fens(recs):
    """The records' positions as FEN (no castling, no en passant)."""
    out = []
    for r in recs:
        occ = int(r["occ"])
        board = ["."] * 64
        n = 0
        while occ:
            sq = (occ & -occ).bit_length() - 1
            occ &= occ - 1
            nib = (r["pieces"][n // 2] >> (4 * (n % 2))) & 15
            c = "PNBRQK"[nib & 7]
            board[sq] = c.lower() if nib & 8 else c
            n += 1
        rows = []
        for rank in range(7, -1, -1):
            row, empty = "", 0
            for f in range(8):
                c = board[rank * 8 + f]
                if c == ".":
                    empty += 1
                    continue
                if empty:
                    row += str(empty)
                empty = 0
                row += c
            rows.append(row + (str(empty) if empty else ""))
        out.append("/".join(rows) + (" b" if r["stm"] else " w") + " - - 0 1")
    return out


class Engine:
    def __init__(self, cmd):
        self.p = subprocess.Popen(cmd.split(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        self.send("uci")
        self.wait("uciok")
        self.send("setoption name Threads value 1")
        self.send("setoption name Hash value 16")
        self.send("isready")
        self.wait("readyok")

    def send(self, s):
        self.p.stdin.write(s + "\n")

    def wait(self, word):
        for line in self.p.stdout:
            if line.split()[:1] == [word]:
                return line
        raise RuntimeError(f"the engine stopped before '{word}'")

    def score(self, fen, depth):
        """The last full-depth score, side to move's view, centipawns (mates +-MATE_CP)."""
        self.send(f"position fen {fen}")
        self.send(f"go depth {depth}")
        score = None
        for line in self.p.stdout:
            w = line.split()
            if w[:1] == ["bestmove"]:
                break
            if w[:1] == ["info"] and "score" in w and "upperbound" not in w and "lowerbound" not in w:
                i = w.index("score")
                kind, v = w[i + 1], int(w[i + 2])
                score = v if kind == "cp" else (MATE_CP if v > 0 else -MATE_CP)
        if score is None:
            raise RuntimeError(f"no score for {fen}")
        return score

    def close(self):
        self.send("quit")
        self.p.wait()


def relabel(job):
    src, dst, cmd, depth, every = job
    recs = np.fromfile(src, dtype=train.RECORD)[every - 1 :: every].copy()
    eng = Engine(cmd)
    eng.send("ucinewgame")
    for i, fen in enumerate(fens(recs)):
        s = eng.score(fen, depth)
        recs[i]["teacher"] = np.int16(max(-MATE_CP, min(MATE_CP, s if recs[i]["stm"] == 0 else -s)))
    eng.close()
    recs.tofile(dst + ".tmp")
    os.replace(dst + ".tmp", dst)
    return os.path.basename(dst), len(recs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--engine", default="/usr/games/stockfish")
    ap.add_argument("--depth", type=int, default=9)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--every", type=int, default=1, help="keep one record in K of each chunk")
    a = ap.parse_args()
    if a.every < 1:
        ap.error("--every must be at least 1")
    os.makedirs(a.out, exist_ok=True)
    todo = [(p, os.path.join(a.out, os.path.basename(p)), a.engine, a.depth, a.every)
            for p in sorted(glob.glob(os.path.join(a.src, "chunk-*.bin")))
            if not os.path.exists(os.path.join(a.out, os.path.basename(p)))]
    print(f"{len(todo)} chunks to relabel at depth {a.depth} with {a.engine}", flush=True)
    with multiprocessing.Pool(a.jobs) as pool:
        for name, n in pool.imap_unordered(relabel, todo):
            print(f"{name}: {n} positions", flush=True)


if __name__ == "__main__":
    main()
