/*
 * `ply arbiter`: the rule engine as a tool for people who adjudicate and
 * validate game records. Replays every game of a PGN file (streaming, one
 * game in memory at a time) and reports per game the first illegal move, how
 * the game ended by rule, the draw claims that arose, the final position,
 * the flag-fall verdict with --flag, and whether the Result tag agrees; or,
 * with --fen, validates one position and prints its state. Human text or one
 * JSON object (--json). Exit status: 0 when every game is consistent (or the
 * FEN is valid), 1 otherwise, 2 for usage errors and unreadable files.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "arbiter/adjudicate.h"
#include "arbiter/arbiter.h"
#include "arbiter/endgame.h"
#include "arbiter/pgn.h"
#include "arbiter/san.h"
#include "commands.h"
#include "notation.h"
#include "util/error.h"
#include "util/json_exact.h"

typedef struct arbiter_args {
    const char *file;
    const char *fen;
    ply_arb_laws_t laws;
    int flag; /* -1, 0 white, 1 black */
    int chess960;
    int json;
    int export;      /* --export: the games re-written as clean PGN on standard output */
    int notation;    /* --notation: ply_arb_notation_t of --export's moves, -1 not given */
    uint64_t budget; /* --unwinnable-budget: nodes for each art. 6.10 question, 0 default */
} arbiter_args_t;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: ply arbiter FILE.pgn [--laws fide2000|fide2023] [--flag white|black] [--json]\n"
            "                            [--unwinnable-budget NODES]\n"
            "       ply arbiter FILE.pgn --export [--notation san|lan|fide]\n"
            "       ply arbiter --fen FEN [--chess960] [--laws fide2000|fide2023] [--json]\n"
            "\n"
            "Replays every game of a PGN file by the FIDE Laws of Chess and reports per game:\n"
            "the first illegal move (ply, the move as written, why), how the game ended by\n"
            "rule (checkmate, stalemate, dead position with the test that proved it, and the\n"
            "automatic draws of fide2023), the draw claims that arose (threefold repetition,\n"
            "fifty-move rule, with the plies involved), the final position, and whether the\n"
            "Result tag agrees with the moves. With --fen, validates one position instead and\n"
            "prints its state.\n"
            "\n"
            "  FILE.pgn          the games ('-' reads standard input); read as a stream\n"
            "      --laws L      fide2000 (default: the 2000 edition) or fide2023 (adds the\n"
            "                    automatic draws on fivefold repetition and after 75 moves)\n"
            "      --flag SIDE   white or black: that side's flag fell at the end of every\n"
            "                    game (art. 6.10: it loses unless the opponent cannot mate)\n"
            "      --fen FEN     validate a position (FEN, X-FEN or Shredder-FEN) and print\n"
            "                    its state\n"
            "      --chess960    with --fen: read KQkq as X-FEN, castle by Chess960 rules\n"
            "      --unwinnable-budget NODES\n"
            "                    positions the question \"can this side still mate?\"\n"
            "                    (art. 6.10, and each side with --fen) may search before\n"
            "                    it answers \"undetermined\" (default %d); a \"yes\" is\n"
            "                    proven by a line of moves to the mate (replayed), a\n"
            "                    \"no\" by material, a blocked pawn structure or an\n"
            "                    exhaustive search; fide2023 counts the 75-move rule\n"
            "      --json        print one JSON object instead of text (each game's main\n"
            "                    line too: per ply its SAN, UCI and the FEN after it)\n"
            "      --export      re-write the games as clean PGN on standard output: the\n"
            "                    Seven Tag Roster first, every move in SAN with check marks,\n"
            "                    comments, NAGs and variations kept; a game with a move that\n"
            "                    is not legal is left out and named on standard error,\n"
            "                    as is a Result tag that disagrees with the termination\n"
            "                    marker (the marker's result is written)\n"
            "      --notation N  with --export: the moves in san (default, standard PGN),\n"
            "                    lan (long algebraic: Ng1-f3, e5xd6) or fide (the Laws'\n"
            "                    spelling: e8Q, 0-0)\n"
            "  -h, --help        this text\n"
            "\n"
            "Exit status: 0 every game consistent (or the FEN valid), 1 otherwise,\n"
            "2 usage or a file that cannot be read.\n",
            PLY_ARB_UNWIN_BUDGET);
}

static const char *side_name(int side)
{
    return side ? "black" : "white";
}

/* The answer to "can this side still mate?" (art. 6.10), in JSON and text. */
static const char *mate_word(ply_arb_mate_t m)
{
    return m == PLY_ARB_MATE_IMPOSSIBLE ? "no"
           : m == PLY_ARB_MATE_POSSIBLE ? "yes"
                                        : "undetermined";
}

/* The helpmate line of @u in SAN from @pos, as a JSON array (empty when none). */
static json_t *line_json(const ply_arb_pos_t *pos, const ply_arb_unwin_t *u)
{
    json_t *a = json_array();
    ply_arb_pos_t p = *pos;
    for (int i = 0; i < u->nmoves; i++) {
        char san[PLY_ARB_SAN_MAX];
        if (ply_arb_move_to_san(&p, u->moves[i], san, sizeof san) < 0) break;
        json_array_append_new(a, ply_json_text(san));
        ply_arb_make(&p, u->moves[i]);
    }
    return a;
}

/* The fields of an answer of ply_arb_unwinnable, added to @o. */
static void unwin_json(json_t *o, const ply_arb_pos_t *pos, const ply_arb_unwin_t *u)
{
    json_object_set_new(o, "method", ply_json_text(ply_arb_method_name(u->method)));
    json_object_set_new(o, "line", line_json(pos, u));
    json_object_set_new(o, "nodes", ply_json_count(u->nodes));
    json_object_set_new(o, "budget", ply_json_count(u->budget));
    json_object_set_new(o, "elapsed_us", ply_json_count(u->elapsed_us));
}

/* ---- text ------------------------------------------------------------------------ */

static void print_plies(const int *plies, int n)
{
    for (int i = 0; i < n; i++) printf("%s%d", i == 0 ? "" : i == n - 1 ? " and " : ", ", plies[i]);
}

/* The claims the side to move has in the final position (9.2, 9.3). */
static void print_final_claims(const ply_arb_status_t *f, const char *mover)
{
    if (f->threefold_now) {
        printf("  now: %s may claim a draw by threefold repetition (art. 9.2(b)): the position "
               "occurred after plies ",
               mover);
        print_plies(f->rep_plies,
                    f->occurrences < PLY_ARB_REP_MAX ? f->occurrences : PLY_ARB_REP_MAX);
        printf("\n");
    } else if (f->threefold_by_move) {
        printf("  now: %s may claim a draw by threefold repetition by writing %s (art. 9.2(a))\n",
               mover, f->threefold_move);
    }
    if (f->fifty_now)
        printf("  now: %s may claim a draw by the fifty-move rule (art. 9.3(b)): %d plies without "
               "pawn move or capture\n",
               mover, f->halfmove);
    else if (f->fifty_by_move)
        printf("  now: %s may claim a draw by the fifty-move rule by writing %s (art. 9.3(a))\n",
               mover, f->fifty_move);
}

static void print_report_text(const ply_arb_report_t *r, ply_arb_laws_t laws)
{
    printf("game %zu (line %ld): %s - %s, Result %s, %d pl%s%s\n", r->game, r->line,
           r->white[0] ? r->white : "?", r->black[0] ? r->black : "?",
           r->result[0]   ? r->result
           : r->marker[0] ? r->marker
                          : "(none)",
           r->recorded_plies, r->recorded_plies == 1 ? "y" : "ies",
           r->chess960 ? ", Chess960" : "");
    if (r->start_ok) {
        if (r->end != PLY_ARB_END_NONE) {
            printf("  end: %s at ply %d (%s), %s", ply_arb_end_name(r->end), r->end_ply,
                   ply_arb_end_article(r->end, laws),
                   r->end_winner >= 0 ? (r->end_winner ? "0-1" : "1-0") : "1/2-1/2");
            printf(r->end_proof[0] ? ": %s\n" : "\n", r->end_proof);
        }
        if (r->threefold_ply) {
            int mover = (r->start_side + r->threefold_ply - 1) % 2;
            printf("  claim: threefold repetition at ply %d, the position after plies ",
                   r->threefold_ply);
            print_plies(r->threefold_plies, r->threefold_n);
            printf(" (art. 9.2: %s writing that move, or %s after it)\n", side_name(mover),
                   side_name(mover ^ 1));
        }
        if (r->fifty_ply)
            printf("  claim: fifty-move rule at ply %d (art. 9.3: 50 moves by each player without "
                   "pawn move or capture)\n",
                   r->fifty_ply);
        const char *to_move = side_name((r->start_side + r->plies) % 2);
        printf("  final: %s (%s to move%s, %d legal move%s)\n", r->final_fen, to_move,
               r->final.in_check ? ", in check" : "", r->final.legal_moves,
               r->final.legal_moves == 1 ? "" : "s");
        if (r->end == PLY_ARB_END_NONE && !r->illegal_ply) print_final_claims(&r->final, to_move);
        if (r->flag >= 0 && r->end == PLY_ARB_END_NONE)
            printf("  flag: %s's flag fell; %s can mate: %s (%s, %s) -> %s (%s)\n",
                   side_name(r->flag), side_name(r->flag ^ 1), mate_word(r->flag_opponent),
                   ply_arb_method_name(r->flag_unwin.method), r->flag_proof,
                   r->expected[0] ? r->expected : "no verdict", ply_arb_flag_article(laws));
    }
    for (int i = 0; i < r->nnotes; i++) printf("  note: %s\n", r->notes[i]);
    printf("  verdict: %s\n", r->consistent ? "consistent" : "INCONSISTENT");
}

/* ---- JSON ------------------------------------------------------------------------ */

static json_t *plies_json(const int *plies, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(a, json_integer(plies[i]));
    return a;
}

static json_t *str_or_null(const char *s)
{
    return s && s[0] ? ply_json_text(s) : json_null();
}

static json_t *final_json(const ply_arb_status_t *f, const char *fen)
{
    json_t *o = json_object();
    json_object_set_new(o, "fen", ply_json_text(fen));
    json_object_set_new(o, "ply", json_integer(f->ply));
    json_object_set_new(o, "in_check", json_boolean(f->in_check));
    json_object_set_new(o, "legal_moves", json_integer(f->legal_moves));
    json_object_set_new(o, "halfmove_clock", json_integer(f->halfmove));
    json_object_set_new(o, "occurrences", json_integer(f->occurrences));
    json_object_set_new(o, "occurrence_plies",
                        plies_json(f->rep_plies, f->occurrences < PLY_ARB_REP_MAX
                                                     ? f->occurrences
                                                     : PLY_ARB_REP_MAX));
    json_object_set_new(o, "threefold_claim_now", json_boolean(f->threefold_now));
    json_object_set_new(o, "threefold_claim_move", str_or_null(f->threefold_move));
    json_object_set_new(o, "fifty_claim_now", json_boolean(f->fifty_now));
    json_object_set_new(o, "fifty_claim_move", str_or_null(f->fifty_move));
    return o;
}

static json_t *report_json(const ply_arb_report_t *r, ply_arb_laws_t laws)
{
    json_t *o = json_object();
    json_object_set_new(o, "game", ply_json_count(r->game));
    json_object_set_new(o, "line", json_integer(r->line));
    json_object_set_new(o, "white", ply_json_text(r->white));
    json_object_set_new(o, "black", ply_json_text(r->black));
    json_object_set_new(o, "result", str_or_null(r->result));
    json_object_set_new(o, "marker", str_or_null(r->marker));
    json_object_set_new(o, "chess960", json_boolean(r->chess960));
    json_object_set_new(o, "start_error", r->start_ok ? json_null() : ply_json_text(r->start_why));
    json_object_set_new(o, "recorded_plies", json_integer(r->recorded_plies));
    json_object_set_new(o, "plies", json_integer(r->plies));
    json_t *ill = json_null();
    if (r->illegal_ply) {
        ill = json_object();
        json_object_set_new(ill, "ply", json_integer(r->illegal_ply));
        json_object_set_new(ill, "number", ply_json_text(r->illegal_number));
        json_object_set_new(ill, "move", ply_json_text(r->illegal_move));
        json_object_set_new(ill, "line", json_integer(r->illegal_line));
        json_object_set_new(ill, "why", ply_json_text(r->illegal_why));
    }
    json_object_set_new(o, "illegal", ill);
    json_t *end = json_null();
    if (r->start_ok && r->end != PLY_ARB_END_NONE) {
        end = json_object();
        json_object_set_new(end, "kind", ply_json_text(ply_arb_end_name(r->end)));
        json_object_set_new(end, "ply", json_integer(r->end_ply));
        json_object_set_new(end, "article", ply_json_text(ply_arb_end_article(r->end, laws)));
        json_object_set_new(end, "winner",
                            r->end_winner >= 0 ? ply_json_text(side_name(r->end_winner))
                                               : json_null());
        json_object_set_new(end, "proof", str_or_null(r->end_proof));
        json_object_set_new(end, "plies_after", json_integer(r->after_end));
    }
    json_object_set_new(o, "end", end);
    json_t *claims = json_object();
    json_t *tf = json_null();
    if (r->threefold_ply) {
        tf = json_object();
        json_object_set_new(tf, "ply", json_integer(r->threefold_ply));
        json_object_set_new(tf, "plies", plies_json(r->threefold_plies, r->threefold_n));
    }
    json_object_set_new(claims, "threefold", tf);
    json_object_set_new(claims, "fifty",
                        r->fifty_ply ? json_pack("{s:i}", "ply", r->fifty_ply) : json_null());
    json_object_set_new(o, "claims", claims);
    json_object_set_new(o, "final",
                        r->start_ok ? final_json(&r->final, r->final_fen) : json_null());
    json_t *flag = json_null();
    if (r->flag >= 0) {
        flag = json_object();
        json_object_set_new(flag, "side", ply_json_text(side_name(r->flag)));
        json_object_set_new(flag, "from_termination_tag", json_boolean(r->flag_from_tag));
        json_object_set_new(flag, "opponent_can_mate",
                            r->end == PLY_ARB_END_NONE ? ply_json_text(mate_word(r->flag_opponent))
                                                       : json_null());
        json_object_set_new(flag, "proof", str_or_null(r->flag_proof));
        if (r->end == PLY_ARB_END_NONE) {
            ply_arb_pos_t final;
            if (ply_arb_from_fen(&final, r->final_fen, r->chess960 ? PLY_ARB_CHESS960 : 0, NULL,
                                 0) == 0)
                unwin_json(flag, &final, &r->flag_unwin);
        }
    }
    json_object_set_new(o, "flag", flag);
    json_object_set_new(o, "expected_result", str_or_null(r->expected));
    json_object_set_new(o, "consistent", json_boolean(r->consistent));
    json_t *notes = json_array();
    for (int i = 0; i < r->nnotes; i++) json_array_append_new(notes, ply_json_text(r->notes[i]));
    json_object_set_new(o, "notes", notes);
    return o;
}

/* ---- runs ------------------------------------------------------------------------ */

static int run_file(const arbiter_args_t *a)
{
    char why[512];
    ply_pgn_reader_t *r = ply_pgn_reader_open(a->file, why, sizeof why);
    if (!r) {
        fprintf(stderr, "ply arbiter: %s\n", why);
        return 2;
    }
    ply_arb_pos_t start;
    ply_arb_startpos(&start);
    ply_arb_game_t *work = ply_arb_game_new(&start, a->laws);
    ply_arb_report_t *rep = malloc(sizeof *rep);
    if (!work || !rep) {
        fprintf(stderr, "ply arbiter: out of memory\n");
        ply_arb_game_destroy(&work);
        free(rep);
        ply_pgn_reader_destroy(&r);
        return 1;
    }
    json_t *games = a->json ? json_array() : NULL, *errors = a->json ? json_array() : NULL;
    size_t total = 0, consistent = 0, broken = 0;
    int rc, status = 0;
    const ply_pgn_game_t *g;
    ply_pgn_error_t err;
    while ((rc = ply_pgn_read(r, &g, &err)) != 0) {
        total++;
        if (rc == PLY_EIO) {
            fprintf(stderr, "ply arbiter: %s: read error\n", a->file);
            status = 1;
            break;
        }
        if (rc == PLY_EPARSE) {
            broken++;
            if (games) {
                json_array_append_new(
                    errors, json_pack("{s:I,s:I,s:o}", "game", (json_int_t)err.game, "line",
                                      (json_int_t)err.line, "why", ply_json_text(err.why)));
            } else if (a->export) { /* standard output is the PGN: the note goes apart */
                fprintf(stderr, "ply arbiter: game %zu (line %ld) cannot be read: %s\n", err.game,
                        err.line, err.why);
            } else {
                printf("game %zu (line %ld): cannot be read: %s\n  verdict: UNREADABLE (skipped)\n",
                       err.game, err.line, err.why);
            }
            continue;
        }
        if (a->export) {
            char ewhy[512];
            if (ply_notation_export(stdout, g, (ply_arb_notation_t)a->notation, ewhy,
                                    sizeof ewhy)) {
                fprintf(stderr, "ply arbiter: game %zu (line %ld) left out: %s\n", g->number,
                        g->line, ewhy);
                status = 1;
                continue;
            }
            /* The marker is what the export writes in the Result tag too (PGN 8.1.1.7);
             * a tag that said otherwise is worth a word, as an inconsistent game is. */
            const char *tag = ply_pgn_game_tag(g, "Result");
            if (g->result && tag && strcmp(tag, g->result)) {
                fprintf(stderr,
                        "ply arbiter: game %zu (line %ld): Result tag \"%s\" disagrees with the "
                        "termination marker %s; written with Result \"%s\"\n",
                        g->number, g->line, tag, g->result, g->result);
                status = 1;
            }
            consistent++;
            continue;
        }
        if (ply_arb_adjudicate_budget(g, a->laws, a->flag, a->budget, work, rep)) {
            fprintf(stderr, "ply arbiter: out of memory\n");
            status = 1;
            break;
        }
        consistent += rep->consistent;
        if (games) {
            json_t *o = report_json(rep, a->laws);
            json_t *plies = ply_notation_plies_json(g);
            json_object_set_new(o, "plies", plies ? plies : json_null());
            json_array_append_new(games, o);
        } else
            print_report_text(rep, a->laws);
    }
    size_t inconsistent = total - consistent - broken;
    if (a->export) {
        if (broken)
            fprintf(stderr, "ply arbiter: %zu of %zu game%s could not be read\n", broken, total,
                    total == 1 ? "" : "s");
    } else if (games) {
        json_t *o = json_object();
        json_object_set_new(o, "file", ply_json_text(a->file));
        json_object_set_new(o, "laws", ply_json_text(ply_arb_laws_name(a->laws)));
        json_object_set_new(o, "games", ply_json_count(total));
        json_object_set_new(o, "consistent", ply_json_count(consistent));
        json_object_set_new(o, "inconsistent", ply_json_count(inconsistent));
        json_object_set_new(o, "unreadable", ply_json_count(broken));
        json_object_set_new(o, "results", games);
        json_object_set_new(o, "errors", errors);
        ply_json_dumpf(o, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(o);
    } else {
        printf("%s: %zu game%s, %zu consistent, %zu inconsistent, %zu unreadable (laws %s)\n",
               a->file, total, total == 1 ? "" : "s", consistent, inconsistent, broken,
               ply_arb_laws_name(a->laws));
    }
    free(rep);
    ply_arb_game_destroy(&work);
    ply_pgn_reader_destroy(&r);
    return status ? status : consistent == total ? 0 : 1;
}

static int run_fen(const arbiter_args_t *a)
{
    ply_arb_pos_t pos;
    char why[256], fen[PLY_ARB_FEN_MAX], id[PLY_ARB_FEN_MAX];
    int rc = ply_arb_from_fen(&pos, a->fen, a->chess960 ? PLY_ARB_CHESS960 : 0, why, sizeof why);
    if (rc) {
        if (a->json) {
            json_t *o = json_pack("{s:o,s:b,s:s,s:o}", "fen", ply_json_text(a->fen), "valid", 0,
                                  "error", ply_err_name(rc), "why", ply_json_text(why));
            ply_json_dumpf(o, stdout, JSON_INDENT(2));
            printf("\n");
            json_decref(o);
        } else {
            printf("invalid position: %s\n", why);
        }
        return 1;
    }
    ply_arb_game_t *g = ply_arb_game_new(&pos, a->laws);
    if (!g) {
        fprintf(stderr, "ply arbiter: out of memory\n");
        return 1;
    }
    ply_arb_status_t st;
    ply_arb_game_status(g, 1, &st);
    ply_arb_unwin_t *can = calloc(2, sizeof *can);
    if (!can) {
        ply_arb_game_destroy(&g);
        fprintf(stderr, "ply arbiter: out of memory\n");
        return 1;
    }
    for (int s = 0; s < 2; s++) ply_arb_unwinnable_laws(&pos, s, a->laws, a->budget, &can[s]);
    ply_arb_to_fen(&pos, fen, sizeof fen);
    ply_arb_identity(&pos, id, sizeof id);
    const char *result = st.end == PLY_ARB_END_NONE ? ""
                         : st.winner >= 0           ? (st.winner ? "0-1" : "1-0")
                                                    : "1/2-1/2";
    if (a->json) {
        json_t *o = json_object();
        json_object_set_new(o, "fen", ply_json_text(fen));
        json_object_set_new(o, "valid", json_true());
        json_object_set_new(o, "identity", ply_json_text(id));
        json_object_set_new(o, "laws", ply_json_text(ply_arb_laws_name(a->laws)));
        json_object_set_new(o, "chess960", json_boolean(pos.chess960));
        json_object_set_new(o, "side_to_move", ply_json_text(side_name(pos.side)));
        json_object_set_new(o, "in_check", json_boolean(st.in_check));
        json_object_set_new(o, "legal_moves", json_integer(st.legal_moves));
        json_object_set_new(
            o, "state",
            ply_json_text(st.end == PLY_ARB_END_NONE ? "playing" : ply_arb_end_name(st.end)));
        json_object_set_new(o, "article", str_or_null(ply_arb_end_article(st.end, a->laws)));
        json_object_set_new(o, "result", str_or_null(result));
        json_object_set_new(o, "proof", str_or_null(st.proof));
        json_object_set_new(o, "halfmove_clock", json_integer(st.halfmove));
        json_object_set_new(o, "fifty_claim_now", json_boolean(st.fifty_now));
        json_object_set_new(o, "fifty_claim_move", str_or_null(st.fifty_move));
        json_t *cm = json_object();
        for (int s = 0; s < 2; s++) {
            json_t *one =
                json_pack("{s:s,s:s}", "answer", mate_word(can[s].verdict), "proof", can[s].proof);
            unwin_json(one, &pos, &can[s]);
            json_object_set_new(cm, side_name(s), one);
        }
        json_object_set_new(o, "can_mate", cm);
        ply_json_dumpf(o, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(o);
    } else {
        printf("position: %s\nvalid: yes%s\nidentity: %s\n", fen, pos.chess960 ? " (Chess960)" : "",
               id);
        printf("to move: %s%s, %d legal move%s\n", side_name(pos.side),
               st.in_check ? " (in check)" : "", st.legal_moves, st.legal_moves == 1 ? "" : "s");
        if (st.end != PLY_ARB_END_NONE)
            printf("state: %s (%s), %s%s%s\n", ply_arb_end_name(st.end),
                   ply_arb_end_article(st.end, a->laws), result, st.proof[0] ? ": " : "", st.proof);
        else
            printf("state: the game goes on\n");
        if (st.fifty_now)
            printf("fifty-move rule: %d plies without pawn move or capture: %s may claim a draw "
                   "(art. 9.3(b))\n",
                   st.halfmove, side_name(pos.side));
        else if (st.fifty_by_move)
            printf("fifty-move rule: %s may claim a draw by writing %s (art. 9.3(a))\n",
                   side_name(pos.side), st.fifty_move);
        for (int s = 0; s < 2; s++)
            printf("%s can still mate: %s (%s) [%s, %llu nodes, %.3f ms]\n", side_name(s),
                   mate_word(can[s].verdict), can[s].proof, ply_arb_method_name(can[s].method),
                   (unsigned long long)can[s].nodes, can[s].elapsed_us / 1000.0);
    }
    free(can);
    ply_arb_game_destroy(&g);
    return 0;
}

int ply_cmd_arbiter(int argc, char **argv)
{
    enum {
        OPT_LAWS = 256,
        OPT_FLAG,
        OPT_FEN,
        OPT_JSON,
        OPT_CHESS960,
        OPT_EXPORT,
        OPT_BUDGET,
        OPT_NOTATION
    };
    static const struct option longopts[] = {
        {"laws", required_argument, NULL, OPT_LAWS},
        {"flag", required_argument, NULL, OPT_FLAG},
        {"fen", required_argument, NULL, OPT_FEN},
        {"json", no_argument, NULL, OPT_JSON},
        {"chess960", no_argument, NULL, OPT_CHESS960},
        {"export", no_argument, NULL, OPT_EXPORT},
        {"unwinnable-budget", required_argument, NULL, OPT_BUDGET},
        {"notation", required_argument, NULL, OPT_NOTATION},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    arbiter_args_t a = {NULL, NULL, PLY_ARB_FIDE2000, -1, 0, 0, 0, -1, 0};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_LAWS:
            if (ply_arb_laws_parse(optarg, &a.laws))
                return ply_usage_error("arbiter", "--laws '%s' must be fide2000 or fide2023",
                                       optarg);
            break;
        case OPT_FLAG:
            if (!strcmp(optarg, "white"))
                a.flag = 0;
            else if (!strcmp(optarg, "black"))
                a.flag = 1;
            else
                return ply_usage_error("arbiter", "--flag '%s' must be white or black", optarg);
            break;
        case OPT_FEN:
            a.fen = optarg;
            break;
        case OPT_JSON:
            a.json = 1;
            break;
        case OPT_CHESS960:
            a.chess960 = 1;
            break;
        case OPT_EXPORT:
            a.export = 1;
            break;
        case OPT_NOTATION:
            if (!strcmp(optarg, "san"))
                a.notation = PLY_ARB_NOTATION_SAN;
            else if (!strcmp(optarg, "lan"))
                a.notation = PLY_ARB_NOTATION_LAN;
            else if (!strcmp(optarg, "fide"))
                a.notation = PLY_ARB_NOTATION_FIDE;
            else
                return ply_usage_error("arbiter", "--notation '%s' must be san, lan or fide",
                                       optarg);
            break;
        case OPT_BUDGET: {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (errno || end == optarg || *end || v == 0 || optarg[0] == '-')
                return ply_usage_error(
                    "arbiter", "--unwinnable-budget '%s' must be a number of nodes >= 1", optarg);
            a.budget = v;
            break;
        }
        case 'h':
            usage(stdout);
            return 0;
        case ':':
            return ply_usage_error("arbiter", "option '%s' needs a value", argv[optind - 1]);
        default:
            return ply_usage_error("arbiter", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) a.file = argv[optind++];
    if (optind < argc)
        return ply_usage_error("arbiter", "one file at a time ('%s' is extra)", argv[optind]);
    if (a.fen && a.file)
        return ply_usage_error("arbiter", "give a file or --fen, not both ('%s')", a.file);
    if (!a.fen && !a.file)
        return ply_usage_error("arbiter", "%s", "a PGN file or --fen FEN is required");
    if (a.export && (a.fen || a.json || a.flag >= 0))
        return ply_usage_error("arbiter", "%s",
                               "--export re-writes a PGN file: not with --fen, --json or --flag");
    if (a.notation >= 0 && !a.export)
        return ply_usage_error("arbiter", "%s", "--notation applies to --export");
    if (a.notation < 0) a.notation = PLY_ARB_NOTATION_SAN;
    if (a.fen && a.flag >= 0)
        return ply_usage_error("arbiter", "%s", "--flag applies to games, not to --fen");
    if (a.file && a.chess960)
        return ply_usage_error("arbiter", "%s",
                               "--chess960 applies to --fen (games say so in a Variant tag)");
    return a.fen ? run_fen(&a) : run_file(&a);
}
