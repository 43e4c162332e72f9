/*
 * ply-datagen: training positions for the evaluation network, from ply's own
 * games (tools/nnue/README.md has the recipe and the record format).
 *
 * Each game starts from the initial position (or, for a share of the games, a
 * Chess960 one) after a few uniformly random legal plies, kept only when a
 * short search finds it roughly balanced; then ply's engine plays both sides
 * at a fixed node budget, one thread, a fresh table for every game. Every
 * position reached after the random plies whose side to move is not in check,
 * whose searched best move is quiet (no capture, no promotion) and whose score
 * is not a mate score is a record: the position, the search's score and, once
 * the game ends, its result. The games end by the rules (mate, stalemate,
 * fifty moves, threefold repetition, no mating material) or by adjudication
 * (both sides see a decisive score for several plies; a long quiet draw).
 *
 * Work is cut into chunks of games, chunk K seeded by K alone: a chunk is
 * written to chunk-K.tmp and renamed to chunk-K.bin when complete, and the
 * chunks already there are skipped, so a run stopped at any moment resumes
 * where it was with the same data, and several processes share a directory
 * by taking every S-th chunk (--first, --step).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "board/board.h"
#include "board/movegen.h"
#include "datagen.h"
#include "nnue.h"
#include "search.h"

typedef struct options {
    const char *out;
    uint64_t nodes;
    int games_per_chunk;
    long first, step, chunks;
    int random_plies;
    int frc_percent;
    size_t hash_mib;
    uint64_t seed;
    const char *eval; /* "classical", or a net file for the games' engine */
} options_t;

/* splitmix64: seeds every chunk from its number alone (reproducible, resumable). */
static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void ply_datagen_pack(const ply_board_t *b, int score_white, int depth, ply_datagen_record_t *r)
{
    memset(r, 0, sizeof *r);
    r->occ = b->colour[0] | b->colour[1];
    int n = 0;
    for (ply_bb_t occ = r->occ; occ; occ &= occ - 1, n++) {
        const int sq = __builtin_ctzll(occ);
        int colour;
        const int type = ply_board_piece_on(b, sq, &colour);
        const uint8_t nib = (uint8_t)((type - 1) | (colour << 3));
        r->pieces[n / 2] |= (uint8_t)(n % 2 ? nib << 4 : nib);
    }
    r->score = (int16_t)score_white;
    r->teacher = PLY_DATAGEN_NO_SCORE;
    r->stm = b->side;
    r->result = 1;
    r->depth = (uint8_t)(depth > 255 ? 255 : depth);
}

static int no_mating_material(const ply_board_t *b)
{
    if (b->pieces[PLY_PAWN] | b->pieces[PLY_ROOK] | b->pieces[PLY_QUEEN]) return 0;
    const ply_bb_t minors = b->pieces[PLY_KNIGHT] | b->pieces[PLY_BISHOP];
    return (minors & (minors - 1)) == 0;
}

static int is_quiet(const ply_board_t *b, ply_move_t m)
{
    if (ply_move_is_promo(m) || ply_move_kind(m) == PLY_MOVE_EP) return 0;
    if (ply_move_kind(m) == PLY_MOVE_CASTLE) return 1;
    return ply_board_piece_on(b, ply_move_to(m), NULL) == PLY_NONE;
}

/* A start: the initial position or a Chess960 one, then @plies random legal plies. Returns 0 when
 * a random ply found no legal move (draw again). */
static int random_start(ply_search_pos_t *p, uint64_t *rng, int plies, int frc_percent)
{
    char fen[PLY_BOARD_FEN_MAX];
    int chess960 = 0;
    if ((int)(splitmix(rng) % 100) < frc_percent) {
        chess960 = 1;
        ply_datagen_frc_fen((int)(splitmix(rng) % 960), fen, sizeof fen);
    } else {
        strcpy(fen, "startpos");
    }
    char why[128];
    if (ply_search_pos_set(p, fen, chess960, NULL, 0, why, sizeof why)) return 0;
    ply_move_t moves[PLY_MAX_MOVES];
    for (int i = 0; i < plies; i++) {
        const int n = ply_board_legal_moves(&p->root, moves);
        if (n == 0) return 0;
        p->history[p->n_history++] = p->root.key[0];
        ply_board_play(&p->root, moves[splitmix(rng) % (uint64_t)n]);
    }
    return ply_board_legal_moves(&p->root, moves) > 0;
}

static int repeated_thrice(const ply_search_pos_t *p)
{
    int seen = 0;
    const int back = p->root.rule50 < p->n_history ? p->root.rule50 : p->n_history;
    for (int i = p->n_history - 2; i >= p->n_history - back; i -= 2)
        if (p->history[i] == p->root.key[0]) seen++;
    return seen >= 2;
}

/* One game into @recs (capacity @cap); returns the number of records, their result set. */
static int play_game(ply_engine_t *e, const options_t *o, uint64_t *rng, ply_datagen_record_t *recs,
                     int cap, int *result_out)
{
    static ply_search_pos_t pos;
    ply_search_limits_t lim;
    ply_search_result_t res;
    for (;;) {
        const int plies = o->random_plies + (int)(splitmix(rng) % 3);
        if (!random_start(&pos, rng, plies, o->frc_percent)) continue;
        ply_engine_clear(e);
        ply_search_limits_init(&lim);
        lim.nodes = 2000;
        if (ply_engine_search(e, &pos, &lim, NULL, NULL, &res)) continue;
        if (abs(res.lines[0].score) <= 250) break;
    }
    ply_engine_clear(e);
    int n = 0, result = 1, decisive = 0, quiet_draw = 0;
    for (int ply = 0;; ply++) {
        ply_move_t moves[PLY_MAX_MOVES];
        const ply_board_t *b = &pos.root;
        const int in_check = ply_board_checkers(b) != 0;
        if (ply_board_legal_moves(b, moves) == 0) {
            result = in_check ? (b->side == PLY_WHITE ? 0 : 2) : 1;
            break;
        }
        if (b->rule50 >= 100 || repeated_thrice(&pos) || no_mating_material(b) || ply >= 400) break;
        ply_search_limits_init(&lim);
        lim.nodes = o->nodes;
        if (ply_engine_search(e, &pos, &lim, NULL, NULL, &res) || !res.best) break;
        const ply_search_line_t *l = &res.lines[0];
        const int white = b->side == PLY_WHITE ? l->score : -l->score;
        if (!in_check && !ply_score_is_mate(l->score) && is_quiet(b, res.best) && n < cap)
            ply_datagen_pack(b, white, l->depth, &recs[n++]);
        /* adjudication: a decisive score seen from both sides' searches, or a long dead draw */
        decisive = abs(white) >= 1500 ? (white > 0 ? (decisive > 0 ? decisive + 1 : 1)
                                                    : (decisive < 0 ? decisive - 1 : -1))
                                      : 0;
        if (decisive >= 6 || decisive <= -6) {
            result = decisive > 0 ? 2 : 0;
            break;
        }
        quiet_draw = ply >= 80 && abs(white) <= 8 ? quiet_draw + 1 : 0;
        if (quiet_draw >= 12) break;
        /* only the positions since the last capture or pawn move can repeat */
        if (pos.n_history >= PLY_SEARCH_MAX_HISTORY) pos.n_history = 0;
        pos.history[pos.n_history++] = pos.root.key[0];
        ply_board_play(&pos.root, res.best);
        if (pos.root.rule50 == 0) pos.n_history = 0;
    }
    for (int i = 0; i < n; i++) recs[i].result = (uint8_t)result;
    *result_out = result;
    return n;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int run_chunk(ply_engine_t *e, const options_t *o, long k, long *positions)
{
    char tmp[4096], done[4096];
    snprintf(done, sizeof done, "%s/chunk-%06ld.bin", o->out, k);
    snprintf(tmp, sizeof tmp, "%s/chunk-%06ld.tmp", o->out, k);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        fprintf(stderr, "ply-datagen: %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    uint64_t rng = o->seed ^ ((uint64_t)k * 0x2545f4914f6cdd1dull);
    enum { CAP = 512 };
    static ply_datagen_record_t recs[CAP];
    int wins[3] = { 0, 0, 0 };
    *positions = 0;
    for (int g = 0; g < o->games_per_chunk; g++) {
        int result;
        const int n = play_game(e, o, &rng, recs, CAP, &result);
        wins[result]++;
        if (fwrite(recs, sizeof recs[0], (size_t)n, f) != (size_t)n) {
            fprintf(stderr, "ply-datagen: %s: write failed\n", tmp);
            fclose(f);
            return -1;
        }
        *positions += n;
    }
    if (fclose(f) || rename(tmp, done)) {
        fprintf(stderr, "ply-datagen: %s: %s\n", done, strerror(errno));
        return -1;
    }
    fprintf(stderr, "chunk %ld: %d games (+%d =%d -%d for White), %ld positions\n", k,
            o->games_per_chunk, wins[2], wins[1], wins[0], *positions);
    return 0;
}

/* --dump: every record of @path as "FEN score result depth" (castling and en passant are not
 * recorded: "-"; the move numbers are 0 1). */
static int dump(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "ply-datagen: %s: %s\n", path, strerror(errno));
        return 1;
    }
    ply_datagen_record_t r;
    long n = 0;
    size_t got;
    while ((got = fread(&r, 1, sizeof r, f)) == sizeof r) {
        char fen[PLY_BOARD_FEN_MAX];
        if (ply_datagen_record_fen(&r, fen, sizeof fen)) {
            fprintf(stderr, "ply-datagen: %s: record %ld (offset %ld) is malformed\n", path, n,
                    n * (long)sizeof r);
            fclose(f);
            return 1;
        }
        printf("%s %d %d %d\n", fen, r.score, r.result, r.depth);
        n++;
    }
    fclose(f);
    if (got) {
        fprintf(stderr, "ply-datagen: %s: truncated record at offset %ld\n", path, n * (long)sizeof r);
        return 1;
    }
    return 0;
}

int ply_datagen_record_fen(const ply_datagen_record_t *r, char *buf, size_t len)
{
    char board[64];
    memset(board, 0, sizeof board);
    int n = 0;
    for (ply_bb_t occ = r->occ; occ; occ &= occ - 1, n++) {
        if (n >= 32) return -1;
        const uint8_t nib = (uint8_t)(n % 2 ? r->pieces[n / 2] >> 4 : r->pieces[n / 2] & 15);
        if ((nib & 7) > 5) return -1;
        board[__builtin_ctzll(occ)] = "PNBRQK"[nib & 7] + (nib & 8 ? 'a' - 'A' : 0);
    }
    if (r->stm > 1 || r->result > 2) return -1;
    size_t k = 0;
    for (int rank = 7; rank >= 0; rank--) {
        int empty = 0;
        for (int file = 0; file < 8; file++) {
            const char c = board[rank * 8 + file];
            if (!c) {
                empty++;
                continue;
            }
            if (empty) buf[k++] = (char)('0' + empty);
            empty = 0;
            buf[k++] = c;
        }
        if (empty) buf[k++] = (char)('0' + empty);
        if (rank) buf[k++] = '/';
    }
    snprintf(buf + k, len - k, " %c - - 0 1", r->stm ? 'b' : 'w');
    return 0;
}

static int usage(FILE *f)
{
    fputs("usage: ply-datagen --out DIR [options]\n"
          "       ply-datagen --dump CHUNK.bin    (each record as \"FEN score result depth\")\n"
          "       ply-datagen --chess960 N        (the FEN of Chess960 start position N, 0..959)\n"
          "\n"
          "Self-play games of ply's engine at a fixed node budget; the quiet positions with\n"
          "the search's score and the game's result, as 32-byte records (tools/nnue/README.md)\n"
          "in DIR/chunk-K.bin. Resumable: complete chunks are skipped, a chunk is written\n"
          "under .tmp and renamed when done.\n"
          "\n"
          "  --out DIR          where the chunks go (created if missing)\n"
          "  --nodes N          nodes per move (default 5000)\n"
          "  --games G          games per chunk (default 50)\n"
          "  --first F          first chunk number (default 0)\n"
          "  --step S           take every S-th chunk from F (default 1): S processes with\n"
          "                     F = 0..S-1 share a directory\n"
          "  --chunks C         stop after chunk F + (C-1)*S (default: never)\n"
          "  --random-plies P   random plies at the start, P..P+2 (default 8)\n"
          "  --frc PERCENT      share of games from a Chess960 position (default 10)\n"
          "  --hash MIB         table size (default 16)\n"
          "  --seed S           base seed (default 1)\n"
          "  --eval E           the players' evaluation: classical (default: the first\n"
          "                     recipe's, whatever net the build embeds) or a net file\n",
          f);
    return f == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
    options_t o = { .nodes = 5000, .games_per_chunk = 50, .first = 0, .step = 1, .chunks = -1,
                    .random_plies = 8, .frc_percent = 10, .hash_mib = 16, .seed = 1,
                    .eval = "classical" };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return usage(stdout);
        if (!strcmp(a, "--dump") && i + 2 == argc) return dump(argv[i + 1]);
        if (!strcmp(a, "--chess960") && i + 2 == argc) {
            char *end, fen[PLY_BOARD_FEN_MAX];
            const long n = strtol(argv[i + 1], &end, 10);
            if (*end || end == argv[i + 1] || n < 0 || n > 959) {
                fprintf(stderr, "ply-datagen: --chess960 %s: not a number in 0..959\n", argv[i + 1]);
                return 2;
            }
            ply_datagen_frc_fen((int)n, fen, sizeof fen);
            puts(fen);
            return 0;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "ply-datagen: %s: missing value (or unknown option)\n", a);
            return usage(stderr);
        }
        const char *v = argv[++i];
        char *end;
        errno = 0;
        const long long x = strtoll(v, &end, 10);
        const int num_ok = *v && !*end && !errno && x >= 0;
        if (!strcmp(a, "--out") || !strcmp(a, "--eval")) {
            *(a[2] == 'o' ? &o.out : &o.eval) = v;
            continue;
        }
        if (!num_ok) {
            fprintf(stderr, "ply-datagen: %s: '%s' is not a non-negative number\n", a, v);
            return 2;
        }
        if (!strcmp(a, "--nodes") && x > 0) o.nodes = (uint64_t)x;
        else if (!strcmp(a, "--games") && x > 0 && x < 100000) o.games_per_chunk = (int)x;
        else if (!strcmp(a, "--first")) o.first = (long)x;
        else if (!strcmp(a, "--step") && x > 0) o.step = (long)x;
        else if (!strcmp(a, "--chunks") && x > 0) o.chunks = (long)x;
        else if (!strcmp(a, "--random-plies") && x < 60) o.random_plies = (int)x;
        else if (!strcmp(a, "--frc") && x <= 100) o.frc_percent = (int)x;
        else if (!strcmp(a, "--hash") && x > 0 && x <= 65536) o.hash_mib = (size_t)x;
        else if (!strcmp(a, "--seed")) o.seed = (uint64_t)x;
        else {
            fprintf(stderr, "ply-datagen: %s %s: unknown option or value out of range\n", a, v);
            return usage(stderr);
        }
    }
    if (!o.out) {
        fputs("ply-datagen: --out DIR is required\n", stderr);
        return usage(stderr);
    }
    if (mkdir(o.out, 0777) && errno != EEXIST) {
        fprintf(stderr, "ply-datagen: %s: %s\n", o.out, strerror(errno));
        return 1;
    }
    ply_engine_t *e = ply_engine_new(o.hash_mib, 1);
    if (!e) {
        fputs("ply-datagen: cannot allocate the table\n", stderr);
        return 1;
    }
    ply_nnue_t *net = NULL;
    if (strcmp(o.eval, "classical")) {
        char why[512];
        if (!(net = ply_nnue_load_file(o.eval, why, sizeof why))) {
            fprintf(stderr, "ply-datagen: --eval: %s\n", why);
            ply_engine_destroy(&e);
            return 2;
        }
    }
    ply_engine_set_net(e, net);
    const uint64_t t0 = now_ms();
    long total = 0;
    for (long c = 0, k = o.first; o.chunks < 0 || c < o.chunks; c++, k += o.step) {
        char done[4096];
        snprintf(done, sizeof done, "%s/chunk-%06ld.bin", o.out, k);
        if (file_exists(done)) continue;
        long positions;
        if (run_chunk(e, &o, k, &positions)) {
            ply_engine_destroy(&e);
            ply_nnue_destroy(&net);
            return 1;
        }
        total += positions;
        const double s = (double)(now_ms() - t0) / 1000.0;
        fprintf(stderr, "  %ld positions in %.0f s this run (%.0f/s)\n", total, s, total / s);
    }
    ply_engine_destroy(&e);
    ply_nnue_destroy(&net);
    return 0;
}
