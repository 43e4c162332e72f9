#!/usr/bin/python3
"""train.py: fit ply's evaluation network on ply-datagen's records and write it
as a quantised net file (tools/nnue/README.md: the recipe; worker/engine/nnue.h:
the network and the file format, which this must match).

Runs on Debian's python3-torch (CPU). Deterministic for a given seed, data and
thread count.

usage: /usr/bin/python3 tools/nnue/train.py DATA_DIR OUT.nnue [options]
"""

import argparse
import glob
import json
import math
import os
import struct
import sys
import time

import numpy as np
import torch

TRAINER_VERSION = "ply-train 1"
INPUTS = 768
QA, QB, SCALE = 255, 1024, 400
W2_CLIP = 2.0  # |w2f| <= 2: 2H x QA x QB x 2 < 2^31 for H <= 1024 (int32 output sums)
NO_SCORE = -32768

RECORD = np.dtype([("occ", "<u8"), ("pieces", "u1", 16), ("score", "<i2"), ("teacher", "<i2"),
                   ("stm", "u1"), ("result", "u1"), ("depth", "u1"), ("reserved", "u1")])
assert RECORD.itemsize == 32


def fnv1a64(data: bytes) -> int:
    h = 14695981039346656037
    # 8 bytes at a time would need care with the byte order: one at a time, in numpy chunks
    arr = np.frombuffer(data, dtype=np.uint8)
    prime = 1099511628211
    mask = (1 << 64) - 1
    for b in arr.tolist():
        h = ((h ^ b) * prime) & mask
    return h


def load(paths):
    recs = [np.fromfile(p, dtype=RECORD) for p in paths]
    return np.concatenate(recs) if recs else np.zeros(0, dtype=RECORD)


def features(recs):
    """Feature indices (N, 32) for White's and Black's views, padded with INPUTS."""
    n = len(recs)
    occ = recs["occ"].astype(np.uint64)
    bits = ((occ[:, None] >> np.arange(64, dtype=np.uint64)[None, :]) & np.uint64(1)).astype(bool)
    nib = np.empty((n, 32), dtype=np.uint8)
    nib[:, 0::2] = recs["pieces"] & 15
    nib[:, 1::2] = recs["pieces"] >> 4
    order = np.cumsum(bits, axis=1) - 1  # the rank of each occupied square among them
    rows, sqs = np.nonzero(bits)
    k = order[rows, sqs]
    if (k >= 32).any():
        raise ValueError("a record has more than 32 pieces")
    piece = nib[rows, k]
    colour = (piece >> 3).astype(np.int64)
    ptype = (piece & 7).astype(np.int64)
    if (ptype > 5).any():
        raise ValueError("a record has a piece type out of range")
    white = colour * 384 + ptype * 64 + sqs
    black = (1 - colour) * 384 + ptype * 64 + (sqs ^ 56)
    fw = np.full((n, 32), INPUTS, dtype=np.int64)
    fb = np.full((n, 32), INPUTS, dtype=np.int64)
    fw[rows, k] = white
    fb[rows, k] = black
    return fw, fb


class Net(torch.nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.hidden = hidden
        self.ft = torch.nn.EmbeddingBag(INPUTS + 1, hidden, mode="sum", padding_idx=INPUTS)
        self.b1 = torch.nn.Parameter(torch.zeros(hidden))
        self.out = torch.nn.Linear(2 * hidden, 1)
        with torch.no_grad():
            self.ft.weight.normal_(0.0, 0.1)
            self.ft.weight[INPUTS].zero_()
            self.b1.fill_(0.1)
            self.out.weight.normal_(0.0, 1.0 / math.sqrt(2 * hidden))
            self.out.bias.zero_()

    def forward(self, fw, fb, stm):
        aw = self.ft(fw) + self.b1
        ab = self.ft(fb) + self.b1
        black = stm.unsqueeze(1).bool()
        us = torch.where(black, ab, aw)
        them = torch.where(black, aw, ab)
        x = torch.cat([us.clamp(0, 1), them.clamp(0, 1)], dim=1)
        return self.out(x).squeeze(1)  # eval / SCALE, side to move's view

    def clip(self):
        with torch.no_grad():
            self.ft.weight.clamp_(-1.98, 1.98)
            self.ft.weight[INPUTS].zero_()
            self.b1.clamp_(-1.98, 1.98)
            self.out.weight.clamp_(-W2_CLIP, W2_CLIP)


def targets(recs, wdl):
    """Win probability for the side to move: (1 - wdl) * sigmoid(score / SCALE) + wdl * result."""
    stm = recs["stm"].astype(np.float32)
    score = recs["score"].astype(np.float32)
    teacher = recs["teacher"]
    score = np.where(teacher != NO_SCORE, teacher.astype(np.float32), score)
    sign = 1.0 - 2.0 * stm
    p = 1.0 / (1.0 + np.exp(-(score * sign) / SCALE))
    res = recs["result"].astype(np.float32) / 2.0
    res = np.where(stm == 1, 1.0 - res, res)
    return ((1.0 - wdl) * p + wdl * res).astype(np.float32)


def quantise(net):
    w1 = np.rint(net.ft.weight.detach().numpy()[:INPUTS] * QA).astype(np.int16)
    b1 = np.rint(net.b1.detach().numpy() * QA).astype(np.int16)
    w2 = np.rint(net.out.weight.detach().numpy()[0] * QB).astype(np.int16)
    b2 = np.int32(round(float(net.out.bias.detach().numpy()[0]) * QA * QB))
    return w1, b1, w2, b2


def int_eval(q, fw, fb, stm):
    """The engine's integer arithmetic (worker/engine/nnue.h), in numpy: centipawns."""
    w1, b1, w2, b2 = q
    w1p = np.vstack([w1.astype(np.int64), np.zeros((1, w1.shape[1]), dtype=np.int64)])
    aw = np.concatenate([w1p[fw[s : s + 1000]].sum(axis=1) for s in range(0, len(fw), 1000)]) + b1
    ab = np.concatenate([w1p[fb[s : s + 1000]].sum(axis=1) for s in range(0, len(fb), 1000)]) + b1
    assert np.abs(aw).max() < 32768 and np.abs(ab).max() < 32768, "int16 accumulator overflow"
    black = stm.astype(bool)[:, None]
    us = np.where(black, ab, aw).clip(0, QA)
    them = np.where(black, aw, ab).clip(0, QA)
    h = w1.shape[1]
    v = b2 + us @ w2[:h].astype(np.int64) + them @ w2[h:].astype(np.int64)
    return np.trunc(v * SCALE / (QA * QB)).astype(np.int64)


def write_net(path, q, desc):
    w1, b1, w2, b2 = q
    d = json.dumps(desc, sort_keys=True).encode()
    body = b"PLYNNUE1" + struct.pack("<7I", 1, INPUTS, w1.shape[1], QA, QB, SCALE, len(d)) + d
    body += w1.astype("<i2").tobytes() + b1.astype("<i2").tobytes() + w2.astype("<i2").tobytes()
    body += struct.pack("<i", int(b2))
    body += struct.pack("<Q", fnv1a64(body))
    with open(path + ".tmp", "wb") as f:
        f.write(body)
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", help="directory of ply-datagen chunk-*.bin files")
    ap.add_argument("out", help="the net file to write")
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--batch", type=int, default=2048)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--wdl", type=float, default=0.4, help="weight of the game result in the target")
    ap.add_argument("--valid-share", type=float, default=0.05,
                    help="share of the chunks (the highest numbers) kept out for validation")
    ap.add_argument("--max-chunks", type=int, default=0, help="use only the first N chunks (0: all)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--mirror", action="store_true",
                    help="train on each position and its mirror image (files a-h swapped; the "
                         "net's inputs hold no castling rights, so both have one target)")
    a = ap.parse_args()
    if a.hidden % 32 or not 32 <= a.hidden <= 1024:
        ap.error("--hidden must be a multiple of 32 in 32..1024")
    torch.manual_seed(a.seed)
    np.random.seed(a.seed)
    torch.set_num_threads(a.threads)

    paths = sorted(glob.glob(os.path.join(a.data, "chunk-*.bin")))
    if a.max_chunks:
        paths = paths[: a.max_chunks]
    if len(paths) < 2:
        sys.exit(f"train.py: {a.data}: fewer than 2 complete chunks")
    n_valid = max(1, int(len(paths) * a.valid_share))
    train_recs, valid_recs = load(paths[:-n_valid]), load(paths[-n_valid:])
    print(f"{len(train_recs)} training positions ({len(paths) - n_valid} chunks), "
          f"{len(valid_recs)} validation ({n_valid} chunks)", flush=True)

    def tensors(recs, mirror=False):
        fw, fb = features(recs)
        stm, target = recs["stm"].astype(np.int64), targets(recs, a.wdl)
        if mirror:  # a feature is colour * 384 + type * 64 + square: ^ 7 swaps the files
            fw = np.concatenate([fw, np.where(fw == INPUTS, INPUTS, fw ^ 7)])
            fb = np.concatenate([fb, np.where(fb == INPUTS, INPUTS, fb ^ 7)])
            stm, target = np.concatenate([stm, stm]), np.concatenate([target, target])
        return (torch.from_numpy(fw), torch.from_numpy(fb), torch.from_numpy(stm),
                torch.from_numpy(target))

    tr, va = tensors(train_recs, a.mirror), tensors(valid_recs)
    net = Net(a.hidden)
    opt = torch.optim.Adam(net.parameters(), lr=a.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=a.epochs)

    def loss_of(t, idx):
        out = net(t[0][idx], t[1][idx], t[2][idx])
        return torch.mean((torch.sigmoid(out) - t[3][idx]) ** 2)

    def valid_loss():
        with torch.no_grad():
            tot = 0.0
            for s in range(0, len(va[0]), 65536):
                idx = torch.arange(s, min(s + 65536, len(va[0])))
                tot += float(loss_of(va, idx)) * len(idx)
            return tot / len(va[0])

    history = []
    best = None  # the epoch of least validation loss: its weights are the ones written
    t0 = time.time()
    n = len(tr[0])
    for epoch in range(a.epochs):
        perm = torch.randperm(n)
        tot = 0.0
        for s in range(0, n, a.batch):
            idx = perm[s : s + a.batch]
            opt.zero_grad()
            loss = loss_of(tr, idx)
            loss.backward()
            opt.step()
            net.clip()
            tot += float(loss) * len(idx)
        sched.step()
        vl = valid_loss()
        history.append({"epoch": epoch + 1, "train": round(tot / n, 6), "valid": round(vl, 6)})
        if best is None or vl < best[0]["valid"]:
            best = (history[-1], {k: v.clone() for k, v in net.state_dict().items()})
        print(f"epoch {epoch + 1}: train loss {tot / n:.6f}, validation loss {vl:.6f} "
              f"({time.time() - t0:.0f} s)", flush=True)

    print(f"kept epoch {best[0]['epoch']} (least validation loss)", flush=True)
    net.load_state_dict(best[1])
    # quantisation, checked against the float network on the validation positions
    q = quantise(net)
    m = min(len(va[0]), 20000)
    with torch.no_grad():
        fl = (net(va[0][:m], va[1][:m], va[2][:m]) * SCALE).numpy()
    ie = int_eval(q, va[0][:m].numpy(), va[1][:m].numpy(), va[2][:m].numpy())
    diff = np.abs(ie - fl)
    print(f"quantised against float on {m} validation positions: mean |diff| {diff.mean():.2f} cp, "
          f"max {diff.max():.1f} cp", flush=True)
    desc = {
        "trainer": TRAINER_VERSION,
        "data": {"dir": os.path.basename(os.path.normpath(a.data)), "chunks": len(paths),
                 "train_positions": len(train_recs), "valid_positions": int(len(va[0])),
                 "labels": "ply-datagen records: the teacher's score (relabel.py) where present "
                           f"({int((train_recs['teacher'] != NO_SCORE).sum())} of the training "
                           "positions), else ply's search score; and the game result"},
        "hyper": {"hidden": a.hidden, "epochs": a.epochs, "batch": a.batch, "lr": a.lr,
                  "wdl": a.wdl, "seed": a.seed, "mirror": a.mirror, "optimiser": "Adam, cosine schedule",
                  "loss": "MSE of sigmoid(out) against the target win probability"},
        "losses": best[0],
        "quantisation_cp": {"mean_abs": round(float(diff.mean()), 3), "max_abs": round(float(diff.max()), 3)},
    }
    write_net(a.out, q, desc)
    print(f"wrote {a.out}", flush=True)


if __name__ == "__main__":
    main()
