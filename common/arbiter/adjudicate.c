/*
 * Adjudication of one game record: the main line is replayed move by move
 * (SAN reader, then ply_arb_game_play), the state of every position is
 * taken without look-ahead (cheap), the first end by rule and the first
 * draw claims are remembered, and the final position gets the full status
 * with the claims by an intended move (9.2(a), 9.3(a)). Then the result is
 * compared with what the rules allow (see adjudicate.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "arbiter/adjudicate.h"
#include "arbiter/san.h"
#include "util/error.h"

static void note(ply_arb_report_t *rep, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(ply_arb_report_t *rep, const char *fmt, ...)
{
    if (rep->nnotes == PLY_ARB_NOTES_MAX) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rep->notes[rep->nnotes++], sizeof rep->notes[0], fmt, ap);
    va_end(ap);
}

static void copy_tag(const ply_pgn_game_t *g, const char *name, char *out, size_t len)
{
    const char *v = ply_pgn_game_tag(g, name);
    snprintf(out, len, "%s", v ? v : "");
}

static const char *side_name(int side)
{
    return side ? "black" : "white";
}

static const char *win_for(int side)
{
    return side ? "0-1" : "1-0";
}

/* The move number of ply @ply (1-based) from @start, as "12." or "12...". */
static void move_number(const ply_arb_pos_t *start, int ply, char *out, size_t len)
{
    int idx = start->side + ply - 1;
    snprintf(out, len, "%d%s", start->fullmove + idx / 2, idx % 2 ? "..." : ".");
}

/* Replay the main line, filling the per-ply findings. */
static int replay(const ply_pgn_game_t *g, const ply_arb_pos_t *start, ply_arb_game_t *game,
                  ply_arb_report_t *rep)
{
    ply_arb_status_t st;
    ply_arb_game_status(game, 0, &st);
    if (st.end != PLY_ARB_END_NONE) {
        rep->end = st.end;
        rep->end_winner = st.winner;
        snprintf(rep->end_proof, sizeof rep->end_proof, "%s", st.proof);
    }
    for (size_t i = 0; i < g->nelems; i++) {
        const ply_pgn_elem_t *e = &g->elems[i];
        if (e->kind != PLY_PGN_MOVE || e->depth != 0) continue;
        rep->recorded_plies++;
        if (rep->illegal_ply) continue; /* 7.4: nothing after an illegal move counts */
        if (rep->end != PLY_ARB_END_NONE) rep->after_end++;
        int rc =
            ply_arb_game_play_san(game, e->text, NULL, rep->illegal_why, sizeof rep->illegal_why);
        if (rc == PLY_ENOMEM) return rc;
        if (rc) {
            rep->illegal_ply = rep->plies + 1;
            snprintf(rep->illegal_move, sizeof rep->illegal_move, "%s", e->text);
            move_number(start, rep->illegal_ply, rep->illegal_number, sizeof rep->illegal_number);
            rep->illegal_line = e->line;
            continue;
        }
        rep->plies++;
        ply_arb_game_status(game, 0, &st);
        if (rep->end == PLY_ARB_END_NONE && st.end != PLY_ARB_END_NONE) {
            rep->end = st.end;
            rep->end_ply = rep->plies;
            rep->end_winner = st.winner;
            snprintf(rep->end_proof, sizeof rep->end_proof, "%s", st.proof);
        }
        if (rep->end == PLY_ARB_END_NONE && !rep->threefold_ply && st.threefold_now) {
            rep->threefold_ply = rep->plies;
            rep->threefold_n = st.occurrences < 3 ? st.occurrences : 3;
            memcpy(rep->threefold_plies, st.rep_plies, sizeof rep->threefold_plies);
        }
        if (rep->end == PLY_ARB_END_NONE && !rep->fifty_ply && st.fifty_now)
            rep->fifty_ply = rep->plies;
    }
    ply_arb_game_status(game, 1, &rep->final);
    ply_arb_to_fen(ply_arb_game_pos(game), rep->final_fen, sizeof rep->final_fen);
    return 0;
}

/* The result a flag fall gives (6.10), with the proof behind it: "" when
 * the answer is undetermined within the budget. */
static const char *flag_verdict(const ply_arb_pos_t *pos, ply_arb_laws_t laws, uint64_t budget,
                                ply_arb_report_t *rep)
{
    int opp = rep->flag ^ 1;
    ply_arb_unwinnable_laws(pos, opp, laws, budget, &rep->flag_unwin);
    rep->flag_opponent = rep->flag_unwin.verdict;
    snprintf(rep->flag_proof, sizeof rep->flag_proof, "%s", rep->flag_unwin.proof);
    if (rep->flag_opponent == PLY_ARB_MATE_IMPOSSIBLE) return "1/2-1/2";
    if (rep->flag_opponent == PLY_ARB_MATE_POSSIBLE) return win_for(opp);
    note(rep,
         "%s undetermined: %s's flag fell, and whether %s can still mate was proven "
         "neither way within the budget of %llu nodes: the result is not checked",
         ply_arb_flag_article(laws), side_name(rep->flag), side_name(opp),
         (unsigned long long)rep->flag_unwin.budget);
    return "";
}

/* Compare the record's result with what the rules give. */
static void verdict(const ply_pgn_game_t *g, ply_arb_laws_t laws, uint64_t budget,
                    ply_arb_game_t *game, ply_arb_report_t *rep)
{
    const char *claimed = rep->result[0] ? rep->result : rep->marker;
    if (rep->result[0] && rep->marker[0] && strcmp(rep->result, rep->marker)) {
        note(rep, "the Result tag says %s but the movetext ends with %s", rep->result, rep->marker);
        rep->consistent = 0;
    }
    if (!rep->result[0]) note(rep, "no Result tag");
    if (!g->result) note(rep, "no game termination marker at the end of the movetext");

    if (rep->illegal_ply) {
        note(rep, "illegal move at ply %d (%s %s, line %ld): %s", rep->illegal_ply,
             rep->illegal_number, rep->illegal_move, rep->illegal_line, rep->illegal_why);
        rep->consistent = 0;
    }
    if (rep->end != PLY_ARB_END_NONE) {
        const char *r = rep->end_winner >= 0 ? win_for(rep->end_winner) : "1/2-1/2";
        snprintf(rep->expected, sizeof rep->expected, "%s", r);
        if (rep->after_end) {
            note(rep, "the game ended at ply %d (%s, %s) but the record goes on for %d more pl%s",
                 rep->end_ply, ply_arb_end_name(rep->end), ply_arb_end_article(rep->end, laws),
                 rep->after_end, rep->after_end == 1 ? "y" : "ies");
            rep->consistent = 0;
        }
        if (rep->flag >= 0 && !rep->flag_from_tag)
            note(rep, "the flag fall does not count: the game had already ended");
    } else if (rep->flag >= 0) {
        const char *r = flag_verdict(ply_arb_game_pos(game), laws, budget, rep);
        snprintf(rep->expected, sizeof rep->expected, "%s", r);
    }
    if (!rep->illegal_ply && rep->expected[0] && strcmp(claimed, rep->expected)) {
        if (rep->end != PLY_ARB_END_NONE)
            note(rep, "the result should be %s: %s at ply %d (%s)", rep->expected,
                 ply_arb_end_name(rep->end), rep->end_ply, ply_arb_end_article(rep->end, laws));
        else
            note(rep, "the result should be %s: %s's flag fell and %s %s mate (%s: %s)",
                 rep->expected, side_name(rep->flag), side_name(rep->flag ^ 1),
                 rep->flag_opponent == PLY_ARB_MATE_IMPOSSIBLE ? "cannot" : "can still",
                 ply_arb_flag_article(laws), rep->flag_proof);
        rep->consistent = 0;
    }
}

/* A Termination tag "Time forfeit" names a flag fall; the result names the side. */
static void flag_from_termination(const ply_pgn_game_t *g, ply_arb_report_t *rep)
{
    const char *t = ply_pgn_game_tag(g, "Termination");
    const char *claimed = rep->result[0] ? rep->result : rep->marker;
    if (rep->flag >= 0 || !t || strcasecmp(t, "time forfeit")) return;
    if (!strcmp(claimed, "1-0")) rep->flag = 1;
    if (!strcmp(claimed, "0-1")) rep->flag = 0;
    rep->flag_from_tag = rep->flag >= 0;
}

/* A drawn time forfeit: one side's flag fell and the other could not mate. */
static void drawn_time_forfeit(const ply_pgn_game_t *g, ply_arb_laws_t laws, ply_arb_game_t *game,
                               uint64_t budget, ply_arb_report_t *rep)
{
    const char *t = ply_pgn_game_tag(g, "Termination");
    const char *claimed = rep->result[0] ? rep->result : rep->marker;
    if (rep->flag >= 0 || !t || strcasecmp(t, "time forfeit") || strcmp(claimed, "1/2-1/2") ||
        rep->illegal_ply || rep->end != PLY_ARB_END_NONE)
        return;
    const ply_arb_pos_t *pos = ply_arb_game_pos(game);
    ply_arb_unwin_t u;
    int possible = 0;
    for (int side = 0; side < 2; side++) {
        ply_arb_unwinnable_laws(pos, side, laws, budget, &u);
        if (u.verdict == PLY_ARB_MATE_IMPOSSIBLE) return;
        possible += u.verdict == PLY_ARB_MATE_POSSIBLE;
    }
    if (possible < 2) {
        note(rep,
             "%s undetermined: a draw on time needs a side that cannot mate, and that "
             "was proven neither way within the budget of %llu nodes",
             ply_arb_flag_article(laws), (unsigned long long)u.budget);
        return;
    }
    note(rep, "a draw on time needs a side that cannot mate (%s), and both sides can",
         ply_arb_flag_article(laws));
    rep->consistent = 0;
}

int ply_arb_adjudicate(const ply_pgn_game_t *g, ply_arb_laws_t laws, int flag, ply_arb_game_t *work,
                       ply_arb_report_t *rep)
{
    return ply_arb_adjudicate_budget(g, laws, flag, 0, work, rep);
}

int ply_arb_adjudicate_budget(const ply_pgn_game_t *g, ply_arb_laws_t laws, int flag,
                              uint64_t budget, ply_arb_game_t *work, ply_arb_report_t *rep)
{
    if (!g || !rep) return PLY_EINVAL;
    memset(rep, 0, sizeof *rep);
    rep->game = g->number;
    rep->line = g->line;
    rep->flag = flag == 0 || flag == 1 ? flag : -1;
    rep->end_winner = -1;
    rep->consistent = 1;
    copy_tag(g, "White", rep->white, sizeof rep->white);
    copy_tag(g, "Black", rep->black, sizeof rep->black);
    copy_tag(g, "Event", rep->event, sizeof rep->event);
    copy_tag(g, "Result", rep->result, sizeof rep->result);
    snprintf(rep->marker, sizeof rep->marker, "%s", g->result ? g->result : "");
    for (size_t i = 0; i < g->nelems; i++)
        rep->recorded_plies += g->elems[i].kind == PLY_PGN_MOVE && g->elems[i].depth == 0;

    ply_arb_pos_t start;
    if (ply_pgn_game_start(g, &start, rep->start_why, sizeof rep->start_why)) {
        note(rep, "cannot set up the start position: %s", rep->start_why);
        rep->consistent = 0;
        return 0;
    }
    rep->start_ok = 1;
    rep->chess960 = start.chess960;
    rep->start_side = start.side;
    rep->recorded_plies = 0; /* counted again by the replay */

    ply_arb_game_t *game = work;
    if (game)
        ply_arb_game_reset(game, &start, laws);
    else if (!(game = ply_arb_game_new(&start, laws)))
        return PLY_ENOMEM;
    int rc = replay(g, &start, game, rep);
    if (rc == 0) {
        flag_from_termination(g, rep);
        verdict(g, laws, budget, game, rep);
        drawn_time_forfeit(g, laws, game, budget, rep);
    }
    if (game != work) ply_arb_game_destroy(&game);
    return rc;
}
