/*
 * Notation out of the rule engine (notation.h): a game's plies as SAN, UCI and FEN, a game
 * re-written as clean PGN, and `ply san`.
 */
#include "notation.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/arbiter.h"
#include "commands.h"
#include "arbiter/san.h"
#include "util/error.h"
#include "util/json_exact.h"

/* The move @text read in @pos, made; its SAN (with check marks) into @san, the same in
 * @style into @styled, and its UCI into @uci, each when not NULL. 0, or the reader's error
 * with its reason in @why. */
static int play(ply_arb_pos_t *pos, const char *text, char *san, ply_arb_notation_t style,
                char *styled, char *uci, char *why, size_t why_len)
{
    ply_arb_move_t m;
    int rc = ply_arb_move_from_san(pos, text, &m, why, why_len);
    if (rc) return rc;
    if (san && ply_arb_move_to_san(pos, m, san, PLY_ARB_SAN_MAX) < 0)
        return ply_why(why, why_len, PLY_EILLEGAL, "cannot write '%s' in SAN", text);
    if (styled && ply_arb_move_to_text(pos, m, style, styled, PLY_ARB_SAN_MAX) < 0)
        return ply_why(why, why_len, PLY_EILLEGAL, "cannot write '%s'", text);
    if (uci) ply_arb_move_to_uci(pos, m, uci);
    ply_arb_make(pos, m);
    return 0;
}

json_t *ply_notation_plies_json(const ply_pgn_game_t *g)
{
    ply_arb_pos_t pos;
    if (ply_pgn_game_start(g, &pos, NULL, 0)) return NULL;
    json_t *a = json_array();
    int ply = 0;
    for (size_t i = 0; a && i < g->nelems; i++) {
        const ply_pgn_elem_t *e = &g->elems[i];
        if (e->kind != PLY_PGN_MOVE || e->depth != 0) continue;
        char san[PLY_ARB_SAN_MAX], uci[6], fen[PLY_ARB_FEN_MAX];
        if (play(&pos, e->text, san, 0, NULL, uci, NULL, 0)) break; /* the report says why */
        ply_arb_to_fen(&pos, fen, sizeof fen);
        json_array_append_new(
            a, json_pack("{s:i,s:s,s:s,s:s}", "ply", ++ply, "san", san, "uci", uci, "fen", fen));
    }
    return a;
}

int ply_notation_export(FILE *out, const ply_pgn_game_t *g, ply_arb_notation_t style, char *why,
                        size_t why_len)
{
    /* per variation depth: the position now, and the one before its last move (where a
     * variation that follows that move starts) */
    typedef struct level {
        ply_arb_pos_t now, before;
        int ply; /* plies of this line from the game's start, for messages */
    } level_t;
    level_t *lv = malloc((PLY_PGN_DEPTH_MAX + 1) * sizeof *lv);
    ply_pgn_game_t *clean = ply_pgn_game_new();
    int rc = lv && clean ? 0 : PLY_ENOMEM;
    if (!rc) rc = ply_pgn_game_start(g, &lv[0].now, why, why_len);
    if (!rc) lv[0].before = lv[0].now, lv[0].ply = 0;
    for (size_t t = 0; !rc && t < g->ntags; t++)
        rc = ply_pgn_game_set_tag(clean, g->tags[t].name, g->tags[t].value);
    int d = 0;
    for (size_t i = 0; !rc && i < g->nelems; i++) {
        const ply_pgn_elem_t *e = &g->elems[i];
        char san[PLY_ARB_SAN_MAX], reason[200];
        switch (e->kind) {
        case PLY_PGN_MOVE:
            lv[d].before = lv[d].now;
            rc = play(&lv[d].now, e->text, NULL, style, san, NULL, reason, sizeof reason);
            lv[d].ply++;
            if (rc)
                ply_why(why, why_len, rc, "game %zu, ply %d%s (line %ld): '%s': %s", g->number,
                        lv[d].ply, d ? " of a variation" : "", e->line, e->text, reason);
            else
                rc = ply_pgn_game_add(clean, PLY_PGN_MOVE, san, 0);
            break;
        case PLY_PGN_VAR_START:
            if (d >= PLY_PGN_DEPTH_MAX) {
                rc = ply_why(why, why_len, PLY_EPARSE, "game %zu: variations nested too deep",
                             g->number);
                break;
            }
            /* an alternative to the move before it: from the position that move left */
            lv[d + 1].now = lv[d + 1].before = lv[d].before;
            lv[d + 1].ply = lv[d].ply - 1;
            d++;
            rc = ply_pgn_game_add(clean, e->kind, "", 0);
            break;
        case PLY_PGN_VAR_END:
            if (d > 0) d--;
            rc = ply_pgn_game_add(clean, e->kind, "", 0);
            break;
        case PLY_PGN_NAG:
            rc = ply_pgn_game_add(clean, e->kind, "", e->nag);
            break;
        default: /* comments, kept as read */
            rc = ply_pgn_game_add(clean, e->kind, e->text, 0);
            break;
        }
        if (rc == PLY_EINVAL)
            rc = ply_why(why, why_len, PLY_EPARSE, "game %zu: bad movetext", g->number);
    }
    if (!rc) rc = ply_pgn_game_set_result(clean, g->result ? g->result : "*");
    if (!rc) rc = ply_pgn_write(out, clean);
    if (rc == PLY_ENOMEM) ply_why(why, why_len, rc, "out of memory");
    if (rc == PLY_EIO) ply_why(why, why_len, rc, "write error");
    ply_pgn_game_destroy(&clean);
    free(lv);
    return rc;
}

/* ---- ply san ------------------------------------------------------------------------ */

static void san_usage(FILE *f)
{
    fprintf(f, "usage: ply san [--fen FEN] [--chess960] [--to san|lan|fide|uci] [--json] MOVE...\n"
               "\n"
               "Reads moves in any notation the rule engine reads (SAN such as Nf3, exd5,\n"
               "O-O, e8=Q; long algebraic such as Ng1-f3; the FIDE spelling such as e8Q,\n"
               "0-0; UCI such as g1f3, e7e8q), plays them one after another from the\n"
               "position, and prints each in SAN (with check marks) and in UCI. A move that\n"
               "is not legal stops with the reason.\n"
               "\n"
               "      --fen FEN     the position (FEN, X-FEN or Shredder-FEN; default: the\n"
               "                    start position)\n"
               "      --chess960    read KQkq as X-FEN, castle by Chess960 rules (UCI castles\n"
               "                    as king takes rook)\n"
               "      --to N        print the moves in one notation only, one move a line:\n"
               "                    san (Nf3, e8=Q, O-O), lan (long algebraic: Ng1-f3,\n"
               "                    e5xd6, e7-e8=Q), fide (the Laws' spelling: e8Q, 0-0) or\n"
               "                    uci (default: SAN and UCI, with the move numbers)\n"
               "      --json        one JSON object: the start FEN and, per move, its SAN, UCI\n"
               "                    and the FEN after it (with --to lan or fide, that form too)\n"
               "  -h, --help        this text\n"
               "\n"
               "Exit status: 0 every move legal, 1 a move that is not, 2 usage or a bad FEN.\n");
}

int ply_cmd_san(int argc, char **argv)
{
    enum { O_FEN = 256, O_960, O_TO, O_JSON };
    static const struct option opts[] = {
        {"fen", required_argument, NULL, O_FEN}, {"chess960", no_argument, NULL, O_960},
        {"to", required_argument, NULL, O_TO},   {"json", no_argument, NULL, O_JSON},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0}};
    const char *fen = NULL;
    int chess960 = 0, json = 0, to = 0; /* 0 both, 1 san, 2 uci, 3 lan or fide (@style) */
    ply_arb_notation_t style = PLY_ARB_NOTATION_SAN;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case O_FEN:
            fen = optarg;
            break;
        case O_960:
            chess960 = 1;
            break;
        case O_JSON:
            json = 1;
            break;
        case O_TO:
            if (!strcmp(optarg, "san"))
                to = 1;
            else if (!strcmp(optarg, "uci"))
                to = 2;
            else if (!strcmp(optarg, "lan") || !strcmp(optarg, "fide")) {
                to = 3;
                style = optarg[0] == 'l' ? PLY_ARB_NOTATION_LAN : PLY_ARB_NOTATION_FIDE;
            } else {
                fprintf(stderr, "ply san: --to %s: expected san, lan, fide or uci\n", optarg);
                return 2;
            }
            break;
        case 'h':
            san_usage(stdout);
            return 0;
        default:
            san_usage(stderr);
            return 2;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "ply san: no move given (ply san --help)\n");
        return 2;
    }
    ply_arb_pos_t pos;
    char why[256], text[PLY_ARB_FEN_MAX];
    if (fen) {
        int rc = ply_arb_from_fen(&pos, fen, chess960 ? PLY_ARB_CHESS960 : 0, why, sizeof why);
        if (rc) {
            fprintf(stderr, "ply san: --fen: %s\n", why);
            return 2;
        }
    } else {
        ply_arb_startpos(&pos);
        pos.chess960 = (uint8_t)chess960;
    }
    json_t *moves = json ? json_array() : NULL, *o = NULL;
    if (json) {
        ply_arb_to_fen(&pos, text, sizeof text);
        o = json_pack("{s:s}", "fen", text);
    }
    int status = 0;
    for (int i = optind; i < argc; i++) {
        char san[PLY_ARB_SAN_MAX], styled[PLY_ARB_SAN_MAX], uci[6];
        int number = pos.fullmove, black = pos.side;
        if (play(&pos, argv[i], san, style, styled, uci, why, sizeof why)) {
            fprintf(stderr, "ply san: move %d, '%s': %s\n", i - optind + 1, argv[i], why);
            if (json)
                json_object_set_new(o, "error",
                                    json_pack("{s:i,s:o,s:o}", "move", i - optind + 1, "text",
                                              ply_json_text(argv[i]), "why", ply_json_text(why)));
            status = 1;
            break;
        }
        if (json) {
            ply_arb_to_fen(&pos, text, sizeof text);
            json_t *m = json_pack("{s:s,s:s,s:s}", "san", san, "uci", uci, "fen", text);
            if (to == 3)
                json_object_set_new(m, style == PLY_ARB_NOTATION_LAN ? "lan" : "fide",
                                    json_string(styled));
            json_array_append_new(moves, m);
        } else if (to == 3) {
            printf("%s\n", styled);
        } else if (to == 1) {
            printf("%s\n", san);
        } else if (to == 2) {
            printf("%s\n", uci);
        } else {
            char num[16];
            snprintf(num, sizeof num, "%d.%s", number, black ? ".." : "");
            printf("%-7s %-8s %s\n", num, san, uci);
        }
    }
    if (json) {
        json_object_set_new(o, "moves", moves);
        ply_json_dumpf(o, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(o);
    }
    return status;
}
