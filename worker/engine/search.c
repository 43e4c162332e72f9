/*
 * The analysis engine (search.h): iterative deepening over a principal
 * variation search with aspiration windows and a quiescence search, run by
 * every thread of an OpenMP team on one shared table (Lazy SMP).
 *
 * Sources: the algorithms are the standard ones as the chessprogramming
 * wiki describes them ("Principal Variation Search", "Aspiration Windows",
 * "Quiescence Search", "Null Move Pruning", "Late Move Reductions",
 * "Futility Pruning", "Reverse Futility Pruning", "Mate Distance Pruning",
 * "Lazy SMP", "Triangular PV-Table"); the constants (margins, reductions)
 * are ours. Each piece was measured by taking it out, on WAC at 100,000
 * nodes a position, 1 thread (tests/unit/test_tactics.c; 2026-12-01, the
 * first ply_eval, PeSTO tables only): 258/300 with everything; without
 * reverse futility 251, null move 245, late-move pruning 244, futility 250,
 * SEE pruning of captures in the search 254, SEE pruning in quiescence 251,
 * aspiration windows 247, check extension 245; without delta pruning the
 * same 258, in 40% more time. Late-move reductions were measured in
 * self-play (beside them). Added later and measured in fixed-node matches
 * against the build before (ply match, bench/openings-random.epd, 200-300
 * games; the commit messages have the scores): continuation history with
 * internal iterative reduction +44 Elo (95%: +11 .. +78) at 20,000 nodes a
 * move; the singular extension +21 (-18 .. +60) at 40,000; capture history
 * with history pruning +37 (+4 .. +72) at 20,000.
 *
 * Threads: every thread owns a ply__thread_t (histories, killers, PV table,
 * its own copy of the root moves, its node count). The engine's stop flag,
 * team_done flag, pondering flag, time origin and breadcrumbs are the only
 * state written during a search by more than one thread, all as relaxed
 * atomics. Breadcrumbs (Stockfish 10's ThreadHolding): a thread that enters
 * a node of the first CRUMB_PLIES plies that another thread is searching
 * reduces its late moves one ply more, so that the two spread over the tree;
 * time to depth 18 with 2 threads against 1 (bench/smp.sh --depth 18 on
 * every 25th position of STS, 60, 4 interleaved runs of each build on an
 * idle 2-core AMD EPYC, 2026-12-02): median speed-up 1.39, 1.56, 1.50, 1.63
 * without, 1.51, 1.87, 1.71, 1.66 with
 * (all 240 ratios: median 1.55 without, 1.69 with). Thread 0 is the thread
 * that called ply_engine_search: it alone reads the clock, reports, and
 * fills the result.
 */
#include "search.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval.h"
#include "movepick.h"
#include "nnue.h"
#include "omp_sync.h"
#include "stt.h"
#include "timeman.h"
#include "util/error.h"
#include "util/time.h"

#define MAX_PLY   PLY_SEARCH_MAX_PLY
#define CRUMBS      1024 /* breadcrumb slots (Stockfish 10: 1024) */
#define CRUMB_PLIES 8    /* plies from the root that leave breadcrumbs (Stockfish 10: 8) */
#define NODE_POLL 1024 /* nodes between looks at the stop flag, node limit and clock */

typedef struct root_move {
    ply_move_t move;
    int score;      /* this iteration's, -PLY_SCORE_INF when not (yet) the best */
    int prev_score; /* the previous iteration's */
    ply_search_line_t line;
} root_move_t;

typedef struct frame {
    ply_move_t move; /* the move played from this ply (0: a null move) */
    int16_t (*cont)[64]; /* continuation history after that move (NULL after a null move) */
    ply_move_t excluded; /* a move this node is searched without (singular extension), or 0 */
    int eval;        /* static evaluation, -PLY_SCORE_INF in check */
    ply_move_t killers[2];
    int marked; /* another thread is searching this node now (breadcrumbs) */
} frame_t;

typedef struct ply__thread {
    /* The network's accumulators by ply (enter): acc[ply] is the position at ply when
     * acc_ok[ply]; else it is computed from the nearest ply below that has one,
     * replaying the moves (acc_move[j], the move from ply j - 1 to j, 0 a null move) on
     * the boards there (acc_board[j], the node's own, alive while it is searched). */
    ply_nnue_acc_t acc[MAX_PLY + 8];
    const ply_board_t *acc_board[MAX_PLY + 8];
    ply_move_t acc_move[MAX_PLY + 8];
    uint8_t acc_ok[MAX_PLY + 8];
    struct ply_engine *e;
    int id;
    int stop;      /* this thread has seen the stop */
    int completed; /* deepest iteration finished */
    ply_search_line_t done; /* helpers: the first line of that iteration */
    int seldepth;
    uint64_t nodes; /* own count, exact */
    uint64_t
        poll_mask; /* poll when (nodes & poll_mask) == 0: NODE_POLL - 1, less under a node limit */
    uint64_t nodes_pub; /* the same, published every NODE_POLL nodes (relaxed atomic) */
    int key_base;       /* keys[key_base] is the root's key */
    uint64_t keys[PLY_SEARCH_MAX_HISTORY + MAX_PLY + 8];
    frame_t stack[MAX_PLY + 8];
    int16_t history[2][64][64];
    /* Continuation history: [side][piece][to] of a move, then [piece][to]
     * of the same side's reply one or two plies later. */
    int16_t cont[2][7][64][7][64];
    int16_t capture[2][7][64][7]; /* capture history: [side][piece][to][victim] */
    ply_move_t counter[2][7][64]; /* [side][piece][to] of the opponent's last move */
    int pv_len[MAX_PLY + 2];
    ply_move_t pv[MAX_PLY + 2][MAX_PLY + 2];
    int n_root;
    root_move_t root[PLY_MAX_MOVES];
} ply__thread_t;

struct ply_engine {
    ply_stt_t tt;
    const ply_nnue_t *net; /* the evaluation network, or NULL: ply_eval */
    int threads;
    int n_td;
    ply__thread_t **td;
    uint8_t lmr[64][64];

    /* One search: written by ply_engine_search before the team starts. */
    const ply_search_pos_t *pos; /* = &root_pos during a search */
    ply_search_pos_t root_pos;   /* the caller's, clock at most 100 (no wrap below the root) */
    ply_search_info_fn cb;
    void *cb_arg;
    int max_depth, start_depth, multipv, infinite;
    int lo, hi; /* the root window asked for (ply_search_limits_t); else -/+PLY_SCORE_INF */
    uint64_t node_limit;
    ply__budget_t budget;
    uint64_t start_ns;
    int n_root;
    ply_move_t root_moves[PLY_MAX_MOVES];
    int team; /* threads the team really has */
    int helper_parity; /* ply_search_limits_t */
    int *shared_depth;

    /* Written during a search from any thread: relaxed atomics only. */
    int stop;
    int team_done;  /* a helper finished the deepest iteration asked for */
    int team_depth; /* the deepest iteration any thread has finished */
    int pondering;
    uint64_t origin_ns; /* what the time limits count from (the start, or ponderhit) */
    /* Breadcrumbs: the node each thread is searching near the root, so that
     * a second thread there reduces its late moves more (Stockfish 10's
     * ThreadHolding). owner is a thread id + 1, 0 when free. */
    struct {
        int owner;
        uint64_t key;
    } crumbs[CRUMBS];
};

static inline int aload(const int *p)
{
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}
static inline void astore(int *p, int v)
{
    __atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static int imin(int a, int b)
{
    return a < b ? a : b;
}
static int imax(int a, int b)
{
    return a > b ? a : b;
}

/* ---------------------------------------------------------------- positions */

/* The fifty-move counter's ceiling: board.h's counter is 8 bits and wraps
 * (ply_board_play stays lean for perft); the positions and the search keep
 * it here, far above the 100 plies of FIDE art. 9.3. */
#define RULE50_MAX 255

int ply_search_pos_set(ply_search_pos_t *p, const char *fen, int chess960, const char *const *moves,
                       int n_moves, char *why, size_t why_len)
{
    if (why && why_len) why[0] = 0;
    if (!p || !fen || n_moves < 0 || (n_moves > 0 && !moves)) return PLY_EINVAL;
    /* The board's 8-bit clock saturates at RULE50_MAX: a longer halfmove
     * clock in the FEN (field 5) means the same for the rules. */
    char clamped[PLY_BOARD_FEN_MAX];
    const char *f5 = fen;
    for (int k = 0; k < 4 && *f5; k++) {
        while (*f5 == ' ') f5++;
        while (*f5 && *f5 != ' ') f5++;
    }
    while (*f5 == ' ') f5++;
    const size_t nd = strspn(f5, "0123456789");
    unsigned long clock = 0;
    for (size_t k = 0; k < nd && clock <= RULE50_MAX; k++)
        clock = clock * 10 + (unsigned)(f5[k] - '0');
    if (nd && (f5[nd] == 0 || f5[nd] == ' ') && clock > RULE50_MAX &&
        strlen(fen) < sizeof clamped) {
        snprintf(clamped, sizeof clamped, "%.*s%d%s", (int)(f5 - fen), fen, RULE50_MAX, f5 + nd);
        fen = clamped;
    }
    int rc = ply_board_from_fen(&p->root, fen, chess960 ? PLY_BOARD_CHESS960 : 0, why, why_len);
    if (rc) return rc;
    if (chess960) p->root.chess960 = 1;
    p->n_history = 0;
    for (int i = 0; i < n_moves; i++) {
        ply_move_t m;
        rc = moves[i] ? ply_board_move_from_uci(&p->root, moves[i], &m) : PLY_EPARSE;
        if (rc) {
            if (why && why_len)
                snprintf(why, why_len, "move %d (%s): %s", i + 1, moves[i] ? moves[i] : "(null)",
                         rc == PLY_EPARSE ? "not UCI notation" : "illegal in this position");
            return rc;
        }
        if (p->n_history == PLY_SEARCH_MAX_HISTORY) {
            memmove(p->history, p->history + 1,
                    sizeof p->history[0] * (PLY_SEARCH_MAX_HISTORY - 1));
            p->n_history--;
        }
        p->history[p->n_history++] = p->root.key[0];
        const ply_board_t before = p->root;
        ply_board_play(&p->root, m);
        /* A capture or a pawn move resets the clock; otherwise it saturates
         * (the board's ply_board_play wraps at 256). */
        const int reset =
            p->root.pieces[PLY_PAWN] != before.pieces[PLY_PAWN] ||
            ply_popcount(ply_board_occ(&p->root)) < ply_popcount(ply_board_occ(&before));
        if (!reset && before.rule50 >= RULE50_MAX) p->root.rule50 = RULE50_MAX;
        /* Nothing before a capture or a pawn move can come back. */
        if (reset) p->n_history = 0;
    }
    return 0;
}

void ply_search_limits_init(ply_search_limits_t *l)
{
    memset(l, 0, sizeof *l);
    l->time_ms[0] = l->time_ms[1] = -1;
}

/* ---------------------------------------------------------------- the engine */

ply_engine_t *ply_engine_new(size_t hash_mib, int threads)
{
    if (hash_mib < 1 || hash_mib > 1048576 || threads < 1 || threads > 1024) return NULL;
    ply_engine_t *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    if (ply_stt_init(&e->tt, hash_mib << 20)) {
        free(e);
        return NULL;
    }
    e->threads = threads;
    e->net = PLY_ENGINE_NNUE_DEFAULT ? ply_nnue_embedded(NULL, 0) : NULL;
    /* Late-move reductions grow with the log of the depth and of the move
     * number (Senpai's and Ethereal's form; the divisor 2.25 is ours). */
    for (int d = 1; d < 64; d++)
        for (int m = 1; m < 64; m++) e->lmr[d][m] = (uint8_t)(0.75 + log(d) * log(m) / 2.25);
    return e;
}

void ply_engine_destroy(ply_engine_t **pe)
{
    if (!pe || !*pe) return;
    ply_engine_t *e = *pe;
    for (int i = 0; i < e->n_td; i++) free(e->td[i]);
    free(e->td);
    ply_stt_free(&e->tt);
    free(e);
    *pe = NULL;
}

int ply_engine_set_hash(ply_engine_t *e, size_t hash_mib)
{
    if (!e || hash_mib < 1 || hash_mib > 1048576) return PLY_EINVAL;
    ply_stt_t t;
    if (ply_stt_init(&t, hash_mib << 20)) return PLY_ENOMEM;
    t.log = e->tt.log;
    ply_stt_free(&e->tt);
    e->tt = t;
    return 0;
}

int ply_engine_set_threads(ply_engine_t *e, int threads)
{
    if (!e || threads < 1 || threads > 1024) return PLY_EINVAL;
    e->threads = threads;
    return 0;
}

static void clear_thread(ply__thread_t *t)
{
    memset(t->history, 0, sizeof t->history);
    memset(t->cont, 0, sizeof t->cont);
    memset(t->capture, 0, sizeof t->capture);
    memset(t->counter, 0, sizeof t->counter);
}

void ply_engine_clear(ply_engine_t *e)
{
    if (!e) return;
    ply_stt_clear(&e->tt);
    for (int i = 0; i < e->n_td; i++) clear_thread(e->td[i]);
}

void ply_engine_set_net(ply_engine_t *e, const ply_nnue_t *net)
{
    if (!e || e->net == net) return;
    e->net = net;
    ply_stt_clear(&e->tt); /* its static evaluations are the other evaluation's */
}

const ply_nnue_t *ply_engine_net(const ply_engine_t *e)
{
    return e->net;
}

void ply_engine_stop(ply_engine_t *e)
{
    if (e) astore(&e->stop, 1);
}

void ply_engine_clear_stop(ply_engine_t *e)
{
    if (e) astore(&e->stop, 0);
}

const ply_stt_t *ply_engine_table(const ply_engine_t *e)
{
    return &e->tt;
}

void ply_engine_ponderhit(ply_engine_t *e)
{
    if (!e) return;
    __atomic_store_n(&e->origin_ns, ply_time_ns(), __ATOMIC_RELAXED);
    astore(&e->pondering, 0);
}

/* Threads are kept from search to search (their histories are the engine's
 * knowledge), grown on demand. */
static int ensure_threads(ply_engine_t *e, int n)
{
    if (n <= e->n_td) return 0;
    ply__thread_t **td = realloc(e->td, sizeof *td * (size_t)n);
    if (!td) return PLY_ENOMEM;
    e->td = td;
    for (; e->n_td < n; e->n_td++) {
        /* aligned for the accumulators' SIMD loads */
        ply__thread_t *t = aligned_alloc(_Alignof(ply__thread_t), sizeof *t);
        if (!t) return PLY_ENOMEM;
        memset(t, 0, sizeof *t);
        td[e->n_td] = t;
    }
    return 0;
}

/* ---------------------------------------------------------------- limits */

static int64_t elapsed_ms(const ply_engine_t *e)
{
    uint64_t origin = __atomic_load_n(&e->origin_ns, __ATOMIC_RELAXED);
    return (int64_t)((ply_time_ns() - origin) / 1000000);
}

static uint64_t team_nodes(const ply__thread_t *self)
{
    const ply_engine_t *e = self->e;
    uint64_t sum = self->nodes;
    for (int i = 0; i < e->team; i++)
        if (e->td[i] != self) sum += __atomic_load_n(&e->td[i]->nodes_pub, __ATOMIC_RELAXED);
    return sum;
}

/* Every poll_mask + 1 nodes: publish the count, check the limits, take up a stop.
 * Thread 0 finishes its first iteration whatever happens, so that a search
 * always answers with a searched move and score. */
static void poll_limits(ply__thread_t *t)
{
    ply_engine_t *e = t->e;
    __atomic_store_n(&t->nodes_pub, t->nodes, __ATOMIC_RELAXED);
    if (!aload(&e->stop)) {
        if (e->node_limit && team_nodes(t) >= e->node_limit) astore(&e->stop, 1);
        if (t->id == 0 && e->budget.hard_ms >= 0 && !aload(&e->pondering) &&
            elapsed_ms(e) >= e->budget.hard_ms)
            astore(&e->stop, 1);
    }
    if (aload(&e->stop) && (t->id != 0 || t->completed >= 1)) t->stop = 1;
    if (t->id == 0 && t->completed >= 1 && aload(&e->team_done)) t->stop = 1;
}

static inline void count_node(ply__thread_t *t)
{
    if ((++t->nodes & t->poll_mask) == 0) poll_limits(t);
}

/* ---------------------------------------------------------------- rules */

/* KK, KBK, KNK: no sequence of legal moves mates (FIDE art. 5.2.2, 9.6.2). */
static int insufficient_material(const ply_board_t *b)
{
    if (b->pieces[PLY_PAWN] | b->pieces[PLY_ROOK] | b->pieces[PLY_QUEEN]) return 0;
    return !ply_more_than_one(b->pieces[PLY_KNIGHT] | b->pieces[PLY_BISHOP]);
}

/* A repetition (only the plies since the last capture or pawn move can
 * repeat, and only with the same side to move). One inside the search tree
 * (the earlier occurrence at or after the root) is a draw at once, as engines
 * do: the side that can repeat once can repeat again. One whose earlier
 * occurrences are all in the game before the root is a draw only at the
 * third occurrence (FIDE 9.2; as Stockfish 15.1's Position::is_draw). */
static int is_repetition(const ply__thread_t *t, const ply_board_t *b, int ply)
{
    const int top = t->key_base + ply;
    const int back = imin(b->rule50, top);
    int before_root = 0;
    for (int i = 4; i <= back; i += 2) {
        if (t->keys[top - i] != b->key[0]) continue;
        if (top - i >= t->key_base || ++before_root >= 2) return 1;
    }
    return 0;
}

static int has_non_pawn_material(const ply_board_t *b)
{
    return (b->colour[b->side] & (b->pieces[PLY_KNIGHT] | b->pieces[PLY_BISHOP] |
                                  b->pieces[PLY_ROOK] | b->pieces[PLY_QUEEN])) != 0;
}

/* Pass the move. The fifty-move counter restarts so that the repetition scan
 * does not look across the null move (the positions before it are not
 * reachable by the moves after it). */
static void play_null(ply_board_t *b)
{
    if (b->ep != PLY_NO_SQ) {
        ply__key_xor(b, &ply__zobrist.ep[PLY_FILE(b->ep)]);
        b->ep = PLY_NO_SQ;
    }
    ply__key_xor(b, &ply__zobrist.side);
    b->side ^= 1;
    b->rule50 = 0;
}

static uint16_t move16(ply_move_t m)
{
    return (uint16_t)m;
}

static void update_pv(ply__thread_t *t, int ply, ply_move_t m)
{
    t->pv[ply][0] = m;
    const int n = t->pv_len[ply + 1];
    memcpy(&t->pv[ply][1], t->pv[ply + 1], sizeof(ply_move_t) * (size_t)n);
    t->pv_len[ply] = n + 1;
}

static void history_update(int16_t *h, int bonus)
{
    /* History gravity: the value stays within +-PLY__HISTORY_MAX and recent
     * results weigh more (chessprogramming wiki, "History Heuristic"). */
    int v = *h + bonus - *h * abs(bonus) / PLY__HISTORY_MAX;
    *h = (int16_t)imax(-PLY__HISTORY_MAX, imin(PLY__HISTORY_MAX, v));
}

/* The histories of quiet move @m of side @us: its own, and its continuation
 * after the moves one (@c1) and two (@c2) plies before. */
static void quiet_update(ply__thread_t *t, int us, int16_t (*c1)[64], int16_t (*c2)[64],
                         ply_move_t m, int bonus)
{
    history_update(&t->history[us][ply_move_from(m)][ply_move_to(m)], bonus);
    if (c1) history_update(&c1[ply_move_piece(m)][ply_move_to(m)], bonus);
    if (c2) history_update(&c2[ply_move_piece(m)][ply_move_to(m)], bonus);
}

static void capture_update(ply__thread_t *t, const ply_board_t *b, ply_move_t m, int bonus)
{
    const int victim =
        ply_move_kind(m) == PLY_MOVE_EP ? PLY_PAWN : ply_board_piece_on(b, ply_move_to(m), NULL);
    history_update(&t->capture[b->side][ply_move_piece(m)][ply_move_to(m)][victim], bonus);
}

/* ---------------------------------------------------------------- evaluation */

/* The accumulator of ply @ply made fresh from the nearest ply below with one. */
static inline void fresh_acc(ply__thread_t *t, const ply_nnue_t *net, int ply)
{
    int k = ply;
    while (!t->acc_ok[k]) k--; /* the root's is always fresh */
    for (int j = k + 1; j <= ply; j++) {
        ply_nnue_update(net, &t->acc[j - 1], t->acc_board[j - 1], t->acc_move[j], &t->acc[j]);
        t->acc_ok[j] = 1;
    }
}

/* The node at @ply searches board @b: with a network, its accumulator is brought up to
 * date at once (eagerly). Measured against doing it only when an evaluation is needed
 * (lazily, which spares the nodes cut before they evaluate and those whose evaluation
 * the table holds): ply bench --search with a 256-neuron net (ply_nnue_random
 * --material), user CPU time of 8 interleaved runs each on a loaded 2-core AMD EPYC
 * (2026-12-07): eager least 1.49 s, median 1.65; lazy 1.59, 1.81 (4 runs before that:
 * eager faster in each pair). The parent's accumulator is in the cache just then. */
int ply__search_check_acc;
uint64_t ply__search_acc_checks, ply__search_acc_errors;

/* ply__search_check_acc (tests): the accumulator of @b at @ply against a refresh. */
static void check_acc(const ply__thread_t *t, const ply_nnue_t *net, const ply_board_t *b,
                      int ply)
{
    static _Thread_local ply_nnue_acc_t fresh;
    ply_nnue_refresh(net, b, &fresh);
    const size_t n = sizeof(int16_t) * (size_t)ply_nnue_hidden(net);
    const int bad = memcmp(fresh.acc[0], t->acc[ply].acc[0], n) ||
                    memcmp(fresh.acc[1], t->acc[ply].acc[1], n);
    __atomic_fetch_add(&ply__search_acc_checks, 1, __ATOMIC_RELAXED);
    if (bad) __atomic_fetch_add(&ply__search_acc_errors, 1, __ATOMIC_RELAXED);
}

static inline void enter(ply__thread_t *t, const ply_board_t *b, int ply)
{
    t->acc_board[ply] = b;
    if (!t->e->net) return;
    fresh_acc(t, t->e->net, ply);
    if (__builtin_expect(ply__search_check_acc, 0)) check_acc(t, t->e->net, b, ply);
}

/* The node at @ply plays @m (0: a null move) to reach its child: the child's accumulator
 * is stale until evaluate needs it. */
static inline void child(ply__thread_t *t, int ply, ply_move_t m)
{
    t->acc_move[ply + 1] = m;
    t->acc_ok[ply + 1] = 0;
}

/* The static evaluation of @b at @ply (entered): the network's when the engine has one,
 * else ply_eval. */
static int evaluate(ply__thread_t *t, const ply_board_t *b, int ply)
{
    const ply_nnue_t *net = t->e->net;
    if (!net) return ply_eval(b);
    return ply_nnue_evaluate(net, &t->acc[ply], b->side);
}

/* ---------------------------------------------------------------- quiescence */

static int qsearch(ply__thread_t *t, const ply_board_t *b, int alpha, int beta, int ply)
{
    const int pv_node = beta - alpha > 1;
    t->pv_len[ply] = 0;
    enter(t, b, ply);
    count_node(t);
    if (t->stop) return 0;
    if (ply > t->seldepth) t->seldepth = ply;
    if (insufficient_material(b)) return 0;
    const int in_check = ply_board_checkers(b) != 0;
    if (ply >= MAX_PLY - 1) return in_check ? 0 : evaluate(t, b, ply);
    if (b->rule50 >= 100 && (!in_check || ply_board_count_legal(b))) return 0;

    ply_stt_hit_t h;
    const int hit = ply_stt_probe(&t->e->tt, b->key, &h);
    if (hit && !pv_node) {
        const int s = ply_stt_score_from(h.score, ply);
        if (h.bound == PLY_BOUND_EXACT || (h.bound == PLY_BOUND_LOWER && s >= beta) ||
            (h.bound == PLY_BOUND_UPPER && s <= alpha))
            return s;
    }

    int best = -PLY_SCORE_INF, stand = -PLY_SCORE_INF;
    if (!in_check) {
        stand = hit && h.eval != PLY_STT_NO_EVAL ? h.eval : evaluate(t, b, ply);
        if (stand >= beta) return stand;
        best = stand;
        if (stand > alpha) alpha = stand;
    }
    const int alpha0 = alpha;

    ply__picker_t pk;
    const ply__order_t o = {.tt_move = hit ? h.move : 0, .capture = t->capture[b->side]};
    const int n = ply__picker_init(&pk, b, &o, !in_check);
    if (n == 0) return in_check ? -PLY_SCORE_MATE + ply : 0;

    ply_move_t m, best_move = 0;
    int mscore;
    while ((m = ply__picker_next(&pk, &mscore))) {
        if (!in_check) {
            /* Delta pruning: even winning the victim cannot lift the score to
             * alpha (200 cp of slack for the position); then SEE: a capture
             * that loses material is not worth a look. */
            const int victim = ply_move_kind(m) == PLY_MOVE_EP
                                   ? PLY_PAWN
                                   : ply_board_piece_on(b, ply_move_to(m), NULL);
            if (!ply_move_is_promo(m) && stand + ply_see_value[victim] + 200 <= alpha) continue;
            if (mscore < PLY__PICK_GOOD_CAPTURE && mscore != PLY__PICK_TT) continue;
            if (mscore == PLY__PICK_TT && !ply_see_ge(b, m, 0)) continue;
        }
        ply_board_t nb = *b;
        ply_board_play(&nb, m);
        ply_stt_prefetch(&t->e->tt, nb.key);
        child(t, ply, m);
        const int s = -qsearch(t, &nb, -beta, -alpha, ply + 1);
        if (t->stop) return 0;
        if (s > best) {
            best = s;
            if (s > alpha) {
                alpha = s;
                best_move = m;
                update_pv(t, ply, m);
                if (s >= beta) break;
            }
        }
    }
    const int bound = best >= beta     ? PLY_BOUND_LOWER
                      : alpha > alpha0 ? PLY_BOUND_EXACT
                                       : PLY_BOUND_UPPER;
    ply_stt_store(&t->e->tt, b->key, move16(best_move), ply_stt_score_to(best, ply),
                  in_check ? PLY_STT_NO_EVAL : stand, -1, bound);
    return best;
}

/* ---------------------------------------------------------------- search */

static int search_node(ply__thread_t *t, const ply_board_t *b, int alpha, int beta, int depth,
                       int ply);

static int search(ply__thread_t *t, const ply_board_t *b, int alpha, int beta, int depth, int ply)
{
    if (depth <= 0) return qsearch(t, b, alpha, beta, ply);
    ply_engine_t *e = t->e;
    int *own = NULL;
    /* (A singular-extension search of the same node keeps the node's mark.) */
    if (!t->stack[ply].excluded) t->stack[ply].marked = 0;
    if (e->team > 1 && ply < CRUMB_PLIES && !t->stack[ply].excluded) {
        __typeof__(e->crumbs[0]) *c = &e->crumbs[b->key[0] & (CRUMBS - 1)];
        const int owner = aload(&c->owner);
        if (owner == 0) {
            if (__atomic_compare_exchange_n(&c->owner, &(int){0}, t->id + 1, 0, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED)) {
                __atomic_store_n(&c->key, b->key[0], __ATOMIC_RELAXED);
                own = &c->owner;
            }
        } else if (owner != t->id + 1 &&
                   __atomic_load_n(&c->key, __ATOMIC_RELAXED) == b->key[0]) {
            t->stack[ply].marked = 1;
        }
    }
    const int s = search_node(t, b, alpha, beta, depth, ply);
    if (own) astore(own, 0);
    return s;
}

static int search_node(ply__thread_t *t, const ply_board_t *b, int alpha, int beta, int depth,
                       int ply)
{
    ply_engine_t *e = t->e;
    const int pv_node = beta - alpha > 1;
    t->pv_len[ply] = 0;
    enter(t, b, ply);
    count_node(t);
    if (t->stop) return 0;
    if (ply > t->seldepth) t->seldepth = ply;
    t->keys[t->key_base + ply] = b->key[0];

    const int in_check = ply_board_checkers(b) != 0;
    /* Draws: fifty moves (unless the last move mated, FIDE art. 9.3),
     * repetition, dead material. */
    if (b->rule50 >= 100) return in_check && !ply_board_count_legal(b) ? -PLY_SCORE_MATE + ply : 0;
    if (is_repetition(t, b, ply) || insufficient_material(b)) return 0;
    if (ply >= MAX_PLY - 1) return in_check ? 0 : evaluate(t, b, ply);

    /* Mate distance pruning: no line from here beats a mate already found nearer the root. */
    alpha = imax(alpha, -PLY_SCORE_MATE + ply);
    beta = imin(beta, PLY_SCORE_MATE - ply - 1);
    if (alpha >= beta) return alpha;

    frame_t *f = &t->stack[ply];
    const ply_move_t excluded = f->excluded;
    ply_stt_hit_t h;
    const int hit = ply_stt_probe(&e->tt, b->key, &h);
    const int tt_score = hit ? ply_stt_score_from(h.score, ply) : 0;
    if (hit && !pv_node && !excluded && h.depth >= depth) {
        const int s = ply_stt_score_from(h.score, ply);
        if (h.bound == PLY_BOUND_EXACT || (h.bound == PLY_BOUND_LOWER && s >= beta) ||
            (h.bound == PLY_BOUND_UPPER && s <= alpha))
            return s;
    }

    /* Internal iterative reduction: a node the table knows no move for is
     * searched a ply shallower, which finds one for the next iteration. */
    if (depth >= 4 && !(hit && h.move)) depth--;

    const int eval = in_check                           ? -PLY_SCORE_INF
                     : hit && h.eval != PLY_STT_NO_EVAL ? h.eval
                                                        : evaluate(t, b, ply);
    f->eval = eval;
    const int improving = !in_check && ply >= 2 && eval > t->stack[ply - 2].eval;
    t->stack[ply + 2].killers[0] = t->stack[ply + 2].killers[1] = 0;

    if (!pv_node && !in_check && !excluded) {
        /* Reverse futility: far enough above beta that a quiet move at this
         * depth will not bring it down. */
        if (depth <= 7 && eval - 80 * (depth - improving) >= beta && eval < PLY_SCORE_MATE_MIN)
            return eval;
        /* Null move, with the zugzwang guard: never without a piece to move. */
        if (depth >= 3 && eval >= beta && ply > 0 && t->stack[ply - 1].move != 0 &&
            has_non_pawn_material(b) && beta > -PLY_SCORE_MATE_MIN) {
            const int r = 4 + depth / 4 + imin(3, (eval - beta) / 200);
            ply_board_t nb = *b;
            play_null(&nb);
            child(t, ply, 0);
            f->move = 0;
            f->cont = NULL;
            const int s = -search(t, &nb, -beta, -beta + 1, depth - r, ply + 1);
            if (t->stop) return 0;
            if (s >= beta) return s >= PLY_SCORE_MATE_MIN ? beta : s;
        }
    }

    const int us = b->side;
    const ply_move_t prev = ply > 0 ? t->stack[ply - 1].move : 0;
    const ply_move_t counter = prev ? t->counter[us][ply_move_piece(prev)][ply_move_to(prev)] : 0;
    int16_t(*const c1)[64] = ply >= 1 ? t->stack[ply - 1].cont : NULL;
    int16_t(*const c2)[64] = ply >= 2 ? t->stack[ply - 2].cont : NULL;
    ply__order_t o = {.tt_move = hit ? h.move : 0,
                      .counter = counter,
                      .history = t->history[us],
                      .cont = {c1, c2},
                      .capture = t->capture[us]};
    o.killers[0] = f->killers[0];
    o.killers[1] = f->killers[1];
    ply__picker_t pk;
    const int n = ply__picker_init(&pk, b, &o, 0);
    if (n == 0) return in_check ? -PLY_SCORE_MATE + ply : 0;

    const int alpha0 = alpha;
    int best = -PLY_SCORE_INF, searched = 0, n_quiets = 0, mscore;
    int n_captures = 0;
    ply_move_t m, best_move = 0, quiets[PLY_MAX_MOVES], captures[PLY_MAX_MOVES];
    while ((m = ply__picker_next(&pk, &mscore))) {
        if (m == excluded) continue;
        const int capture = ply__move_is_capture(b, m);
        const int quiet = !capture && !ply_move_is_promo(m);
        ply_board_t nb = *b;
        ply_board_play(&nb, m);
        ply_stt_prefetch(&e->tt, nb.key);
        const int gives_check = ply_board_checkers(&nb) != 0;

        if (best > -PLY_SCORE_MATE_MIN && !in_check && !gives_check) {
            if (quiet && depth <= 8) {
                /* Late move pruning: at low depth the late quiet moves are
                 * hopeless once enough have failed. */
                if (searched >= (3 + depth * depth) / (2 - improving)) continue;
                /* Futility: a quiet move will not gain the margin back. */
                if (!pv_node && eval + 100 + 100 * depth <= alpha) continue;
                /* History pruning: a quiet move that has failed everywhere. */
                if (depth <= 3 && mscore < -4096 * depth) continue;
            }
            if (capture && depth <= 6 && mscore < PLY__PICK_GOOD_CAPTURE &&
                !ply_see_ge(b, m, -90 * depth))
                continue;
        }

        /* Extensions: a check, and a singular move: the table's move when
         * every other move fails well below the table's score for it, in a
         * search of half the depth without it (chessprogramming wiki,
         * "Singular Extensions"). If even without it the node fails high
         * above beta, several moves refute the parent: cut (multi-cut). */
        int extend = gives_check;
        if (!extend && !excluded && depth >= 8 && ply > 0 && hit && move16(m) == h.move &&
            h.depth >= depth - 3 && h.bound != PLY_BOUND_UPPER && !ply_score_is_mate(tt_score)) {
            const int sbeta = tt_score - 2 * depth;
            f->excluded = m;
            const int s = search(t, b, sbeta - 1, sbeta, (depth - 1) / 2, ply);
            f->excluded = 0;
            if (t->stop) return 0;
            if (s < sbeta)
                extend = 1;
            else if (sbeta >= beta)
                return sbeta;
        }
        f->move = m;
        f->cont = t->cont[us][ply_move_piece(m)][ply_move_to(m)];
        child(t, ply, m);
        const int new_depth = depth - 1 + extend;
        int s;
        if (searched == 0) {
            s = -search(t, &nb, -beta, -alpha, new_depth, ply + 1);
        } else {
            int r = 0;
            /* Late-move reductions, one more ply in non-PV nodes and when
             * not improving, none for checks. Measured in self-play at
             * 20,000 nodes a move (132 games, bench/openings.epd both
             * colours): without the two extra plies -64 Elo [-119, -12];
             * reducing checks too -11 [-59, +38]. WAC (test_tactics) like
             * this: 245/300 at 30,000 nodes, 269 at 100,000. */
            if (depth >= 3 && searched >= 1 + 2 * pv_node && (quiet || mscore < 0) &&
                !gives_check) {
                r = e->lmr[imin(depth, 63)][imin(searched, 63)] + !pv_node + !improving +
                    f->marked;
                if (quiet) r -= mscore >= PLY__PICK_COUNTER ? 1 : mscore / 12288;
                r = imax(0, imin(r, new_depth - 1));
            }
            s = -search(t, &nb, -alpha - 1, -alpha, new_depth - r, ply + 1);
            if (s > alpha && r > 0) s = -search(t, &nb, -alpha - 1, -alpha, new_depth, ply + 1);
            if (s > alpha && s < beta) s = -search(t, &nb, -beta, -alpha, new_depth, ply + 1);
        }
        if (t->stop) return 0;
        searched++;
        if (s > best) {
            best = s;
            if (s > alpha) {
                alpha = s;
                best_move = m;
                update_pv(t, ply, m);
                if (s >= beta) break;
            }
        }
        if (quiet)
            quiets[n_quiets++] = m;
        else if (capture)
            captures[n_captures++] = m;
    }

    if (best >= beta) {
        /* A cut: the capture that made it gains capture history, the
         * captures tried before it lose as much. */
        const int bonus = imin(32 * depth * depth, 4096);
        if (ply__move_is_capture(b, best_move)) capture_update(t, b, best_move, bonus);
        for (int i = 0; i < n_captures; i++) capture_update(t, b, captures[i], -bonus);
    }
    if (best >= beta && best_move && !ply__move_is_capture(b, best_move) &&
        !ply_move_is_promo(best_move)) {
        /* A quiet move cut the node off: remember it for this ply, for the
         * opponent's last move, and in the history; the quiet moves tried
         * before it lose what it gains. */
        const int bonus = imin(32 * depth * depth, 4096);
        quiet_update(t, us, c1, c2, best_move, bonus);
        for (int i = 0; i < n_quiets; i++) quiet_update(t, us, c1, c2, quiets[i], -bonus);
        if (f->killers[0] != best_move) {
            f->killers[1] = f->killers[0];
            f->killers[0] = best_move;
        }
        if (prev) t->counter[us][ply_move_piece(prev)][ply_move_to(prev)] = best_move;
    }

    /* Without its excluded move a node's result is not the position's. */
    if (excluded) return searched ? best : alpha;
    const int bound = best >= beta     ? PLY_BOUND_LOWER
                      : alpha > alpha0 ? PLY_BOUND_EXACT
                                       : PLY_BOUND_UPPER;
    ply_stt_store(&e->tt, b->key, move16(best_move), ply_stt_score_to(best, ply),
                  in_check ? PLY_STT_NO_EVAL : eval, depth, bound);
    return best;
}

/* ---------------------------------------------------------------- root */

/* One pass over the root moves from @first (the earlier ones are the lines
 * already found this iteration in multi-PV). A move gets its score and line
 * when it is the first searched or raises alpha; the others get
 * -PLY_SCORE_INF, so that a stable sort keeps the previous order among them. */
static int search_root(ply__thread_t *t, int alpha, int beta, int depth, int first)
{
    const ply_board_t *b = &t->e->pos->root;
    const int beta0 = beta;
    int best = -PLY_SCORE_INF;
    t->pv_len[0] = 0;
    t->keys[t->key_base] = b->key[0];
    if (t->e->net) ply_nnue_refresh(t->e->net, b, &t->acc[0]);
    t->acc_ok[0] = 1;
    enter(t, b, 0);
    count_node(t);
    for (int i = first; i < t->n_root; i++) {
        root_move_t *rm = &t->root[i];
        ply_board_t nb = *b;
        ply_board_play(&nb, rm->move);
        t->stack[0].move = rm->move;
        t->stack[0].cont = t->cont[b->side][ply_move_piece(rm->move)][ply_move_to(rm->move)];
        child(t, 0, rm->move);
        const int new_depth = depth - 1 + (ply_board_checkers(&nb) != 0);
        int s;
        if (i == first) {
            s = -search(t, &nb, -beta, -alpha, new_depth, 1);
        } else {
            s = -search(t, &nb, -alpha - 1, -alpha, new_depth, 1);
            if (s > alpha && s < beta) s = -search(t, &nb, -beta, -alpha, new_depth, 1);
        }
        if (t->stop) break;
        if (i == first || s > alpha) {
            rm->score = s;
            ply_search_line_t *l = &rm->line;
            l->score = s;
            l->bound = s >= beta0   ? PLY_BOUND_LOWER
                       : s <= alpha ? PLY_BOUND_UPPER
                                    : PLY_BOUND_EXACT;
            l->depth = depth;
            l->seldepth = t->seldepth;
            l->pv[0] = rm->move;
            l->n_pv = 1 + imin(t->pv_len[1], MAX_PLY - 1);
            memcpy(&l->pv[1], t->pv[1], sizeof(ply_move_t) * (size_t)(l->n_pv - 1));
        } else {
            rm->score = -PLY_SCORE_INF;
        }
        if (s > best) best = s;
        if (s > alpha) {
            alpha = s;
            if (alpha >= beta) {
                /* a fail high at the root window's edge ends the iteration with this move's
                 * lower bound (a deepening analysis's job of several moves): a move not
                 * searched must not sort before it on an earlier iteration's score, or the
                 * table's, and answer with a line of that depth */
                if (beta >= t->e->hi)
                    for (int j = i + 1; j < t->n_root; j++) t->root[j].score = -PLY_SCORE_INF;
                break;
            }
        }
    }
    return best;
}

/* Stable insertion sort by score, best first (the root lists are short). */
static void sort_root(root_move_t *rm, int from, int to)
{
    for (int i = from + 1; i < to; i++) {
        root_move_t x = rm[i];
        int j = i;
        while (j > from && rm[j - 1].score < x.score) {
            rm[j] = rm[j - 1];
            j--;
        }
        rm[j] = x;
    }
}

static void report(ply__thread_t *t, int first, int last)
{
    ply_engine_t *e = t->e;
    if (!e->cb) return;
    ply_search_info_t info = {0};
    info.nodes = team_nodes(t);
    info.time_ms = (int64_t)((ply_time_ns() - e->start_ns) / 1000000);
    info.hashfull = ply_stt_hashfull(&e->tt);
    for (int i = first; i < last; i++) {
        info.multipv = i + 1;
        info.line = &t->root[i].line;
        e->cb(&info, e->cb_arg);
    }
}

/* One iteration for line @k (multi-PV), in an aspiration window around the
 * line's last score: 16 cp wide at first, widened by half again on every
 * fail, towards the side that failed. The window never leaves the root window
 * asked for (lo..hi): a fail at its edge ends the iteration with a bound. */
static void search_line(ply__thread_t *t, int depth, int k)
{
    const int lo = t->e->lo, hi = t->e->hi;
    int delta = 16, alpha = lo, beta = hi;
    const int prev = t->root[k].prev_score;
    if (depth >= 5 && prev > -PLY_SCORE_INF && !ply_score_is_mate(prev)) {
        /* cut to lo..hi, never empty: a previous score outside it searches its edge */
        alpha = imin(imax(prev - delta, lo), hi - 1);
        beta = imax(imin(prev + delta, hi), lo + 1);
    }
    for (;;) {
        const int s = search_root(t, alpha, beta, depth, k);
        sort_root(t->root, k, t->n_root);
        if (t->stop) return;
        if (s <= alpha && alpha > lo) {
            beta = (alpha + beta) / 2;
            alpha = imax(s - delta, lo);
        } else if (s >= beta && beta < hi) {
            beta = imin(s + delta, hi);
        } else {
            return;
        }
        if (t->id == 0) report(t, k, k + 1);
        delta += delta / 2;
        if (delta > 1000) alpha = lo, beta = hi;
    }
}

static void sleep_ms(int ms)
{
    struct timespec ts = {0, (long)ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* Iterative deepening on one thread. Helpers (id > 0) search one line, odd
 * ones a ply deeper than the iteration, so that the team does not walk the
 * same tree in step. */
static void think(ply__thread_t *t)
{
    ply_engine_t *e = t->e;
    const int lines = t->id == 0 ? e->multipv : 1;
    t->stop = 0;
    t->completed = 0;
    t->nodes = 0;
    __atomic_store_n(&t->nodes_pub, 0, __ATOMIC_RELAXED);
    /* A node limit is honoured to the node with one thread (deterministic),
     * and within a few nodes per thread with a team. */
    t->poll_mask = !e->node_limit ? NODE_POLL - 1 : e->team == 1 ? 0 : 15;
    t->key_base = e->pos->n_history;
    memcpy(t->keys, e->pos->history, sizeof(uint64_t) * (size_t)e->pos->n_history);
    memset(t->stack, 0, sizeof t->stack);
    t->n_root = e->n_root;
    int held = 1; /* the table holds every root move's position from start_depth - 3 */
    for (int i = 0; i < e->n_root; i++) {
        root_move_t *rm = &t->root[i];
        memset(rm, 0, sizeof *rm);
        rm->move = e->root_moves[i];
        rm->score = rm->prev_score = -PLY_SCORE_INF;
        rm->line.score = -PLY_SCORE_INF;
        rm->line.n_pv = 1;
        rm->line.pv[0] = rm->move;
        /* A search that starts deep (limits.start_depth: a deepening analysis's job on the
         * table that holds the iterations before) takes the move's last score from the
         * table, the reply's exact entry from one of the two iterations before, so that its
         * first iteration has the aspiration window the next one of a whole search would
         * have (simulated to depth 16, 10 STS positions, 1 worker: 7.46 M -> 7.08 M nodes).
         * It starts deep only when the table holds every root move from near that depth;
         * else at depth 1. What the coordinator counts as this worker's may be only a cut:
         * on KQK (tests/unit/test_search.c test_start_depth_cold), a subset job's null window
         * failed high on Qb2, and the exact search of Qb2 that followed, started at depth 18
         * on that table, searched 80 M nodes (the iterations from depth 1 on one worker:
         * 2.4 M). Simulated (tests/bench/bench_deepen_sim, deterministic), KQK to depth 18 on
         * 2 workers: 108.9 s -> 8.2 s; 30 STS positions to depth 15: 1 worker 16.38 ->
         * 15.75 s, 2 workers 12.28 -> 12.73 s. */
        if (e->start_depth > 1) {
            ply_board_t nb = e->pos->root;
            ply_stt_hit_t h;
            ply_board_play(&nb, rm->move);
            if (!ply_stt_probe(&e->tt, nb.key, &h) || h.depth < e->start_depth - 3)
                held = 0;
            else if (h.bound == PLY_BOUND_EXACT)
                rm->score = -ply_stt_score_from(h.score, 1);
        }
    }
    const int start = held ? e->start_depth : 1;
    ply_move_t last_best = 0;
    int stable = 0, last_score = 0;
    for (int d = imax(1, imin(start, e->max_depth));
         d <= e->max_depth && t->completed < e->max_depth && !t->stop; d++) {
        /* No thread searches again a depth the team has finished; but thread 0,
         * which must finish its first iteration whatever the limits, starts it
         * at depth 1 (a thread 0 that starts late on a loaded machine went
         * straight to the helper's depth and overran go nodes 5000 by 16,000). */
        if (t->id != 0 || t->completed >= 1) d = imax(d, aload(&e->team_depth) + 1);
        if (e->shared_depth && t->completed >= 1) d = imax(d, aload(e->shared_depth) + 1);
        if (d > e->max_depth) d = e->max_depth;
        const int depth = (t->id + e->helper_parity) & 1 ? imin(d + 1, e->max_depth) : d;
        for (int i = 0; i < t->n_root; i++) t->root[i].prev_score = t->root[i].score;
        t->seldepth = 0;
        for (int k = 0; k < lines && !t->stop; k++) {
            search_line(t, depth, k);
            sort_root(t->root, 0, k + 1);
        }
        if (t->stop) break;
        t->completed = depth;
        if (depth > aload(&e->team_depth)) astore(&e->team_depth, depth); /* a race only lowers it */
        if (e->shared_depth && depth > aload(e->shared_depth)) astore(e->shared_depth, depth);
        if (t->id != 0) {
            /* A helper's finished iteration is the team's answer when it is
             * deeper than thread 0's (fill_result); one at the depth asked
             * for ends thread 0's search (the depth is searched). */
            t->done = t->root[0].line;
            if (depth == e->max_depth) astore(&e->team_done, 1);
            continue;
        }
        report(t, 0, lines);
        if (aload(&e->stop)) break;
        /* The time to start another iteration: less while the best move stays
         * the same, more when it has just changed or the score is falling
         * (the form of Stockfish's and Ethereal's time management; our
         * factors). */
        const int score = t->root[0].score;
        stable = t->root[0].move == last_best ? stable + 1 : 0;
        int pct = stable == 0 ? 140 : stable >= 4 ? 70 : stable >= 2 ? 85 : 100;
        if (depth > 1 && last_score - score > 25) pct += 30;
        last_best = t->root[0].move;
        last_score = score;
        if (e->budget.soft_ms >= 0 && !aload(&e->pondering) &&
            elapsed_ms(e) >= e->budget.soft_ms * pct / 100)
            break;
    }
    if (t->id == 0) {
        /* Infinite and pondering searches answer only when told. */
        while (!aload(&e->stop) && (e->infinite || aload(&e->pondering))) sleep_ms(1);
        astore(&e->stop, 1);
    }
    __atomic_store_n(&t->nodes_pub, t->nodes, __ATOMIC_RELAXED);
}

static void fill_result(ply_engine_t *e, ply__thread_t *t, ply_search_result_t *out)
{
    out->n_lines = imin(e->multipv, t->n_root);
    for (int i = 0; i < out->n_lines; i++) {
        out->lines[i] = t->root[i].line;
        if (out->lines[i].score == -PLY_SCORE_INF) out->lines[i].score = t->root[i].prev_score;
    }
    /* With one line, the deepest finished iteration of the team answers
     * (thread 0's on a tie): a helper a ply ahead often finishes first. */
    int deepest = t->completed;
    for (int i = 1; i < e->team && out->n_lines == 1; i++) {
        const ply__thread_t *h = e->td[i];
        if (h->completed > deepest && h->done.score > -PLY_SCORE_INF) {
            deepest = h->completed;
            out->lines[0] = h->done;
        }
    }
    out->best = out->lines[0].pv[0];
    out->ponder = out->lines[0].n_pv >= 2 ? out->lines[0].pv[1] : 0;
    if (!out->ponder) {
        /* The table's move for the reply, if it is legal there. */
        ply_board_t nb = e->pos->root;
        ply_board_play(&nb, out->best);
        ply_stt_hit_t h;
        ply_move_t moves[PLY_MAX_MOVES];
        if (ply_stt_probe(&e->tt, nb.key, &h) && h.move) {
            const int n = ply_board_legal_moves(&nb, moves);
            for (int i = 0; i < n; i++)
                if (move16(moves[i]) == h.move) out->ponder = moves[i];
        }
    }
    out->nodes = 0;
    for (int i = 0; i < e->team; i++)
        out->nodes += __atomic_load_n(&e->td[i]->nodes_pub, __ATOMIC_RELAXED);
    out->time_ms = (int64_t)((ply_time_ns() - e->start_ns) / 1000000);
    out->hashfull = ply_stt_hashfull(&e->tt);
}

static int root_moves(ply_engine_t *e, const ply_search_pos_t *pos, const ply_search_limits_t *lim)
{
    ply_move_t all[PLY_MAX_MOVES];
    const int n = ply_board_legal_moves(&pos->root, all);
    if (lim->n_searchmoves <= 0) {
        memcpy(e->root_moves, all, sizeof(ply_move_t) * (size_t)n);
        e->n_root = n;
        return 0;
    }
    if (lim->n_searchmoves > PLY_MAX_MOVES) return PLY_EINVAL;
    e->n_root = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < lim->n_searchmoves; j++)
            if (lim->searchmoves[j] == all[i]) {
                e->root_moves[e->n_root++] = all[i];
                break;
            }
    }
    /* Every searchmove must be one of the legal moves (duplicates aside). */
    for (int j = 0; j < lim->n_searchmoves; j++) {
        int found = 0;
        for (int i = 0; i < e->n_root; i++) found |= e->root_moves[i] == lim->searchmoves[j];
        if (!found) return PLY_EINVAL;
    }
    return 0;
}

int ply_engine_search(ply_engine_t *e, const ply_search_pos_t *pos, const ply_search_limits_t *lim,
                      ply_search_info_fn cb, void *arg, ply_search_result_t *out)
{
    if (!e || !pos || !lim || !out) return PLY_EINVAL;
    memset(out, 0, sizeof *out);
    if (pos->n_history < 0 || pos->n_history > PLY_SEARCH_MAX_HISTORY) return PLY_EINVAL;
    if (lim->has_window && (lim->alpha >= lim->beta || lim->alpha < -PLY_SCORE_INF ||
                            lim->beta > PLY_SCORE_INF || lim->multipv > 1))
        return PLY_EINVAL;
    int rc = root_moves(e, pos, lim);
    if (rc) return rc;
    e->start_ns = ply_time_ns();
    if (e->n_root == 0) {
        out->n_lines = 1;
        out->lines[0].score = ply_board_checkers(&pos->root) ? -PLY_SCORE_MATE : 0;
        out->hashfull = ply_stt_hashfull(&e->tt);
        astore(&e->stop, 0);
        return 0;
    }
    if ((rc = ensure_threads(e, e->threads))) return rc;

    /* A root past the fifty moves is a draw for the search (its moves are
     * scored 0 unless they mate, FIDE art. 9.3); at most 100 there, the clock
     * cannot wrap in the tree. */
    e->root_pos = *pos;
    if (e->root_pos.root.rule50 > 100) e->root_pos.root.rule50 = 100;
    e->pos = &e->root_pos;
    e->cb = cb;
    e->cb_arg = arg;
    e->max_depth = lim->depth > 0 ? imin(lim->depth, PLY_SEARCH_MAX_DEPTH) : PLY_SEARCH_MAX_DEPTH;
    e->start_depth = lim->start_depth;
    e->helper_parity = lim->helper_parity & 1;
    e->shared_depth = lim->shared_depth;
    e->multipv = imax(1, imin(imin(lim->multipv, PLY_SEARCH_MAX_MULTIPV), e->n_root));
    e->infinite = lim->infinite != 0;
    e->lo = lim->has_window ? lim->alpha : -PLY_SCORE_INF;
    e->hi = lim->has_window ? lim->beta : PLY_SCORE_INF;
    e->node_limit = lim->nodes;
    e->budget = ply__time_budget(lim, pos->root.side, e->n_root);
    if (e->infinite) e->budget.soft_ms = e->budget.hard_ms = -1;
    astore(&e->pondering, lim->ponder != 0);
    astore(&e->team_done, 0);
    astore(&e->team_depth, 0);
    __atomic_store_n(&e->origin_ns, e->start_ns, __ATOMIC_RELAXED);
    ply_stt_new_search(&e->tt);
    e->team = e->threads;
    for (int i = 0; i < e->team; i++) {
        e->td[i]->e = e;
        e->td[i]->id = i;
        e->td[i]->nodes = 0;
        __atomic_store_n(&e->td[i]->nodes_pub, 0, __ATOMIC_RELAXED);
    }

    int sync;
    ply__omp_fork(&sync);
#pragma omp parallel num_threads(e->threads)
    {
        ply__omp_enter(&sync);
        /* The runtime may give fewer threads than asked: the team counts those. */
#pragma omp single
        e->team = omp_get_num_threads();
        think(e->td[omp_get_thread_num()]);
        ply__omp_leave(&sync);
    }
    ply__omp_join(&sync);

    fill_result(e, e->td[0], out);
    astore(&e->stop, 0);
    astore(&e->pondering, 0);
    return 0;
}

void ply_engine_set_export(ply_engine_t *e, ply_stt_log_t *log)
{
    e->tt.log = log;
}

void ply_engine_import(ply_engine_t *e, const ply_stt_record_t *r, size_t n)
{
    for (size_t i = 0; i < n; i++) ply_stt_import(&e->tt, &r[i]);
}
