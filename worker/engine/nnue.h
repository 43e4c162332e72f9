/*
 * The engine's evaluation network (NNUE, "efficiently updatable neural
 * network"): loading and checking a net file, the accumulator of its first
 * layer, kept up to date move by move, and its output.
 *
 * The network, its integer arithmetic and its file are a contract with the
 * trainer (tools/nnue/, which writes the files). Architecture "768 -> H x2 -> 1",
 * H a multiple of 32 in 32..1024 (the first net: 256).
 *
 * Features, one set per perspective p (PLY_WHITE 0, PLY_BLACK 1): for each piece
 * of colour c, type t (PLY_PAWN 1 .. PLY_KING 6) on square s (0 = a1 .. 63 = h8),
 *   s' = s for white's view, s ^ 56 for black's (a vertical flip);
 *   c' = 0 for p's own pieces, 1 for the other's;
 *   index = c' * 384 + (t - 1) * 64 + s'  (0..767).
 *
 * Integers, QA = 255, QB = 1024, SCALE = 400:
 *   acc[p][j] = b1[j] + sum over p's active features i of W1[i][j]   (int16, j < H)
 *   v = b2 + sum_j clamp(acc[stm][j], 0, QA) * W2[j]
 *          + sum_j clamp(acc[!stm][j], 0, QA) * W2[H + j]               (int32)
 *   eval = v * SCALE / (QA * QB) centipawns for the side to move (int64, C division,
 *          truncated toward zero), clamped to the search's non-mate range.
 * The float network the trainer fits is the same with W1f = W1 / QA, b1f = b1 / QA,
 * w2f = W2 / QB, b2f = b2 / (QA * QB), crelu(x) = clamp(x, 0, 1), eval = out * SCALE;
 * training clips W1f, b1f to +-1.98 (int16 accumulators cannot overflow with 32
 * pieces) and w2f to +-2 (so that the int32 output sums cannot overflow: 2H x QA x
 * QB x 2 < 2^31 for H <= 1024). (QB was 64 in the first plan; 1024 gives the small
 * output weights of trained nets 8 bits instead of 4.)
 *
 * The file, little-endian, no padding:
 *   char magic[8] "PLYNNUE1"; uint32 version 1, inputs 768, hidden H, qa 255,
 *   qb 1024, scale 400, desc_len (<= 65536); char desc[desc_len] (UTF-8 JSON: data,
 *   trainer version, hyper-parameters, losses); int16 W1[768][H] (feature-major:
 *   the H weights of feature 0, then of feature 1, ...); int16 b1[H];
 *   int16 W2[2H] (the side to move's half first); int32 b2; uint64 checksum, the
 *   FNV-1a 64 of every byte before it (offset 14695981039346656037, prime
 *   1099511628211).
 * A reader refuses a wrong magic or version, inputs != 768, H not a multiple of
 * 32 or outside 32..1024, other qa / qb / scale, desc_len too large, a truncated
 * file, trailing bytes, a checksum mismatch; each refusal names the field and its
 * byte offset.
 *
 * Workload: the search updates an accumulator once per move it plays (two
 * to four rows added or taken away per perspective, H int16 each) and reads
 * the output once per static evaluation. Both loops have a portable C form
 * and an AVX2 one (nnue_avx2.c, compiled with -mavx2, chosen at start-up
 * when the CPU has it, as the PEXT slider kernel is); the arithmetic is in
 * integers that wrap alike in both (int16 lanes, int32 sums), so every path
 * gives the same evaluation bit for bit, whatever the order of the sums.
 *
 * Invariants: a loaded net is immutable and may be shared by any number of
 * threads; an accumulator belongs to one thread.
 */
#ifndef PLY_WORKER_NNUE_H
#define PLY_WORKER_NNUE_H

#include <stddef.h>
#include <stdint.h>

#include "board/board.h"

#define PLY_NNUE_INPUTS     768
#define PLY_NNUE_MAX_HIDDEN 1024 /* the file's H: a multiple of 32 in 32..1024 */
#define PLY_NNUE_QA         255
#define PLY_NNUE_QB         1024
#define PLY_NNUE_SCALE      400
#define PLY_NNUE_VERSION    1
#define PLY_NNUE_MAX_DESC   65536 /* the file's desc_len, bytes */

typedef struct ply_nnue ply_nnue_t;

/**
 * The first layer's output for both perspectives (acc[PLY_WHITE], acc[PLY_BLACK]),
 * the first H values of each row in use. 64-byte aligned for the SIMD loads.
 */
typedef struct ply_nnue_acc {
    _Alignas(64) int16_t acc[2][PLY_NNUE_MAX_HIDDEN];
} ply_nnue_acc_t;

/**
 * ply_nnue_load_mem - check and load a net file's @len bytes at @data (copied:
 * the caller keeps @data). Everything the contract requires is checked before
 * anything is used: the magic "PLYNNUE1", version 1, inputs 768, H a multiple
 * of 32 in 32..1024, qa 255 / qb 1024 / scale 400, desc_len at most 65536, the
 * exact size (a truncated file and trailing bytes are refused), and the
 * FNV-1a 64 checksum of every byte before it. Returns the net (destroy with
 * ply_nnue_destroy), or NULL with a one-line reason naming the field and its
 * byte offset in @why (may be NULL): a refused net is never evaluated.
 */
ply_nnue_t *ply_nnue_load_mem(const void *data, size_t len, char *why, size_t why_len);

/**
 * ply_nnue_load_file - ply_nnue_load_mem of the file at @path (at most 64 MiB).
 * NULL with the reason in @why (the path, then the file's error or the system's).
 */
ply_nnue_t *ply_nnue_load_file(const char *path, char *why, size_t why_len);

/** ply_nnue_destroy - free @*net and NULL it; idempotent. Not while a search uses it. */
void ply_nnue_destroy(ply_nnue_t **net);

/**
 * ply_nnue_embedded - the net built into this executable (worker/engine/nets/ply.nnue
 * at build time), loaded and checked on the first call (thread-safe), owned by the
 * program, never freed. NULL when the build embedded none, or when the embedded
 * bytes are refused: then @why (may be NULL) says which.
 */
const ply_nnue_t *ply_nnue_embedded(char *why, size_t why_len);

/** ply_nnue_hidden - the net's H (neurons per perspective). */
int ply_nnue_hidden(const ply_nnue_t *net);

/** ply_nnue_desc - the net's description (the file's desc, NUL-terminated; JSON by the
 * contract, not checked here); owned by @net. */
const char *ply_nnue_desc(const ply_nnue_t *net);

/** ply_nnue_checksum - the file's checksum field (FNV-1a 64): names a net in logs and ids. */
uint64_t ply_nnue_checksum(const ply_nnue_t *net);

/**
 * ply_nnue_feature - the feature index (0..767) of a piece of colour @colour
 * (PLY_WHITE/PLY_BLACK), type @type (PLY_PAWN..PLY_KING) on square @sq (0 = a1 ..
 * 63 = h8) seen from @perspective, as the contract defines it.
 */
static inline int ply_nnue_feature(int perspective, int colour, int type, int sq)
{
    const int s = perspective == PLY_WHITE ? sq : sq ^ 56;
    return (colour == perspective ? 0 : 384) + (type - 1) * 64 + s;
}

/** ply_nnue_refresh - @acc computed from scratch for every piece of @b (both perspectives). */
void ply_nnue_refresh(const ply_nnue_t *net, const ply_board_t *b, ply_nnue_acc_t *acc);

/**
 * ply_nnue_update - @out is @in (the accumulator of @before) updated for legal move
 * @m played on @before: a quiet move, a capture, en passant, a promotion or
 * castling (king takes own rook, standard and Chess960), or 0 for a null move (a
 * copy). @out may be @in. Equal to ply_nnue_refresh of the board after the move.
 */
void ply_nnue_update(const ply_nnue_t *net, const ply_nnue_acc_t *in, const ply_board_t *before,
                     ply_move_t m, ply_nnue_acc_t *out);

/**
 * ply_nnue_evaluate - the net's output for @acc with @side (PLY_WHITE/PLY_BLACK) to
 * move: centipawns from @side's view, within +-(PLY_SCORE_MATE_MIN - 1) (search.h).
 */
int ply_nnue_evaluate(const ply_nnue_t *net, const ply_nnue_acc_t *acc, int side);

/** ply_nnue_eval_board - ply_nnue_evaluate of a fresh accumulator of @b, side b->side. */
int ply_nnue_eval_board(const ply_nnue_t *net, const ply_board_t *b);

/** The SIMD paths of the two loops. */
enum { PLY_NNUE_KERNEL_PORTABLE = 0, PLY_NNUE_KERNEL_AVX2 = 1 };

/**
 * ply_nnue_set_kernel - use @kernel (PLY_NNUE_KERNEL_*) from now on, for every net
 * (a process-wide choice, for tests and benchmarks: not during a search). Returns 0,
 * or PLY_EINVAL when this build or this CPU lacks it. Without a call the best the CPU
 * has is chosen at the first use, unless the environment variable PLY_NNUE_PORTABLE
 * is set to 1, which forces the portable C path.
 */
int ply_nnue_set_kernel(int kernel);

/** ply_nnue_kernel_name - the path in use: "portable" or "avx2"; static. */
const char *ply_nnue_kernel_name(void);

#endif
