/*
 * A deepening analysis's facts, jobs and iterations (search/deepen.h). The facts are kept per
 * root move and depth; the lines of depths below the last completed iteration are freed as
 * iterations complete (the ranking and the answer read only that iteration and the ones
 * after it), the best line of every completed iteration is kept for SearchAnswer.iterations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/san.h"
#include "envelope.h"
#include "search/deepen.h"
#include "search/game.h"
#include "util/error.h"

#define SCORE_INF  32767
#define SCORE_MATE 32000
#define DEPTHS     (PLY_SEARCH_JOB_MAX_DEPTH + 2) /* facts indexed by depth, 1.. */

/* One accepted line and who computed it. */
typedef struct dline {
    Ply__SearchResult *res;
    char *worker, *identity;
} dline_t;

/* What is known of one root move at one depth. */
typedef struct fact {
    int32_t lo, hi; /* its score is in [lo, hi] */
    uint8_t exact;  /* an exact line came (lo == hi) */
    uint8_t busy;   /* a search of it at this depth is in flight */
    dline_t *line;  /* the exact line, else the line of the upper bound hi (NULL: none) */
} fact_t;

typedef struct dmove {
    char uci[8];
    ply_arb_move_t mv; /* uci read by the rule engine at the root (move_index) */
    char *last; /* the worker that searched it last (its table holds the subtree), or NULL */
    fact_t f[DEPTHS];
} dmove_t;

typedef struct slot {
    int used;
    ply__deepen_job_t job;
    char *worker; /* who computes it (NULL: not known) */
} slot_t;

/* One completed iteration. */
typedef struct iter {
    Ply__SearchResult *best; /* a copy of its best line's result */
    char san[PLY_ARB_SAN_MAX];
    Ply__SearchIteration msg;
} iter_t;

typedef struct ranked {
    int32_t v;
    int known;
    uint32_t i;
} ranked_t;

/* A depth's ranking and threshold, kept while no fact changes (every idle worker asks after
 * each result: sorting the moves at each ask cost 170 us a job at 64 workers). */
typedef struct rank_cache {
    uint32_t k;
    uint64_t facts; /* ply__deepen.facts when computed; 0: never */
    ranked_t *order;
    int known;
    int32_t t, guess; /* the threshold when known; else where null windows go */
    size_t exact;
} rank_cache_t;

struct ply__deepen {
    ply_arb_pos_t root;
    size_t n;
    dmove_t *m;
    uint32_t k, max_depth, completed;
    int32_t thr_last; /* T of the last completed iteration */
    /* the opening whole job (the header): its depth (0: none), in flight, its lines taken */
    uint32_t whole_depth;
    uint8_t whole_busy, whole_done;
    slot_t *slots;    /* PLY__DEEPEN_SLOTS(n): a run's tasks; a split's are its parent's */
    size_t nslots;
    int own_slots;
    /* the split (the header's "More workers than root moves"): the analysis of the position
     * after root move child_move, a ply deeper, its iteration k the move's depth k + 1; its
     * generation tells a job of a split since replaced */
    ply__deepen_t *child;
    uint32_t child_move, gen;
    uint64_t nodes;
    /* the answer: the last completed iteration's lines, best first */
    Ply__AnalysedMove *am;
    Ply__AnalysedMove **amp;
    char (*san)[PLY_ARB_SAN_MAX];
    char ***pv_san; /* per answer line: its SAN, am[i].line->n_pv strings */
    size_t nam;
    iter_t it[DEPTHS];
    Ply__SearchIteration *itp[DEPTHS];
    size_t nit;
    uint64_t facts;      /* counts the facts taken and the searches started or dropped (the
                            threshold reads what is in flight): rank_cache_t's key */
    rank_cache_t rc[2];  /* the two depths picks look at */
    /* the last pick, kept while nothing changed (dispatch asks once per queued slot) */
    uint64_t version, pick_version;
    const char *pick_worker;
    int pick_ok;
    ply__deepen_job_t pick;
};

static void dline_free(dline_t **l)
{
    if (!*l) return;
    if ((*l)->res) ply__search_result__free_unpacked((*l)->res, NULL);
    free((*l)->worker);
    free((*l)->identity);
    free(*l);
    *l = NULL;
}

int32_t ply__deepen_score(const Ply__SearchLine *l)
{
    if (!l->has_mate) return l->score_cp;
    int64_t n = l->mate;
    int64_t s = n > 0 ? SCORE_MATE - (2 * n - 1) : -SCORE_MATE + 2 * -n;
    return (int32_t)(s < -SCORE_INF ? -SCORE_INF : s > SCORE_INF ? SCORE_INF : s);
}

ply__deepen_t *ply__deepen_new(const ply_arb_pos_t *root, char *const *uci, size_t n,
                               uint32_t multipv, uint32_t max_depth)
{
    ply__deepen_t *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->root = *root;
    d->n = n;
    d->k = multipv < 1 ? 1 : multipv > n ? (uint32_t)n : multipv;
    d->max_depth = max_depth < 1                          ? 1
                   : max_depth > PLY_SEARCH_JOB_MAX_DEPTH ? PLY_SEARCH_JOB_MAX_DEPTH
                                                          : max_depth;
    size_t c = n ? n : 1;
    d->m = calloc(c, sizeof *d->m);
    d->nslots = PLY__DEEPEN_SLOTS(n);
    d->slots = calloc(d->nslots, sizeof *d->slots);
    d->own_slots = 1;
    d->am = calloc(c, sizeof *d->am);
    d->amp = calloc(c, sizeof *d->amp);
    d->san = calloc(c, sizeof *d->san);
    d->pv_san = calloc(c, sizeof *d->pv_san);
    for (int i = 0; i < 2; i++) d->rc[i].order = calloc(c, sizeof *d->rc[i].order);
    d->facts = 1;
    if (!d->m || !d->slots || !d->am || !d->amp || !d->san || !d->pv_san || !d->rc[0].order ||
        !d->rc[1].order) {
        ply__deepen_free(&d);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        strncpy(d->m[i].uci, uci[i], sizeof d->m[i].uci - 1);
        if (ply_arb_move_from_uci(root, d->m[i].uci, &d->m[i].mv) < 0) /* not a root move */
            d->m[i].mv = (ply_arb_move_t){0};
        for (int k = 0; k < DEPTHS; k++) d->m[i].f[k].lo = -SCORE_INF, d->m[i].f[k].hi = SCORE_INF;
    }
    d->version = 1;
    if (d->max_depth >= PLY__DEEPEN_WHOLE_BELOW + 2)
        ply__deepen_set_whole(d, d->max_depth - PLY__DEEPEN_WHOLE_BELOW < PLY__DEEPEN_WHOLE_DEPTH
                                     ? d->max_depth - PLY__DEEPEN_WHOLE_BELOW
                                     : PLY__DEEPEN_WHOLE_DEPTH);
    return d;
}

void ply__deepen_set_whole(ply__deepen_t *d, uint32_t depth)
{
    if (depth == 0) d->whole_depth = 0;
    else if (depth < d->max_depth && d->n > 1 && d->k <= PLY_SEARCH_JOB_MAX_MULTIPV)
        d->whole_depth = depth;
}

uint32_t ply__deepen_multipv(const ply__deepen_t *d)
{
    return d->k;
}

static void free_answer(ply__deepen_t *d)
{
    for (size_t i = 0; i < d->nam; i++) {
        for (size_t j = 0; d->pv_san[i] && j < d->am[i].n_pv_san; j++) free(d->pv_san[i][j]);
        free(d->pv_san[i]);
        d->pv_san[i] = NULL;
    }
    d->nam = 0;
}

void ply__deepen_free(ply__deepen_t **dp)
{
    ply__deepen_t *d = *dp;
    if (!d) return;
    if (d->am && d->pv_san) free_answer(d);
    ply__deepen_free(&d->child);
    for (size_t i = 0; d->own_slots && d->slots && i < d->nslots; i++) free(d->slots[i].worker);
    for (size_t i = 0; d->m && i < d->n; i++) {
        free(d->m[i].last);
        for (int k = 0; k < DEPTHS; k++) dline_free(&d->m[i].f[k].line);
    }
    for (size_t i = 0; i < d->nit; i++)
        if (d->it[i].best) ply__search_result__free_unpacked(d->it[i].best, NULL);
    free(d->m);
    free(d->rc[0].order);
    free(d->rc[1].order);
    if (d->own_slots) free(d->slots);
    free(d->am);
    free(d->amp);
    free(d->san);
    free(d->pv_san);
    free(d);
    *dp = NULL;
}

/* ------------------------------------------------------------- ranking */

/* What move @m is worth for ranking at depth @k: its deepest fact below @k, and in *known its
 * class, ranked first: 2 an exact score or a lower bound (a fail high: it may be the best), 1
 * an upper bound alone (just below it: proven no better than the moves that were exact
 * there, it may be far worse), 0 no fact. An upper bound ranked as a score put a move proven
 * <= 101 at depth 16 before the best move, exact 97 at depth 17, on STS 157 (every 50th of
 * tests/data/analysis/sts-v3.epd, 4th): the next iteration's exact search went to it (-608,
 * 812,000 nodes, the iteration waiting on it). */
static int32_t rank_value(const dmove_t *m, uint32_t k, int *known)
{
    for (uint32_t j = k - 1; j >= 1; j--) {
        const fact_t *f = &m->f[j];
        *known = 2;
        if (f->exact) return f->lo;
        if (f->lo > -SCORE_INF) return f->lo;
        *known = 1;
        if (f->hi < SCORE_INF) return f->hi - 1;
    }
    *known = 0;
    return -SCORE_INF;
}


static int cmp_ranked(const void *pa, const void *pb)
{
    const ranked_t *a = pa, *b = pb;
    if (a->known != b->known) return b->known - a->known;
    if (a->v != b->v) return a->v > b->v ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* The moves in the order depth @k searches them (@out: d->n indices). */
static void rank_moves(const ply__deepen_t *d, uint32_t k, ranked_t *out)
{
    for (size_t i = 0; i < d->n; i++) {
        out[i].i = (uint32_t)i;
        out[i].v = k > 1 ? rank_value(&d->m[i], k, &out[i].known) : 0;
        if (k == 1) out[i].known = 0;
    }
    qsort(out, d->n, sizeof *out, cmp_ranked);
}

static int cmp_desc(const void *pa, const void *pb)
{
    int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
    return a > b ? -1 : a < b;
}

/* The exact scores at depth @k, and the K-th best of them in *t: 1 when there are K. */
static int threshold(const ply__deepen_t *d, uint32_t k, int32_t *scratch, int32_t *t)
{
    size_t e = 0;
    for (size_t i = 0; i < d->n; i++)
        if (d->m[i].f[k].exact) scratch[e++] = d->m[i].f[k].lo;
    if (e < d->k) return 0;
    qsort(scratch, e, sizeof *scratch, cmp_desc);
    *t = scratch[d->k - 1];
    return 1;
}

/* ------------------------------------------------------------- picking */

/* Whether the worker named @w computes one of the analysis's jobs now. */
static int worker_busy(const ply__deepen_t *d, const char *w)
{
    for (size_t i = 0; i < d->nslots; i++)
        if (d->slots[i].used && d->slots[i].worker && strcmp(d->slots[i].worker, w) == 0)
            return 1;
    return 0;
}

int ply__deepen_computing(const ply__deepen_t *d, const char *worker)
{
    return worker && worker_busy(d, worker);
}

size_t ply__deepen_in_flight(const ply__deepen_t *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->nslots; i++) n += d->slots[i].used != 0;
    return n;
}

enum { NEED_EXACT = 0, NEED_NULL = 1 };

/* Whether @j is a subset job, and whether move @i is one of its moves. */
static int is_subset(const ply__deepen_job_t *j)
{
    for (size_t w = 0; w < sizeof j->set / sizeof j->set[0]; w++)
        if (j->set[w]) return 1;
    return 0;
}

static int in_set(const ply__deepen_job_t *j, size_t i)
{
    return (j->set[i / 64] >> (i % 64)) & 1;
}

/* Whether job @j searches move @i (a whole job: every move). */
static int searches(const ply__deepen_job_t *j, size_t i)
{
    return j->whole || (is_subset(j) ? in_set(j, i) : j->move == i);
}

/* Where to put a null window at @t: a valid [alpha, alpha + 1]. */
static int32_t null_alpha(int32_t t)
{
    return t < -SCORE_INF + 1 ? -SCORE_INF + 1 : t > SCORE_INF - 2 ? SCORE_INF - 2 : t;
}

/*
 * The best jobs at depth @k for @worker: best[0] among the moves it searched last or nobody
 * did (its table holds them, or no table does), best[1] among another worker's (cold here);
 * each by need (exact first), then its own before nobody's, then rank. found[b] 1 when set.
 */
static void pick_at(const ply__deepen_t *d, uint32_t k, const char *worker, int32_t *scratch,
                    ply__deepen_job_t best[2], int found[2])
{
    rank_cache_t *rc = (rank_cache_t *)&d->rc[k & 1]; /* the cache only */
    if (rc->k != k || rc->facts != d->facts) {
        rank_moves(d, k, rc->order);
        rc->t = 0;
        rc->known = threshold(d, k, scratch, &rc->t);
        /* K exact scores are not the threshold yet while a search of an eldest brother
         * (ranked in the first K), neither exact nor proven below them, is in flight: it will
         * most likely raise it, and null windows at the lower one fail high (exact searches
         * of worse moves follow). Meanwhile they go at the higher of that and the last
         * iteration's threshold. */
        rc->guess = rc->known && rc->t > d->thr_last ? rc->t : d->thr_last;
        for (uint32_t r = 0; rc->known && r < d->k && r < d->n; r++) {
            const fact_t *f = &d->m[rc->order[r].i].f[k];
            if (!f->exact && f->hi > rc->t && f->busy) rc->known = 0;
        }
        rc->exact = 0;
        for (size_t i = 0; i < d->n; i++) rc->exact += d->m[i].f[k].exact;
        rc->k = k, rc->facts = d->facts;
    }
    const ranked_t *order = rc->order;
    const int32_t t = rc->t;
    const int known = rc->known;
    const int32_t guess = rc->guess;
    const size_t exact = rc->exact;
    size_t eldest = known || exact >= d->k ? 0 : d->k - exact; /* eldest brothers to make exact */
    int spec = d->completed > 0;              /* a threshold to guess with */
    int key[2][2] = {{0, 0}, {0, 0}};         /* the found ones' need and ownership */
    /* null windows by bucket, in rank order, with their ownership: a subset job's moves */
    uint32_t cand[2][PLY__DEEPEN_SUBSET * 4];
    uint8_t cown[2][PLY__DEEPEN_SUBSET * 4];
    size_t nc[2] = {0, 0};
    found[0] = found[1] = 0;
    for (size_t r = 0; r < d->n; r++) {
        const dmove_t *m = &d->m[order[r].i];
        const fact_t *f = &m->f[k];
        if (f->exact) continue;
        int need;
        int32_t at = 0;
        if (known) {
            if (f->hi <= t) continue;
            need = f->lo > t ? NEED_EXACT : NEED_NULL, at = t;
        } else if (k == 1 || !spec || eldest > 0) {
            if (eldest) eldest--;
            need = NEED_EXACT;
        } else {
            if (f->hi <= guess) continue; /* proven below the guess: wait for T */
            need = f->lo > guess ? NEED_EXACT : NEED_NULL, at = guess;
        }
        if (f->busy) continue;
        int mine = worker && m->last && strcmp(m->last, worker) == 0;
        int b = m->last && !mine; /* another worker's table holds it */
        /* an exact search (the costly one) of another worker's move waits for that worker
         * while it computes something else: it comes back to it warm */
        if (b && need == NEED_EXACT && worker && worker_busy(d, m->last)) continue;
        int own = mine ? 0 : 1;   /* among bucket 0: its own first */
        if (need == NEED_NULL && nc[b] < sizeof cand[b] / sizeof cand[b][0])
            cand[b][nc[b]] = order[r].i, cown[b][nc[b]++] = (uint8_t)own;
        if (found[b] && (need > key[b][0] || (need == key[b][0] && own >= key[b][1]))) continue;
        found[b] = 1, key[b][0] = need, key[b][1] = own;
        ply__deepen_job_t *job = &best[b];
        *job = (ply__deepen_job_t){0};
        job->move = order[r].i;
        job->depth = k;
        job->window = need == NEED_NULL;
        job->alpha = job->window ? null_alpha(at) : 0;
        job->beta = job->window ? job->alpha + 1 : 0;
        job->cold = !mine;
        job->start = mine && k > 1 ? k : 0;
    }
    /* a null window takes the next ones of its kind with it: one job, one round trip */
    for (int b = 0; b < 2; b++) {
        ply__deepen_job_t *job = &best[b];
        if (!found[b] || !job->window) continue;
        size_t taken = 1;
        for (size_t c = 0; c < nc[b] && taken < PLY__DEEPEN_SUBSET; c++)
            if (cand[b][c] != job->move && cown[b][c] == key[b][1])
                job->set[cand[b][c] / 64] |= 1ull << (cand[b][c] % 64), taken++;
        if (taken > 1) job->set[job->move / 64] |= 1ull << (job->move % 64);
    }
}

/* The root picks of @d for @worker (the header's order) into *job: 1, or 0. */
static int pick_root(const ply__deepen_t *d, const char *worker, ply__deepen_job_t *job)
{
    if (d->whole_depth && !d->whole_done) { /* the opening whole job; the others wait for it */
        if (d->whole_busy) return 0;
        *job = (ply__deepen_job_t){.depth = d->whole_depth, .cold = 1, .whole = 1};
        return 1;
    }
    int32_t *scratch = malloc((d->n ? d->n : 1) * sizeof *scratch);
    if (!scratch) return 0; /* out of memory: try at the next result */
    /* a warm (or free) job of this iteration, then of the next; only then another worker's
     * move, searched cold here */
    ply__deepen_job_t best[2][2];
    int found[2][2] = {{0, 0}, {0, 0}};
    for (uint32_t i = 0; i < 2; i++)
        if (d->completed + 1 + i <= d->max_depth)
            pick_at(d, d->completed + 1 + i, worker, scratch, best[i], found[i]);
    free(scratch);
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 2; i++)
            if (found[i][b]) {
                *job = best[i][b];
                job->split = 0, job->gen = 0;
                return 1;
            }
    return 0;
}

/* The eldest brother of iteration @k: the move ranked first (its last depth's best). */
static uint32_t eldest_of(const ply__deepen_t *d, uint32_t k)
{
    uint32_t e = 0;
    int32_t best = -SCORE_INF - 1;
    int known = 0;
    for (uint32_t i = 0; i < d->n; i++) {
        int kn;
        int32_t v = rank_value(&d->m[i], k, &kn);
        if (kn > known || (kn == known && v > best)) e = i, best = v, known = kn;
    }
    return e;
}

/*
 * The split for iteration @k of @d: the analysis of the position after its eldest brother,
 * at its depth k - 1 (NULL: none, or out of memory). A split of another move is replaced (its
 * jobs' results are then dropped by generation); a split that skipped iterations is told the
 * threshold to guess with: the eldest's last score, as the side to move there sees it.
 */
static ply__deepen_t *split_for(ply__deepen_t *d, uint32_t k)
{
    if (k < PLY__DEEPEN_SPLIT_DEPTH || d->n == 0) return NULL;
    uint32_t e = eldest_of(d, k);
    const fact_t *prev = &d->m[e].f[k - 1];
    if (d->m[e].f[k].exact || !prev->exact) return NULL;
    /* Not while the eldest's own search at k is in flight: the split's first job, its best
     * reply's exact search, is the bulk of that search again, on a table cold for it. On KQK
     * (8/8/8/4k3/8/8/8/KQ6 w) to depth 22, 2 simulated workers, it was three exact searches
     * of mated replies of 15 to 72 M nodes (1 worker's whole analysis: 10 M). */
    if (d->m[e].f[k].busy) return NULL;
    if (d->child && d->child_move != e) ply__deepen_free(&d->child);
    if (!d->child) {
        ply_arb_pos_t pos = d->root;
        ply_arb_move_t mv;
        if (ply_arb_move_from_uci(&pos, d->m[e].uci, &mv) < 0) return NULL;
        ply_arb_make(&pos, mv);
        ply_arb_move_t moves[PLY_ARB_MAX_MOVES];
        int n = ply_arb_legal_moves(&pos, moves);
        if (n <= 1) return NULL; /* nothing to split */
        char uci[PLY_ARB_MAX_MOVES][8], *ptr[PLY_ARB_MAX_MOVES];
        for (int i = 0; i < n; i++) ply_arb_move_to_uci(&pos, moves[i], uci[i]), ptr[i] = uci[i];
        ply__deepen_t *c = ply__deepen_new(&pos, ptr, (size_t)n, 1, k - 1);
        if (!c) return NULL;
        c->whole_depth = 0; /* it starts deep (below) */
        free(c->slots); /* its jobs are in the parent's slots */
        c->slots = d->slots, c->nslots = d->nslots, c->own_slots = 0;
        d->child = c, d->child_move = e, d->gen++;
        /* the eldest's reply ranks first: the line of its last depth says which */
        const Ply__SearchLine *l = prev->line ? prev->line->res->lines[0] : NULL;
        for (int i = 0; l && l->n_pv >= 2 && i < n && k >= 3; i++)
            if (strcmp(uci[i], l->pv[1]) == 0) {
                fact_t *f = &c->m[i].f[k - 2];
                f->lo = f->hi = -prev->lo, f->exact = 1, c->facts++;
            }
    }
    ply__deepen_t *c = d->child;
    if (c->completed >= k - 1) return NULL; /* done: the eldest's fact is in */
    c->max_depth = k - 1;
    if (c->completed < k - 2) c->completed = k - 2, c->thr_last = -prev->lo;
    return c;
}

int ply__deepen_pick(const ply__deepen_t *d, const char *worker, ply__deepen_job_t *job)
{
    ply__deepen_t *w = (ply__deepen_t *)d; /* the cache and the split only */
    if (d->pick_version == d->version && d->pick_worker == worker) {
        if (d->pick_ok) *job = d->pick;
        return d->pick_ok;
    }
    int ok = pick_root(d, worker, job);
    /* a worker with nothing to do at the root helps the eldest a ply deeper */
    ply__deepen_t *c = ok || !worker ? NULL : split_for(w, d->completed + 1);
    if (c && pick_root(c, worker, job)) {
        job->split = 1, job->gen = d->gen;
        ok = 1;
    }
    w->pick_version = d->version, w->pick_worker = worker, w->pick_ok = ok;
    if (ok) w->pick = *job;
    return ok;
}

/* The analysis @job belongs to: @d, its split, or NULL (a split since replaced). */
static ply__deepen_t *owner_of(ply__deepen_t *d, const ply__deepen_job_t *job)
{
    if (!job->split) return d;
    return d->child && job->gen == d->gen ? d->child : NULL;
}

void ply__deepen_started(ply__deepen_t *d, size_t slot, const ply__deepen_job_t *job,
                         const char *worker)
{
    d->slots[slot].used = 1;
    d->slots[slot].job = *job;
    free(d->slots[slot].worker);
    d->slots[slot].worker = worker ? strdup(worker) : NULL;
    d->version++;
    ply__deepen_t *a = owner_of(d, job);
    if (!a) return;
    if (job->whole) a->whole_busy = 1;
    a->facts++;
    /* the worker's table holds the move from here (a whole job's: every move) */
    for (size_t i = 0; i < a->n; i++) {
        if (!searches(job, i)) continue;
        dmove_t *m = &a->m[i];
        if (!job->whole) m->f[job->depth].busy = 1;
        char *copy = worker ? strdup(worker) : NULL;
        if (copy || !worker) free(m->last), m->last = copy;
    }
}

const ply__deepen_job_t *ply__deepen_job_of(const ply__deepen_t *d, size_t slot)
{
    return slot < d->nslots && d->slots[slot].used ? &d->slots[slot].job : NULL;
}

int ply__deepen_job_where(const ply__deepen_t *d, const ply__deepen_job_t *job,
                          ply_arb_pos_t *pos, const char **prefix, const char **uci)
{
    const ply__deepen_t *a = owner_of((ply__deepen_t *)d, job);
    if (!a || job->move >= a->n) return 0;
    *pos = a->root;
    *prefix = job->split ? d->m[d->child_move].uci : NULL;
    *uci = job->whole ? NULL : a->m[job->move].uci;
    return 1;
}

size_t ply__deepen_job_moves(const ply__deepen_t *d, const ply__deepen_job_t *job,
                             const char **uci)
{
    const ply__deepen_t *a = owner_of((ply__deepen_t *)d, job);
    if (!a || job->move >= a->n) return 0;
    if (job->whole) { /* the analysis's root moves, not the position's: --searchmoves */
        for (size_t i = 0; i < a->n; i++) uci[i] = a->m[i].uci;
        return a->n;
    }
    if (!is_subset(job)) {
        uci[0] = a->m[job->move].uci;
        return 1;
    }
    size_t n = 0;
    uci[n++] = a->m[job->move].uci; /* the best ranked first */
    for (size_t i = 0; i < a->n; i++)
        if (i != job->move && in_set(job, i)) uci[n++] = a->m[i].uci;
    return n;
}

void ply__deepen_dropped(ply__deepen_t *d, size_t slot)
{
    if (slot >= d->nslots || !d->slots[slot].used) return;
    const ply__deepen_job_t *j = &d->slots[slot].job;
    ply__deepen_t *a = owner_of(d, j);
    if (a && j->whole) a->whole_busy = 0;
    if (a) a->facts++;
    for (size_t i = 0; a && !j->whole && i < a->n; i++)
        if (searches(j, i)) a->m[i].f[j->depth].busy = 0;
    d->slots[slot].used = 0;
    free(d->slots[slot].worker);
    d->slots[slot].worker = NULL;
    d->version++;
}

/* ------------------------------------------------------------- results */

static int same_move(ply_arb_move_t a, ply_arb_move_t b)
{
    return a.from == b.from && a.to == b.to && a.promo == b.promo &&
           !((a.flags ^ b.flags) & PLY_ARB_MOVE_CASTLE);
}

/* The index of root move @uci of @a (read by the rule engine: either castling form), or -1. */
static long move_index(const ply__deepen_t *a, const char *uci)
{
    ply_arb_move_t got;
    if (ply_arb_move_from_uci(&a->root, uci, &got) < 0) return -1;
    for (size_t i = 0; i < a->n; i++)
        if (same_move(a->m[i].mv, got)) return (long)i;
    return -1;
}

int ply__deepen_check(const ply__deepen_t *d, const ply__deepen_job_t *job,
                      const Ply__SearchResult *r, char *why, size_t why_len)
{
    ply_arb_pos_t pos;
    const char *prefix, *uci;
    if (!ply__deepen_job_where(d, job, &pos, &prefix, &uci))
        return ply_why(why, why_len, PLY_EMISMATCH, "a line for a split since replaced");
    size_t want = job->whole ? d->k : 1;
    if (r->n_lines < 1 || r->n_lines > want)
        return ply_why(why, why_len, PLY_EMISMATCH, "%zu lines, the job asks for %s%zu",
                       r->n_lines, want > 1 ? "1 to " : "", want);
    uint8_t seen[PLY_ARB_MAX_MOVES] = {0};
    for (size_t i = 0; i < r->n_lines; i++) {
        const Ply__SearchLine *l = r->lines[i];
        char label[16];
        snprintf(label, sizeof label, "%s", uci ? uci : "line");
        if (l->n_pv == 0) return ply_why(why, why_len, PLY_EMISMATCH, "%s: the line is empty", label);
        if (job->whole) {
            long m = move_index(d, l->pv[0]);
            if (m < 0)
                return ply_why(why, why_len, PLY_EMISMATCH, "line %zu starts with %s, no root move",
                               i + 1, l->pv[0]);
            if (seen[m]++)
                return ply_why(why, why_len, PLY_EMISMATCH, "line %zu: %s has two lines", i + 1,
                               l->pv[0]);
            if (l->has_bound && l->bound != 0)
                return ply_why(why, why_len, PLY_EMISMATCH,
                               "line %zu (%s): a bound, where the job has no window", i + 1, l->pv[0]);
            snprintf(label, sizeof label, "%s", l->pv[0]);
        } else if (is_subset(job)) {
            const ply__deepen_t *a = owner_of((ply__deepen_t *)d, job);
            long m = move_index(a, l->pv[0]);
            if (m < 0 || !in_set(job, (size_t)m))
                return ply_why(why, why_len, PLY_EMISMATCH,
                               "the line starts with %s, not one of the job's moves", l->pv[0]);
            snprintf(label, sizeof label, "%s", l->pv[0]);
        } else {
            ply_arb_move_t w, got;
            if (ply_arb_move_from_uci(&pos, uci, &w) < 0 ||
                ply_arb_move_from_uci(&pos, l->pv[0], &got) < 0 || !same_move(w, got))
                return ply_why(why, why_len, PLY_EMISMATCH,
                               "%s: the line starts with %s, not the job's move", uci, l->pv[0]);
        }
        Ply__SearchLine claim = *l;
        if (claim.has_bound && claim.bound != 0) claim.has_mate = 0, claim.has_score_cp = 1;
        int rc = ply__search_replay_line(&pos, &claim, job->depth, label, why, why_len);
        if (rc < 0) return rc;
    }
    return 0;
}

static int cmp_answer(const void *pa, const void *pb)
{
    const Ply__AnalysedMove *a = *(Ply__AnalysedMove *const *)pa;
    const Ply__AnalysedMove *b = *(Ply__AnalysedMove *const *)pb;
    int ea = !a->line->has_bound || a->line->bound == 0, eb = !b->line->has_bound ||
                                                              b->line->bound == 0;
    if (ea != eb) return eb - ea; /* exact lines first */
    int32_t sa = ply__deepen_score(a->line), sb = ply__deepen_score(b->line);
    if (sa != sb) return sa > sb ? -1 : 1;
    return strcmp(a->move, b->move);
}

/* Iteration @k is complete: its answer and its record. 0 or PLY_ENOMEM. */
static int complete(ply__deepen_t *d, uint32_t k, int32_t t, uint64_t elapsed_ms)
{
    free_answer(d);
    for (size_t i = 0; i < d->n; i++) {
        dline_t *l = d->m[i].f[k].line; /* every move has one: its exact score or its bound */
        if (!l) continue;
        const Ply__SearchLine *sl = l->res->lines[0];
        Ply__AnalysedMove *a = &d->am[d->nam];
        if (ply__search_pv_san(&d->root, sl, &d->pv_san[d->nam]) < 0) return PLY_ENOMEM;
        *a = (Ply__AnalysedMove)PLY__ANALYSED_MOVE__INIT;
        snprintf(d->san[d->nam], sizeof d->san[d->nam], "%s", d->pv_san[d->nam][0]);
        a->move = d->m[i].uci;
        a->san = d->san[d->nam];
        a->line = l->res->lines[0];
        a->n_pv_san = sl->n_pv, a->pv_san = d->pv_san[d->nam];
        a->has_nodes = 1, a->nodes = l->res->nodes;
        a->has_time_us = 1, a->time_us = l->res->time_us;
        a->engine = l->res->engine;
        a->worker_id = l->worker;
        a->identity = l->identity;
        d->amp[d->nam] = a;
        d->nam++;
    }
    qsort(d->amp, d->nam, sizeof *d->amp, cmp_answer);
    iter_t *it = &d->it[d->nit];
    if (d->nam) {
        const Ply__AnalysedMove *best = d->amp[0];
        Ply__SearchResult one = PLY__SEARCH_RESULT__INIT;
        Ply__SearchLine *lines[1] = {best->line};
        one.n_lines = 1, one.lines = lines;
        if (!(it->best = ply__search_result_dup(&one))) return PLY_ENOMEM;
        snprintf(it->san, sizeof it->san, "%s", best->san);
        it->msg = (Ply__SearchIteration)PLY__SEARCH_ITERATION__INIT;
        it->msg.has_depth = 1, it->msg.depth = k;
        it->msg.move = (char *)best->move;
        it->msg.san = it->san;
        it->msg.line = it->best->lines[0];
        it->msg.has_time_ms = 1, it->msg.time_ms = elapsed_ms;
        it->msg.has_nodes = 1, it->msg.nodes = d->nodes;
        d->itp[d->nit] = &it->msg;
        d->nit++;
    }
    d->completed = k;
    d->thr_last = t;
    /* what no ranking or answer reads any more */
    for (size_t i = 0; i < d->n; i++)
        for (uint32_t j = 1; j < k; j++) dline_free(&d->m[i].f[j].line);
    return 0;
}

/* Whether iteration @k is complete: K exact, every other move proven no better (T in *t). */
static int is_complete(const ply__deepen_t *d, uint32_t k, int32_t *scratch, int32_t *t)
{
    if (!threshold(d, k, scratch, t)) return 0;
    for (size_t i = 0; i < d->n; i++)
        if (!d->m[i].f[k].exact && d->m[i].f[k].hi > *t) return 0;
    return 1;
}

/* Line @l's score made @s (ply's engine units: the inverse of ply__deepen_score). */
static void set_score(Ply__SearchLine *l, int32_t s)
{
    int mate = s >= SCORE_MATE - PLY_SEARCH_LINE_MAX_DEPTH || s <= -SCORE_MATE + PLY_SEARCH_LINE_MAX_DEPTH;
    l->has_mate = mate, l->has_score_cp = !mate;
    l->mate = s > 0 ? (SCORE_MATE - s + 1) / 2 : -((SCORE_MATE + s) / 2);
    l->score_cp = s;
}

/* Line @l (owned from here) as a fact about move @job.move of @a at @job.depth. */
static void take_fact(ply__deepen_t *a, const ply__deepen_job_t *job, dline_t *l)
{
    fact_t *f = &a->m[job->move].f[job->depth];
    const Ply__SearchLine *sl = l->res->lines[0];
    int32_t s = ply__deepen_score(sl);
    uint32_t bound = sl->has_bound ? sl->bound : 0;
    /* a null window's bound says at least what failing it means (>= beta, <= alpha): a mate
     * score's plies come back in moves (SearchLine.mate) and may fall a ply inside the window,
     * and a fact that did not move would pick the same job for ever */
    if ((job->window && bound == 1 && s < job->beta) || (job->window && bound == 2 && s > job->alpha))
        set_score(l->res->lines[0], s = bound == 1 ? job->beta : job->alpha);
    a->facts++;
    int keep = 0; /* the line the answer shows: the exact one, else the lowest upper bound's */
    if (bound == 0) {
        f->lo = f->hi = s, f->exact = 1, keep = 1;
    } else if (!f->exact && bound == 1) {
        if (s > f->hi) f->hi = SCORE_INF, dline_free(&f->line); /* two searches disagree: the
                                                                    newer counts */
        if (s > f->lo) f->lo = s;
    } else if (!f->exact) {
        if (s < f->lo) f->lo = -SCORE_INF;
        if (s <= f->hi) f->hi = s, keep = 1;
    }
    if (keep) {
        dline_free(&f->line);
        f->line = l;
    } else {
        dline_free(&l); /* a lower bound proves nothing the answer shows; a looser upper one, or
                           a bound after the exact line, nothing new */
    }
    a->version++;
}

/* Completes every iteration of @a its facts complete; the number, or PLY_ENOMEM. */
static int complete_all(ply__deepen_t *a, uint64_t elapsed_ms)
{
    int done = 0;
    int32_t *scratch = malloc((a->n ? a->n : 1) * sizeof *scratch);
    if (!scratch) return PLY_ENOMEM;
    int32_t t;
    while (a->completed < a->max_depth && is_complete(a, a->completed + 1, scratch, &t)) {
        if (complete(a, a->completed + 1, t, elapsed_ms) < 0) {
            free(scratch);
            return PLY_ENOMEM;
        }
        done++;
    }
    free(scratch);
    return done;
}

/*
 * The split of @d completed its iteration: the eldest's exact line at that depth + 1, its
 * move then the split's best line, the score as the side to move at the root sees it (a mate
 * a ply further: mated in N replies is mate in N + 1). A dline, or NULL (out of memory).
 */
static dline_t *line_of_split(const ply__deepen_t *d)
{
    const ply__deepen_t *c = d->child;
    if (!c->nam) return NULL;
    const Ply__AnalysedMove *best = c->amp[0];
    const Ply__SearchLine *cl = best->line;
    Ply__SearchLine l = PLY__SEARCH_LINE__INIT;
    char *pv[PLY_SEARCH_LINE_MAX_DEPTH + 1];
    size_t n = 0;
    pv[n++] = (char *)d->m[d->child_move].uci;
    for (size_t i = 0; i < cl->n_pv && n < sizeof pv / sizeof pv[0]; i++) pv[n++] = cl->pv[i];
    l.n_pv = n, l.pv = pv;
    l.has_multipv = 1, l.multipv = 1;
    if (cl->has_mate)
        l.has_mate = 1, l.mate = cl->mate > 0 ? -cl->mate : -cl->mate + 1;
    else
        l.has_score_cp = 1, l.score_cp = -cl->score_cp;
    l.has_bound = 1, l.bound = 0;
    l.has_depth = 1, l.depth = c->completed + 1;
    l.has_seldepth = 1, l.seldepth = (cl->has_seldepth ? cl->seldepth : 0) + 1;
    Ply__SearchLine *lines[1] = {&l};
    Ply__SearchResult r = PLY__SEARCH_RESULT__INIT;
    r.n_lines = 1, r.lines = lines;
    r.has_nodes = 1, r.nodes = c->nodes;
    r.has_time_us = 1, r.time_us = best->time_us;
    r.engine = best->engine;
    dline_t *dl = calloc(1, sizeof *dl);
    if (!dl) return NULL;
    dl->res = ply__search_result_dup(&r);
    dl->worker = strdup(best->worker_id ? best->worker_id : "");
    dl->identity = strdup(best->identity ? best->identity : "");
    if (!dl->res || !dl->worker || !dl->identity) dline_free(&dl);
    return dl;
}

/* Move @i of @a is no better than @s at @job's depth, as @from (a line of the same job) says:
 * that upper bound as its line, the move alone. 0 or PLY_ENOMEM. */
static int take_bound(ply__deepen_t *a, const ply__deepen_job_t *job, size_t i, int32_t s,
                      const dline_t *from)
{
    Ply__SearchLine bl = PLY__SEARCH_LINE__INIT, *blp = &bl;
    char *pv = a->m[i].uci;
    bl.has_multipv = 1, bl.multipv = 1;
    bl.n_pv = 1, bl.pv = &pv;
    bl.has_bound = 1, bl.bound = 2;
    bl.has_depth = 1, bl.depth = job->depth;
    set_score(&bl, s);
    Ply__SearchResult one = PLY__SEARCH_RESULT__INIT;
    one.n_lines = 1, one.lines = &blp;
    one.has_nodes = 1, one.nodes = 0; /* counted with the job's own line */
    one.engine = from->res->engine;
    dline_t *li = calloc(1, sizeof *li);
    if (li) li->res = ply__search_result_dup(&one), li->worker = strdup(from->worker),
            li->identity = strdup(from->identity);
    if (!li || !li->res || !li->worker || !li->identity) {
        dline_free(&li);
        return PLY_ENOMEM;
    }
    ply__deepen_job_t mj = *job;
    mj.whole = 0, mj.move = (uint32_t)i, mj.window = 0;
    memset(mj.set, 0, sizeof mj.set);
    take_fact(a, &mj, li);
    return 0;
}

/* A subset job's line @l (checked, owned): a fact of the move it names, the best of the job's
 * moves; a fail low (an upper bound, at most alpha) or an exact score (an engine that takes no
 * window) is an upper bound of every other move of the job. 0, or PLY_ENOMEM. */
static int take_subset(ply__deepen_t *a, const ply__deepen_job_t *job, dline_t *l)
{
    const Ply__SearchLine *sl = l->res->lines[0];
    long m = sl->n_pv ? move_index(a, sl->pv[0]) : -1;
    if (m < 0) { /* not one of its moves: ply__deepen_check refuses it */
        dline_free(&l);
        return 0;
    }
    int rc = 0;
    uint32_t bound = sl->has_bound ? sl->bound : 0;
    if (bound != 1) { /* the best of the job's moves, no better than s: nor are the others */
        int32_t s = ply__deepen_score(sl);
        if (bound == 2 && s > job->alpha) s = job->alpha; /* at most alpha (take_fact) */
        for (size_t i = 0; rc == 0 && i < a->n; i++)
            if (i != (size_t)m && in_set(job, i)) rc = take_bound(a, job, i, s, l);
    }
    ply__deepen_job_t mj = *job;
    mj.move = (uint32_t)m;
    memset(mj.set, 0, sizeof mj.set);
    take_fact(a, &mj, l);
    return rc;
}

/* A whole job's result @l (checked, owned): each line a fact of its own at the job's depth,
 * every other move no better than the K-th line when all K came; the iterations below it are
 * never reported. 0, or PLY_ENOMEM. */
static int take_whole(ply__deepen_t *a, const ply__deepen_job_t *job, dline_t *l)
{
    Ply__SearchResult *res = l->res;
    a->whole_done = 1;
    int32_t t = SCORE_INF;
    int rc = 0;
    for (size_t i = 0; i < res->n_lines && rc == 0; i++) {
        long m = res->lines[i]->n_pv ? move_index(a, res->lines[i]->pv[0]) : -1;
        if (m < 0) continue; /* not a root move: ply__deepen_check refuses it */
        Ply__SearchResult one = *res;
        one.n_lines = 1, one.lines = &res->lines[i];
        dline_t *li = calloc(1, sizeof *li);
        if (li) li->res = ply__search_result_dup(&one), li->worker = strdup(l->worker),
                li->identity = strdup(l->identity);
        if (!li || !li->res || !li->worker || !li->identity) {
            dline_free(&li);
            rc = PLY_ENOMEM;
            break;
        }
        int32_t s = ply__deepen_score(res->lines[i]);
        if (s < t) t = s;
        ply__deepen_job_t mj = *job;
        mj.whole = 0, mj.move = (uint32_t)m;
        take_fact(a, &mj, li);
    }
    /* the multipv claim (the K best moves): the rest are no better than the K-th; each gets
     * that upper bound as its line, the move alone (the answer lists every move) */
    for (size_t i = 0; rc == 0 && res->n_lines == a->k && i < a->n; i++)
        if (!a->m[i].f[job->depth].exact) rc = take_bound(a, job, i, t, l);
    dline_free(&l);
    if (a->completed + 1 < job->depth) a->completed = job->depth - 1, a->thr_last = t;
    return rc;
}

int ply__deepen_take(ply__deepen_t *d, size_t slot, Ply__SearchResult *res, const char *worker,
                     const char *identity, uint64_t nodes, uint64_t elapsed_ms)
{
    dline_t *l = calloc(1, sizeof *l);
    if (l) l->res = res, l->worker = strdup(worker), l->identity = strdup(identity);
    if (!l || !l->worker || !l->identity) {
        if (l) l->res = NULL, dline_free(&l);
        ply__search_result__free_unpacked(res, NULL);
        ply__deepen_dropped(d, slot);
        return PLY_ENOMEM;
    }
    const ply__deepen_job_t job = d->slots[slot].job;
    ply__deepen_t *a = owner_of(d, &job);
    ply__deepen_dropped(d, slot);
    d->nodes = nodes > UINT64_MAX - d->nodes ? UINT64_MAX : d->nodes + nodes;
    if (!a || job.depth <= a->completed) { /* a replaced split's, or an answered iteration's */
        dline_free(&l);
        return 0;
    }
    if (a != d) a->nodes = nodes > UINT64_MAX - a->nodes ? UINT64_MAX : a->nodes + nodes;
    if (job.whole) {
        int rc = take_whole(a, &job, l);
        if (rc < 0) return rc;
    } else if (is_subset(&job)) {
        int rc = take_subset(a, &job, l);
        if (rc < 0) return rc;
    } else {
        take_fact(a, &job, l);
    }
    if (a != d) { /* a split's line: its iteration done is the eldest's exact line */
        int done = complete_all(a, elapsed_ms);
        if (done < 0) return done;
        ply__deepen_job_t eldest = {.move = d->child_move, .depth = a->completed + 1};
        if (!done || eldest.depth <= d->completed) return 0;
        dline_t *el = line_of_split(d);
        if (!el) return PLY_ENOMEM;
        take_fact(d, &eldest, el);
    }
    d->version++;
    return complete_all(d, elapsed_ms);
}

uint32_t ply__deepen_depth(const ply__deepen_t *d)
{
    return d->completed;
}

uint32_t ply__deepen_settled(const ply__deepen_t *d)
{
    if (d->completed >= d->max_depth) return (uint32_t)d->n;
    uint32_t k = d->completed + 1, n = 0;
    int32_t *scratch = malloc((d->n ? d->n : 1) * sizeof *scratch);
    int32_t t = 0;
    int known = scratch && threshold(d, k, scratch, &t);
    free(scratch);
    for (size_t i = 0; i < d->n; i++)
        n += d->m[i].f[k].exact || (known && d->m[i].f[k].hi <= t);
    return n;
}

uint64_t ply__deepen_nodes(const ply__deepen_t *d)
{
    return d->nodes;
}

void ply__deepen_answer(const ply__deepen_t *d, Ply__SearchAnswer *a)
{
    a->n_moves = d->nam;
    a->moves = d->nam ? d->amp : NULL;
    a->has_depth = d->completed > 0, a->depth = d->completed;
    a->n_iterations = d->nit;
    a->iterations = d->nit ? (Ply__SearchIteration **)d->itp : NULL;
}
