/*
 * Kind 1 (perft)'s module (perft/kind.c plans with it).
 *
 * The split planner (split.h): level-by-level expansion of the first plies
 * with the arbiter, transposition merging by identity string in an
 * open-addressing hash table, per-root-move multiplicities, the automatic
 * split rule (fitted to the cluster's threads) and the biggest-first job order.
 *
 * Invariant of a level: every node is one unique identity; node.mult is
 * sorted by root index with non-zero counts, and the counts of all nodes sum
 * to the level's paths (= perft of that ply).
 */
#include "perft/split.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#define ID_MAX 128

typedef struct node {
    char *id;
    uint64_t hash;
    uint32_t nmult, cap;
    ply_split_mult_t *mult;
} node_t;

typedef struct level {
    node_t *nodes;
    size_t n, cap;
    uint32_t *slots; /* node index + 1, 0 = empty; power-of-two size */
    size_t nslots;
    uint64_t paths;
} level_t;

/* The growth model of rule 2: exact counts up to ply 3, then alternating ratios. */
typedef struct growth {
    uint64_t p[4]; /* p[k] = perft(k), p[0] = 1; 0 beyond known */
    unsigned known;
    double r_odd, r_even; /* ratios for plies of the side to move / the other side */
} growth_t;

static uint64_t fnv1a(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static int cancelled(const atomic_int *cancel)
{
    return cancel && atomic_load_explicit(cancel, memory_order_relaxed) != 0;
}

/* ---- growth estimate ---------------------------------------------------- */

/* Exact counts up to min(3, @upto); @upto = depth for ply_split_estimate. */
static void growth_init(growth_t *g, const ply_arb_pos_t *pos, unsigned upto)
{
    memset(g, 0, sizeof *g);
    g->p[0] = 1;
    g->known = 0;
    for (unsigned k = 1; k <= 3 && k <= upto; k++) {
        /* perft(3) only when it stays around a million arbiter nodes */
        if (k == 3 && g->p[2] > 20000) break;
        g->p[k] = ply_arb_perft(pos, (int)k);
        g->known = k;
        if (g->p[k] == 0) break;
    }
    g->r_even = g->known >= 2 && g->p[1] ? (double)g->p[2] / (double)g->p[1] : (double)g->p[1];
    g->r_odd = g->known >= 3 && g->p[2] ? (double)g->p[3] / (double)g->p[2] : g->r_even;
}

/* Estimated perft(k) as a double (may exceed 2^64). */
static double growth_nodes(const growth_t *g, unsigned k)
{
    if (k <= g->known) return (double)g->p[k];
    if (g->p[g->known] == 0) return 0.0;
    double n = (double)g->p[g->known];
    for (unsigned i = g->known + 1; i <= k; i++) n *= (i % 2) ? g->r_odd : g->r_even;
    return n;
}

uint64_t ply_split_estimate(const ply_arb_pos_t *pos, unsigned depth)
{
    if (!pos) return 0;
    growth_t g;
    growth_init(&g, pos, depth);
    double n = growth_nodes(&g, depth);
    return n >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)n;
}

/* ---- levels --------------------------------------------------------------- */

static void level_free(level_t *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->nodes[i].id);
        free(l->nodes[i].mult);
    }
    free(l->nodes);
    free(l->slots);
    memset(l, 0, sizeof *l);
}

static int level_rehash(level_t *l, size_t nslots)
{
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots) return PLY_ENOMEM;
    for (size_t i = 0; i < l->n; i++) {
        size_t s = l->nodes[i].hash & (nslots - 1);
        while (slots[s]) s = (s + 1) & (nslots - 1);
        slots[s] = (uint32_t)(i + 1);
    }
    free(l->slots);
    l->slots = slots;
    l->nslots = nslots;
    return 0;
}

/* The node of identity @id (length @len), added when new. Returns it or NULL (ENOMEM). */
static node_t *level_get(level_t *l, const char *id, size_t len)
{
    if ((l->n + 1) * 2 > l->nslots && level_rehash(l, l->nslots ? l->nslots * 2 : 1024) != 0)
        return NULL;
    uint64_t h = fnv1a(id, len);
    size_t s = h & (l->nslots - 1);
    while (l->slots[s]) {
        node_t *n = &l->nodes[l->slots[s] - 1];
        if (n->hash == h && strcmp(n->id, id) == 0) return n;
        s = (s + 1) & (l->nslots - 1);
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 1024;
        node_t *nodes = realloc(l->nodes, cap * sizeof *nodes);
        if (!nodes) return NULL;
        l->nodes = nodes;
        l->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy) return NULL;
    memcpy(copy, id, len + 1);
    node_t *n = &l->nodes[l->n];
    *n = (node_t){.id = copy, .hash = h};
    l->slots[s] = (uint32_t)(++l->n);
    return n;
}

/* node.mult += src (both sorted by root). */
static int node_add(node_t *n, const ply_split_mult_t *src, uint32_t nsrc)
{
    uint32_t need = n->nmult + nsrc;
    ply_split_mult_t *out = malloc(need * sizeof *out);
    if (!out) return PLY_ENOMEM;
    uint32_t i = 0, j = 0, k = 0;
    while (i < n->nmult || j < nsrc) {
        if (j == nsrc || (i < n->nmult && n->mult[i].root < src[j].root))
            out[k++] = n->mult[i++];
        else if (i == n->nmult || src[j].root < n->mult[i].root)
            out[k++] = src[j++];
        else {
            out[k] = n->mult[i++];
            out[k++].count += src[j++].count;
        }
    }
    free(n->mult);
    n->mult = out;
    n->nmult = k;
    n->cap = need;
    return 0;
}

static int identity_of(const ply_arb_pos_t *pos, char *buf, size_t *len)
{
    int r = ply_arb_identity(pos, buf, ID_MAX);
    if (r < 0) return r;
    *len = (size_t)r;
    return 0;
}

/* Level 1: each root move is its own path. */
static int expand_root(const ply_split_t *plan, level_t *to)
{
    char id[ID_MAX];
    for (int i = 0; i < plan->nroot; i++) {
        ply_arb_pos_t child = plan->root;
        ply_arb_make(&child, plan->root_moves[i]);
        size_t len;
        int r = identity_of(&child, id, &len);
        if (r < 0) return r;
        node_t *n = level_get(to, id, len);
        if (!n) return PLY_ENOMEM;
        ply_split_mult_t m = {.root = (uint32_t)i, .count = 1};
        if (node_add(n, &m, 1) != 0) return PLY_ENOMEM;
        to->paths++;
    }
    return 0;
}

static int parse_id(const char *id, unsigned flags, ply_arb_pos_t *pos, char *why, size_t why_len)
{
    char reason[160];
    int r = ply_arb_from_fen(pos, id, flags, reason, sizeof reason);
    if (r < 0) {
        ply_why(why, why_len, 0, "arbiter rejects its own identity \"%s\": %s", id, reason);
        return PLY_EILLEGAL;
    }
    return 0;
}

static int expand_level(const ply_split_t *plan, level_t *from, level_t *to,
                        const atomic_int *cancel, char *why, size_t why_len)
{
    unsigned flags = plan->root.chess960 ? PLY_ARB_CHESS960 : 0;
    ply_arb_move_t moves[PLY_ARB_MAX_MOVES];
    char id[ID_MAX];
    for (size_t i = 0; i < from->n; i++) {
        if (cancelled(cancel)) return PLY_ECANCELED;
        node_t *parent = &from->nodes[i];
        ply_arb_pos_t pos;
        int r = parse_id(parent->id, flags, &pos, why, why_len);
        if (r < 0) return r;
        uint64_t paths = 0;
        for (uint32_t k = 0; k < parent->nmult; k++) paths += parent->mult[k].count;
        int nm = ply_arb_legal_moves(&pos, moves);
        for (int m = 0; m < nm; m++) {
            ply_arb_pos_t child = pos;
            ply_arb_make(&child, moves[m]);
            size_t len;
            if ((r = identity_of(&child, id, &len)) < 0) return r;
            node_t *n = level_get(to, id, len);
            if (!n || node_add(n, parent->mult, parent->nmult) != 0) return PLY_ENOMEM;
            to->paths += paths;
        }
        if (to->n > PLY_SPLIT_MAX_JOBS) return PLY_ERANGE;
    }
    return 0;
}

/* ---- jobs ----------------------------------------------------------------- */

static int job_cmp(const void *a, const void *b)
{
    const ply_split_job_t *x = a, *y = b;
    if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
    return strcmp(x->fen, y->fen);
}

static int make_job(ply_split_job_t *job, const ply_arb_pos_t *pos, unsigned job_depth, int use_p2)
{
    char fen[PLY_ARB_FEN_MAX];
    ply_arb_move_t moves[PLY_ARB_MAX_MOVES];
    if (ply_arb_to_fen(pos, fen, sizeof fen) < 0) return PLY_ERANGE;
    job->fen = strdup(fen);
    if (!job->fen) return PLY_ENOMEM;
    job->perft1 = (uint32_t)ply_arb_legal_moves(pos, moves);
    if (job_depth <= 1)
        job->cost = job->perft1;
    else if (use_p2)
        job->cost = ply_arb_perft(pos, 2);
    else
        job->cost = (uint64_t)job->perft1 * job->perft1;
    return 0;
}

/* Turn the nodes of @l into the plan's jobs; the mult lists move over. */
static int level_to_jobs(ply_split_t *plan, level_t *l, const atomic_int *cancel, char *why,
                         size_t why_len)
{
    unsigned flags = plan->root.chess960 ? PLY_ARB_CHESS960 : 0;
    plan->paths = l->paths;
    if (l->n == 0) return 0;
    plan->jobs = calloc(l->n, sizeof *plan->jobs);
    if (!plan->jobs) return PLY_ENOMEM;
    int use_p2 = l->n <= PLY_SPLIT_P2_MAX_JOBS;
    for (size_t i = 0; i < l->n; i++) {
        if (cancelled(cancel)) return PLY_ECANCELED;
        node_t *n = &l->nodes[i];
        ply_arb_pos_t pos;
        int r = parse_id(n->id, flags, &pos, why, why_len);
        if (r < 0) return r;
        ply_split_job_t *job = &plan->jobs[plan->njobs++];
        if ((r = make_job(job, &pos, plan->job_depth, use_p2)) < 0) return r;
        job->mult = n->mult;
        job->nmult = n->nmult;
        n->mult = NULL;
        n->nmult = 0;
        for (uint32_t k = 0; k < job->nmult; k++) job->multiplicity += job->mult[k].count;
    }
    qsort(plan->jobs, plan->njobs, sizeof *plan->jobs, job_cmp);
    return 0;
}

static int root_job(ply_split_t *plan)
{
    plan->jobs = calloc(1, sizeof *plan->jobs);
    if (!plan->jobs) return PLY_ENOMEM;
    plan->njobs = 1;
    plan->paths = 1;
    int r = make_job(&plan->jobs[0], &plan->root, plan->depth, 1);
    plan->jobs[0].multiplicity = 1;
    return r;
}

/*
 * Expand until the split depth is known (explicit: @want; automatic: rule 3)
 * and turn that level into jobs. @prev and @cur rotate so that the automatic
 * rule can step back one ply without recomputing it.
 */
static int expand_and_choose(ply_split_t *plan, int want, const growth_t *g, double target,
                             double min_nodes, const atomic_int *cancel, char *why, size_t why_len)
{
    level_t prev = {0}, cur = {0};
    int r = expand_root(plan, &cur);
    unsigned s = 1, chosen = 0;
    double total = growth_nodes(g, plan->depth);
    while (r == 0 && !chosen) {
        double mean = cur.paths ? total / (double)cur.paths : 0.0;
        if (want >= 0) {
            if (s == (unsigned)want) chosen = s;
        } else if (s > 1 && mean < min_nodes) {
            chosen = s - 1;
        } else if ((double)cur.n >= target && mean <= (double)PLY_SPLIT_MAX_JOB_NODES) {
            chosen = s;
        } else if (s + 1 >= plan->depth || cur.n == 0 ||
                   (double)cur.n * ((s + 1) % 2 ? g->r_odd : g->r_even) >
                       (double)PLY_SPLIT_AUTO_MAX_JOBS) {
            chosen = s;
        }
        if (chosen) break;
        level_free(&prev);
        prev = cur;
        memset(&cur, 0, sizeof cur);
        r = expand_level(plan, &prev, &cur, cancel, why, why_len);
        s++;
    }
    if (r == PLY_ERANGE)
        ply_why(why, why_len, 0, "a split of %u plies gives more than %u unique positions", s,
                PLY_SPLIT_MAX_JOBS);
    else if (r == PLY_ENOMEM)
        ply_why(why, why_len, 0, "out of memory expanding ply %u", s);
    else if (r == PLY_ECANCELED)
        ply_why(why, why_len, 0, "split canceled");
    if (r == 0) {
        plan->split_depth = chosen;
        plan->job_depth = plan->depth - chosen;
        r = level_to_jobs(plan, chosen == s ? &cur : &prev, cancel, why, why_len);
        if (r == PLY_ENOMEM) ply_why(why, why_len, 0, "out of memory building jobs");
        if (r == PLY_ECANCELED) ply_why(why, why_len, 0, "split canceled");
    }
    level_free(&prev);
    level_free(&cur);
    return r;
}

int ply_split_plan(const ply_arb_pos_t *root, unsigned depth, int split_depth,
                   const atomic_int *cancel, ply_split_t **out, char *why, size_t why_len)
{
    return ply_split_plan_fit(root, depth, split_depth, 0, 0, cancel, out, why, why_len);
}

int ply_split_plan_fit(const ply_arb_pos_t *root, unsigned depth, int split_depth, unsigned threads,
                       uint64_t min_job_nodes, const atomic_int *cancel, ply_split_t **out,
                       char *why, size_t why_len)
{
    if (!out) return PLY_EINVAL;
    *out = NULL;
    if (!root) return PLY_EINVAL;
    if (depth < 1 || depth > PLY_SPLIT_MAX_DEPTH) {
        ply_why(why, why_len, 0, "depth %u out of range 1..%u", depth, PLY_SPLIT_MAX_DEPTH);
        return PLY_ERANGE;
    }
    if (split_depth >= (int)depth) {
        ply_why(why, why_len, 0, "split depth %d must be below depth %u", split_depth, depth);
        return PLY_ERANGE;
    }
    ply_split_t *plan = calloc(1, sizeof *plan);
    if (!plan) return PLY_ENOMEM;
    plan->root = *root;
    plan->depth = depth;
    plan->nroot = ply_arb_legal_moves(root, plan->root_moves);
    for (int i = 0; i < plan->nroot; i++)
        ply_arb_move_to_uci(root, plan->root_moves[i], plan->root_uci[i]);

    /* A plan counts perft(k) of the root only below its depth: perft(3) of a 3-ply run is
     * the whole run again in the rule engine (half the coordinator's time in an EPD suite
     * of 3-ply checks), for an estimate that only sizes leases and the ETA. */
    growth_t g;
    growth_init(&g, root, depth > 1 ? depth - 1 : 1);
    double est = growth_nodes(&g, depth);
    plan->estimate = est >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)est;

    int r;
    if (split_depth == 0 || (split_depth < 0 && (depth == 1 || plan->nroot == 0))) {
        plan->split_depth = 0;
        plan->job_depth = depth;
        r = root_job(plan);
        if (r == 0) r = ply_split_recount(plan); /* here, on the thread pool */
        if (r == 0 && plan->arb_divide) {        /* then the estimate is the count */
            plan->estimate = 0;
            for (int m = 0; m < plan->nroot; m++) plan->estimate += plan->arb_divide[m];
        }
        if (r < 0) ply_why(why, why_len, 0, "out of memory");
    } else {
        double target = (double)PLY_SPLIT_JOBS_PER_THREAD *
                        (double)(threads ? threads : PLY_SPLIT_DEFAULT_THREADS);
        double min_nodes = (double)(min_job_nodes ? min_job_nodes : PLY_SPLIT_MIN_JOB_NODES);
        r = expand_and_choose(plan, split_depth, &g, target, min_nodes, cancel, why, why_len);
    }
    if (r < 0) {
        ply_split_destroy(&plan);
        return r;
    }
    *out = plan;
    return 0;
}

int ply_split_recount(ply_split_t *plan)
{
    if (!plan || plan->arb_divide || plan->split_depth != 0 || plan->depth < 2 ||
        plan->nroot <= 0 || plan->estimate > PLY_SPLIT_RECOUNT_NODES)
        return 0;
    uint64_t *d = calloc((size_t)plan->nroot, sizeof *d);
    if (!d) return PLY_ENOMEM;
    for (int m = 0; m < plan->nroot; m++) {
        ply_arb_pos_t child = plan->root;
        ply_arb_make(&child, plan->root_moves[m]);
        d[m] = ply_arb_perft(&child, (int)plan->depth - 1);
    }
    plan->arb_divide = d;
    return 0;
}

void ply_split_destroy(ply_split_t **plan)
{
    if (!plan || !*plan) return;
    ply_split_t *p = *plan;
    free(p->arb_divide);
    for (size_t i = 0; i < p->njobs; i++) {
        free(p->jobs[i].fen);
        free(p->jobs[i].mult);
    }
    free(p->jobs);
    free(p);
    *plan = NULL;
}
