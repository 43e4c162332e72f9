/*
 * `ply analyse-pgn`'s work (analyse_pgn.h): per game, the plies to search (those whose
 * position is neither in the cache nor earlier in the game), one search run for them,
 * the consistency pass and its second run, then the annotated game and its JSON.
 * Memory: the game being analysed, the cache (bounded) and nothing per finished game.
 */
#include "analyse_pgn.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "envelope.h"
#include "pgn_annotate.h"
#include "pos_cache.h"
#include "progress.h"
#include "run_journal.h"
#include "util/error.h"
#include "util/json_exact.h"
#include "util/time.h"

#define CMD "ply analyse-pgn"

typedef struct apgn {
    const ply_apgn_args_t *a;
    ply_session_t *s;
    ply_pos_cache_t *cache;
    ply_run_journal_t *journal; /* --state: which run answered which request */
    FILE *pgn_out;              /* NULL: no PGN (--json without -o) */
    ply_pgn_game_t *annotated;
    size_t games_total; /* tag sections of the file; 0 when unknown (stdin) */
    size_t analysed, skipped, json_games;
    size_t last_game; /* the number of the last game read (also a broken one) */
    uint64_t positions, searched, from_cache, researched, runs, start_ms;
    ply_progress_t bar;    /* the live bar or the log's lines (progress.h) */
    ply_u128_t nodes_done; /* nodes of the runs finished (the bar's rate) */
} apgn_t;

/* One game's work: the replay, each position's identity, what to search. */
typedef struct game_work {
    size_t number;
    ply_pa_game_t g;
    char (*ids)[PLY_ARB_FEN_MAX];
    int *copy_of;     /* ply with the same identity earlier in the game, or -1 */
    unsigned *plies;  /* scratch: the plies of one run */
    unsigned *redone; /* the plies the consistency pass searched again */
    size_t nredone;
    unsigned positions, searched, from_cache;
    uint32_t jobs_restored, jobs_computed;
    unsigned runs_from_state; /* runs answered by the state file (--state, run again) */
    unsigned from_state;      /* positions of those runs: not searched by this command */
} game_work_t;

/* ---- searching ----------------------------------------------------------------------- */

static void line_from_msg(const Ply__SearchLine *m, ply_pa_line_t *l)
{
    memset(l, 0, sizeof *l);
    l->have = 1;
    l->is_mate = m->has_mate;
    l->value = m->has_mate ? m->mate : m->score_cp;
    l->depth = m->depth;
    for (size_t i = 0; i < m->n_pv && l->npv < PLY_PA_PV_MAX; i++) {
        if (strlen(m->pv[i]) >= PLY_PA_UCI_MAX) break;
        snprintf(l->pv[l->npv++], PLY_PA_UCI_MAX, "%s", m->pv[i]);
    }
}

/* Whether @res answers @req: its plies, moves and root as asked (a run id is only a key). */
static int answers(const Ply__RunResult *res, const ply_search_request_t *req)
{
    const Ply__SearchRequest *q = res->asked ? res->asked->search : NULL;
    if (!q || !res->search || q->n_plies != req->nplies || q->n_moves != req->nmoves) return 0;
    for (size_t i = 0; i < req->nplies; i++)
        if (q->plies[i] != req->plies[i]) return 0;
    for (size_t i = 0; i < req->nmoves; i++)
        if (strcmp(q->moves[i], req->moves[i]) != 0) return 0;
    return 1;
}

/*
 * With --state: the answer of the finished run the journal names for @key, read from the
 * state file as `ply result` reads it, into *@res; 0 when there is none (then search).
 */
static int from_state(apgn_t *ap, const char *key, const ply_search_request_t *req,
                      Ply__RunResult **res)
{
    uint64_t id = ap->journal ? ply_run_journal_find(ap->journal, key) : 0;
    if (!id) return 0;
    Ply__RunProgress *prog = NULL;
    char why[256];
    int rc = ply_client_result(ply_session_client(ap->s), id, 0, (int)ply_session_timeout_ms(ap->s),
                               res, &prog, why, sizeof why);
    if (prog) ply__run_progress__free_unpacked(prog, NULL);
    if (rc == 0 && *res && answers(*res, req)) return 1;
    if (*res) ply__run_result__free_unpacked(*res, NULL);
    *res = NULL;
    return 0;
}

/* The bar: games done of the file's, the running game's run counting as its jobs done. */
static void on_run_progress(const Ply__RunProgress *p, void *arg)
{
    apgn_t *ap = arg;
    if (ap->bar.mode == PLY_PROGRESS_OFF || (p->state && !strcmp(p->state, "queued"))) return;
    double part = p->jobs_total ? (double)p->jobs_done / p->jobs_total : 0;
    uint64_t done = ap->analysed + ap->skipped;
    ply_progress_update(
        &ap->bar, done, ap->games_total, "games", (double)done + part, (double)ap->games_total,
        ap->nodes_done + ply_msg_count(p->nodes, p->has_nodes_hi, p->nodes_hi), p->has_nodes, NULL);
}

/*
 * Search the positions after @plies[0..n) of @w's game in one run, with twice the
 * budget when @again; their lines replace @w->g.lines[ply]. Returns 0, or the session's
 * error after printing it.
 */
static int search_plies(apgn_t *ap, game_work_t *w, const unsigned *plies, size_t n, int again)
{
    const ply_apgn_args_t *a = ap->a;
    const char **moves = malloc(((size_t)w->g.nplies + 1) * sizeof *moves);
    if (!moves) return PLY_ENOMEM;
    for (int k = 0; k < w->g.nplies; k++) moves[k] = w->g.uci[k];
    ply_search_request_t req = {0};
    req.fen = w->g.start_fen;
    req.moves = moves;
    req.nmoves = (size_t)w->g.nplies;
    req.depth = a->depth && again ? a->depth + 2 : a->depth;
    if (req.depth > PLY_SEARCH_JOB_MAX_DEPTH) req.depth = PLY_SEARCH_JOB_MAX_DEPTH;
    req.nodes = again ? 2 * a->nodes : a->nodes;
    req.chess960 = w->g.pos[0].chess960;
    req.plies = plies;
    req.nplies = n;
    Ply__Accepted *acc = NULL;
    Ply__RunResult *res = NULL;
    char why[512];
    char key[PLY_RUN_JOURNAL_KEY] = "";
    if (ap->journal) ply_run_journal_key(&req, key);
    int rc = 0;
    int stored = from_state(ap, key, &req, &res);
    if (stored) {
        w->runs_from_state++;
        w->from_state += (unsigned)n;
    } else {
        rc = ply_session_search(ap->s, &req, on_run_progress, ap, &acc, &res, why, sizeof why);
        if (rc == 0 && res->search) ap->nodes_done += res->search->nodes;
        if (rc == 0 && ap->journal && ply_run_journal_add(ap->journal, key, res->run_id) < 0)
            fprintf(stderr, "%s: cannot write the run journal (%s.runs)\n", CMD,
                    ap->a->session.state_path);
    }
    free(moves);
    ap->runs++;
    if (rc == 0 && !res->search) rc = ply_why(why, sizeof why, PLY_EPROTO, "no search answer");
    for (size_t i = 0; rc == 0 && i < res->search->n_moves; i++) {
        const Ply__AnalysedMove *m = res->search->moves[i];
        if (!m->has_ply || m->ply > (uint32_t)w->g.nplies || !m->line)
            rc = ply_why(why, sizeof why, PLY_EPROTO, "an answer for no ply of the game");
        else
            line_from_msg(m->line, &w->g.lines[m->ply]);
    }
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (!w->g.lines[plies[i]].have)
            rc = ply_why(why, sizeof why, PLY_EPROTO, "the answer lacks ply %u", plies[i]);
    if (rc == 0 && !stored) { /* a stored answer's counts are of the run that computed it */
        w->jobs_restored += res->results_restored;
        w->jobs_computed += res->results_computed;
    } else if (rc != 0) {
        ply_progress_clear(&ap->bar);
        fprintf(stderr, "%s: game %zu: %s\n", CMD, w->number, why);
    }
    ply_session_free_reply(&acc, &res);
    return rc;
}

/*
 * search_plies in runs of at most PLY_MAX_DIVIDE positions: a run's answer holds one line
 * per position, and the envelope takes at most that many (a longer game is several runs).
 */
static int search_batches(apgn_t *ap, game_work_t *w, const unsigned *plies, size_t n, int again)
{
    int rc = 0;
    for (size_t at = 0; at < n && rc == 0; at += PLY_MAX_DIVIDE)
        rc = search_plies(ap, w, plies + at, n - at < PLY_MAX_DIVIDE ? n - at : PLY_MAX_DIVIDE,
                          again);
    return rc;
}

/* The plies to search: positions with a legal move, not earlier in the game, not cached. */
static size_t plan(apgn_t *ap, game_work_t *w)
{
    size_t n = 0;
    for (int k = 0; k <= w->g.nplies; k++) {
        w->copy_of[k] = -1;
        if (w->g.end[k] != PLY_PA_PLAYING) continue;
        w->positions++;
        ply_arb_identity(&w->g.pos[k], w->ids[k], sizeof w->ids[k]);
        for (int j = 0; j < k && w->copy_of[k] < 0; j++)
            if (w->g.end[j] == PLY_PA_PLAYING && strcmp(w->ids[j], w->ids[k]) == 0)
                w->copy_of[k] = j;
        const ply_pa_line_t *hit = ply_pos_cache_get(ap->cache, w->ids[k]);
        if (w->copy_of[k] >= 0 || hit) {
            w->from_cache++;
            if (hit) w->g.lines[k] = *hit, w->g.lines[k].researched = 0;
            continue;
        }
        w->plies[n++] = (unsigned)k;
    }
    return n;
}

static void remember(apgn_t *ap, game_work_t *w, const unsigned *plies, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ply_pa_line_t l = w->g.lines[plies[i]];
        l.researched = 0;
        ply_pos_cache_put(ap->cache, w->ids[plies[i]], &l);
    }
}

/* The consistency pass (pgn_annotate.h): the contradicted plies searched again. */
static int recheck(apgn_t *ap, game_work_t *w)
{
    size_t n = ply_pa_contradictions(&w->g, w->redone, (size_t)w->g.nplies + 1);
    if (n == 0) return 0;
    ply_pa_line_t *first = malloc(n * sizeof *first);
    if (!first) return PLY_ENOMEM;
    for (size_t i = 0; i < n; i++) first[i] = w->g.lines[w->redone[i]];
    int rc = search_batches(ap, w, w->redone, n, 1);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        ply_pa_line_t *l = &w->g.lines[w->redone[i]];
        l->researched = l->doubled = 1;
        l->first_is_mate = first[i].is_mate;
        l->first_value = first[i].value;
        l->first_depth = first[i].depth;
    }
    free(first);
    if (rc == 0) remember(ap, w, w->redone, n);
    w->nredone = rc == 0 ? n : 0;
    ap->researched += w->nredone;
    return rc;
}

static int analyse(apgn_t *ap, game_work_t *w)
{
    size_t n = plan(ap, w);
    if (n > 0) {
        int rc = search_batches(ap, w, w->plies, n, 0);
        if (rc) return rc;
        remember(ap, w, w->plies, n);
    }
    w->searched = (unsigned)n;
    for (int k = 0; k <= w->g.nplies; k++)
        if (w->copy_of[k] >= 0) w->g.lines[k] = w->g.lines[w->copy_of[k]];
    return recheck(ap, w);
}

/* ---- output -------------------------------------------------------------------------- */

static json_t *eval_json(ply_annot_eval_t e, unsigned depth)
{
    return json_pack("{s:i,s:i}", e.is_mate ? "mate" : "cp", e.value, "depth", (int)depth);
}

static json_t *str_or_null(const char *s)
{
    return s && s[0] ? ply_json_text(s) : json_null();
}

static const char *judgement_word(const ply_pa_move_t *m)
{
    if (!m->judged) return NULL;
    switch (m->judgement) {
    case PLY_ANNOT_INACCURACY:
        return "inaccuracy";
    case PLY_ANNOT_MISTAKE:
        return "mistake";
    case PLY_ANNOT_BLUNDER:
        return "blunder";
    default:
        return "good";
    }
}

static double one_decimal(double v)
{
    return round(v * 10.0) / 10.0;
}

static json_t *game_json(const game_work_t *w, const ply_pgn_game_t *src,
                         const ply_pa_move_t *moves, const ply_pa_summary_t *sum)
{
    json_t *o = json_object(), *ms = json_array(), *redone = json_array();
    for (int k = 0; k < w->g.nplies; k++) {
        const ply_pa_move_t *m = &moves[k];
        json_t *mo = json_object();
        json_object_set_new(mo, "ply", json_integer(k + 1));
        json_object_set_new(mo, "san", ply_json_text(w->g.san[k]));
        json_object_set_new(mo, "eval", m->has_eval ? eval_json(m->eval, m->depth) : json_null());
        json_object_set_new(mo, "judgement", str_or_null(judgement_word(m)));
        json_object_set_new(mo, "best", str_or_null(m->best));
        json_object_set_new(mo, "accuracy",
                            m->judged ? json_real(one_decimal(m->accuracy)) : json_null());
        json_object_set_new(mo, "cp_loss", m->judged ? json_integer(m->cp_loss) : json_null());
        json_array_append_new(ms, mo);
    }
    for (size_t i = 0; i < w->nredone; i++)
        json_array_append_new(redone, json_integer(w->redone[i]));
    json_object_set_new(o, "game", json_integer((json_int_t)w->number));
    json_object_set_new(o, "line", json_integer(src->line));
    json_t *tags = json_object();
    static const char *const names[] = {"White", "Black", "Result", "Event", "Date"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        json_object_set_new(tags, names[i], str_or_null(ply_pgn_game_tag(src, names[i])));
    json_object_set_new(o, "tags", tags);
    json_object_set_new(o, "plies", json_integer(w->g.nplies));
    json_object_set_new(o, "positions", json_integer(w->positions));
    json_object_set_new(o, "searched", json_integer(w->searched));
    json_object_set_new(o, "from_cache", json_integer(w->from_cache));
    json_object_set_new(o, "researched", redone);
    json_object_set_new(o, "jobs_computed", json_integer(w->jobs_computed));
    json_object_set_new(o, "jobs_restored", json_integer(w->jobs_restored));
    json_object_set_new(o, "runs_from_state", json_integer(w->runs_from_state));
    json_object_set_new(o, "from_state", json_integer(w->from_state));
    static const char *const side[2] = {"white", "black"};
    for (int s = 0; s < 2; s++)
        json_object_set_new(o, side[s],
                            sum->moves[s]
                                ? json_pack("{s:f,s:f}", "accuracy", one_decimal(sum->accuracy[s]),
                                            "acpl", one_decimal(sum->acpl[s]))
                                : json_null());
    json_object_set_new(o, "moves", ms);
    return o;
}

static void json_game(apgn_t *ap, json_t *o)
{
    char *text = ply_json_dumps(o, JSON_INDENT(2));
    json_decref(o);
    if (!text) return;
    /* indented one level: the element of "games" */
    printf("%s    ", ap->json_games++ ? ",\n" : "");
    for (const char *p = text; *p; p++) printf(*p == '\n' ? "\n    " : "%c", *p);
    free(text);
}

static void progress(apgn_t *ap, const game_work_t *w)
{
    if (ap->a->quiet) return;
    ply_progress_clear(&ap->bar);
    double s = (double)ply_elapsed_ms(ply_time_ms(), ap->start_ms) / 1000.0;
    char total[32] = "";
    if (ap->games_total) snprintf(total, sizeof total, "/%zu", ap->games_total);
    fprintf(stderr,
            "game %zu%s: %u positions, %u searched, %u known, %zu re-searched, %u from the "
            "state file; %.0f positions/s\n",
            w->number, total, w->positions, w->searched, w->from_cache, w->nredone, w->from_state,
            s > 0 ? (double)ap->searched / s : 0.0);
}

static char *annotator(const ply_apgn_args_t *a, char *buf, size_t len)
{
    if (a->depth)
        snprintf(buf, len, "ply analyse-pgn, depth %u", a->depth);
    else
        snprintf(buf, len, "ply analyse-pgn, %" PRIu64 " nodes", a->nodes);
    return buf;
}

/* Writes the annotated game and its JSON. Returns 0 or PLY_EIO / PLY_ENOMEM. */
static int emit(apgn_t *ap, game_work_t *w, const ply_pgn_game_t *src)
{
    ply_progress_clear(&ap->bar); /* the game may go to the same terminal */
    ply_pa_move_t *moves = calloc((size_t)w->g.nplies + 1, sizeof *moves);
    if (!moves) return PLY_ENOMEM;
    ply_pa_summary_t sum;
    ply_pa_judge(&w->g, moves, &sum);
    char who[64];
    int rc =
        ply_pa_annotate(&w->g, src, moves, &sum, annotator(ap->a, who, sizeof who), ap->annotated);
    if (rc == 0 && ap->pgn_out) {
        rc = ply_pgn_write(ap->pgn_out, ap->annotated);
        if (rc == 0 && fflush(ap->pgn_out) != 0) rc = PLY_EIO;
    }
    if (rc == 0 && ap->a->json) json_game(ap, game_json(w, src, moves, &sum));
    free(moves);
    return rc;
}

/* ---- the file ------------------------------------------------------------------------ */

static void skip(apgn_t *ap, size_t number, long line, const char *why)
{
    ap->skipped++;
    ply_progress_clear(&ap->bar);
    fprintf(stderr, "%s: game %zu (line %ld): %s; skipped\n", CMD, number, line, why);
    if (ap->a->json)
        json_game(ap, json_pack("{s:I,s:I,s:o}", "game", (json_int_t)number, "line",
                                (json_int_t)line, "error", ply_json_text(why)));
}

static int work_alloc(game_work_t *w)
{
    size_t n = (size_t)w->g.nplies + 1;
    w->ids = calloc(n, sizeof *w->ids);
    w->copy_of = calloc(n, sizeof *w->copy_of);
    w->plies = calloc(n, sizeof *w->plies);
    w->redone = calloc(n, sizeof *w->redone);
    return w->ids && w->copy_of && w->plies && w->redone ? 0 : PLY_ENOMEM;
}

static void work_free(game_work_t *w)
{
    ply_pa_game_free(&w->g);
    free(w->ids);
    free(w->copy_of);
    free(w->plies);
    free(w->redone);
}

/* One game: 0 done or skipped (a bad game, or one whose jobs no worker could answer with lines
 * that pass the checks), < 0 a failure that ends the command (printed). */
static int one_game(apgn_t *ap, const ply_pgn_game_t *src)
{
    game_work_t w = {.number = src->number};
    char why[300];
    long line;
    int rc = ply_pa_game_read(&w.g, src, &line, why, sizeof why);
    if (rc == 0 && w.g.nplies > PLY_SEARCH_JOB_MAX_MOVES)
        rc = ply_why(why, sizeof why, PLY_ERANGE, "%d plies, more than the %d a search run takes",
                     w.g.nplies, PLY_SEARCH_JOB_MAX_MOVES);
    if (rc == PLY_ENOMEM || (rc == 0 && (rc = work_alloc(&w)) != 0)) {
        fprintf(stderr, "%s: out of memory\n", CMD);
        work_free(&w);
        return PLY_ENOMEM;
    }
    if (rc < 0) {
        skip(ap, src->number, line, why);
        work_free(&w);
        return 0;
    }
    rc = analyse(ap, &w);
    if (rc == PLY_EWORKER || rc == PLY_EMISMATCH) {
        /* a job of this game could not be computed (no worker's answer passed the checks,
         * said above): the game is left out, the others go on */
        ap->skipped++;
        fprintf(stderr, "%s: game %zu: not analysed (%s); skipped\n", CMD, w.number,
                ply_strerror(rc));
        work_free(&w);
        return 0;
    }
    if (rc == 0) {
        rc = emit(ap, &w, src);
        if (rc) fprintf(stderr, "%s: cannot write game %zu: %s\n", CMD, w.number, ply_strerror(rc));
    }
    if (rc == 0) {
        ap->analysed++;
        ap->positions += w.positions;
        ap->searched += w.searched + w.nredone - w.from_state;
        ap->from_cache += w.from_cache;
        progress(ap, &w);
    }
    work_free(&w);
    return rc;
}

/* Tag sections of the file (a line starting with '[' after one that does not): the games
 * to expect, for the progress line. 0 for standard input or a file that cannot be read. */
static size_t count_games(const char *path)
{
    if (!strcmp(path, "-")) return 0;
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char buf[4096];
    size_t n = 0;
    int in_tags = 0, at_line_start = 1;
    while (fgets(buf, sizeof buf, f)) {
        if (at_line_start) {
            int tag = buf[0] == '[';
            n += tag && !in_tags;
            in_tags = tag;
        }
        at_line_start = strchr(buf, '\n') != NULL;
    }
    fclose(f);
    return n;
}

static void summary(apgn_t *ap, int failed)
{
    uint64_t ms = ply_elapsed_ms(ply_time_ms(), ap->start_ms);
    double rate = ms ? (double)ap->searched * 1000.0 / (double)ms : 0.0;
    if (ap->a->json) {
        json_t *o = json_pack(
            "{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:b}", "analysed", (json_int_t)ap->analysed,
            "skipped", (json_int_t)ap->skipped, "positions", (json_int_t)ap->positions, "searched",
            (json_int_t)ap->searched, "from_cache", (json_int_t)ap->from_cache, "researched",
            (json_int_t)ap->researched, "runs", (json_int_t)ap->runs, "time_ms", (json_int_t)ms,
            "positions_per_s", round(rate), "complete", !failed);
        char *text = ply_json_dumps(o, JSON_INDENT(2));
        json_decref(o);
        printf("\n  ],\n  \"summary\": "); /* after "games", indented one level */
        for (const char *p = text ? text : "null"; *p; p++) printf(*p == '\n' ? "\n  " : "%c", *p);
        printf("\n}\n");
        free(text);
    }
    if (ap->a->quiet) return;
    ply_progress_clear(&ap->bar);
    fprintf(stderr,
            "%s: %zu game%s analysed, %zu skipped: %" PRIu64 " positions, %" PRIu64
            " searched (%" PRIu64 " re-searched), %" PRIu64 " known; %.1f s, %.0f positions/s\n",
            CMD, ap->analysed, ap->analysed == 1 ? "" : "s", ap->skipped, ap->positions,
            ap->searched, ap->researched, ap->from_cache, (double)ms / 1000.0, rate);
}

static int read_games(apgn_t *ap, ply_pgn_reader_t *r)
{
    for (;;) {
        const ply_pgn_game_t *src;
        ply_pgn_error_t err;
        int rc = ply_pgn_read(r, &src, &err);
        if (rc == 0) return 0;
        if (rc == PLY_EPARSE) {
            ap->last_game = err.game;
            if (!ap->a->game || err.game == ap->a->game) skip(ap, err.game, err.line, err.why);
            continue;
        }
        if (rc < 0) {
            fprintf(stderr, "%s: %s: read error\n", CMD, ap->a->file);
            return rc;
        }
        ap->last_game = src->number;
        if (ap->a->game && src->number != ap->a->game) {
            if (src->number > ap->a->game) return 0;
            continue;
        }
        if ((rc = one_game(ap, src)) != 0) return rc;
    }
}

int ply_apgn_run(const ply_apgn_args_t *a)
{
    apgn_t ap = {.a = a, .start_ms = ply_time_ms()};
    ply_progress_init(&ap.bar, CMD, a->quiet);
    char why[512];
    ply_pgn_reader_t *r = ply_pgn_reader_open(a->file, why, sizeof why);
    if (!r) {
        fprintf(stderr, "%s: %s\n", CMD, why);
        return 2;
    }
    int status = 1;
    ap.games_total = a->game ? 0 : count_games(a->file);
    ap.pgn_out = a->output ? fopen(a->output, "w") : a->json ? NULL : stdout;
    if (a->output && !ap.pgn_out) {
        fprintf(stderr, "%s: cannot write %s\n", CMD, a->output);
        goto out;
    }
    ap.cache = ply_pos_cache_new(a->cache);
    ap.annotated = ply_pgn_game_new();
    if (!ap.cache || !ap.annotated) {
        fprintf(stderr, "%s: out of memory\n", CMD);
        goto out;
    }
    if (a->session.state_path) {
        char path[4096];
        snprintf(path, sizeof path, "%s.runs", a->session.state_path);
        if (!(ap.journal = ply_run_journal_open(path, why, sizeof why))) {
            fprintf(stderr, "%s: %s\n", CMD, why);
            goto out;
        }
    }
    ap.s = ply_session_new(&a->session, why, sizeof why);
    if (!ap.s) {
        fprintf(stderr, "%s: %s\n", CMD, why);
        goto out;
    }
    if (a->json) printf("{\n  \"games\": [\n");
    int rc = read_games(&ap, r);
    if (rc == 0 && a->game && ap.last_game < a->game) {
        fprintf(stderr, "%s: no game %zu: %s has %zu\n", CMD, a->game, a->file, ap.last_game);
        rc = PLY_ENOTFOUND;
    }
    summary(&ap, rc != 0);
    status = rc != 0 || ap.skipped ? 1 : 0;
    if (ap.pgn_out && ap.pgn_out != stdout && fclose(ap.pgn_out) != 0) {
        fprintf(stderr, "%s: cannot write %s\n", CMD, a->output);
        status = 1;
    }
    ap.pgn_out = NULL;
out:
    if (ap.pgn_out && ap.pgn_out != stdout) fclose(ap.pgn_out);
    ply_session_destroy(&ap.s);
    ply_pgn_game_destroy(&ap.annotated);
    ply_pos_cache_destroy(&ap.cache);
    ply_run_journal_close(&ap.journal);
    ply_pgn_reader_destroy(&r);
    return status;
}
