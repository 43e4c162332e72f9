/*
 * The one FEN reader of the ply commands (commands.h): the rule engine's
 * validation (common/arbiter/fen.c), applied in the client before anything
 * is sent, so that every command accepts and refuses the same positions and
 * the protocol's own limits (128 printable bytes) only ever see the
 * canonical form, which fits them. A position with moves played from it
 * (position.h) is read here too, for the same reason.
 */
#include <stdio.h>
#include <string.h>

#include "arbiter/arbiter.h"
#include "commands.h"
#include "position.h"
#include "util/error.h"

int ply_cli_fen(const char *fen, int chess960, char *out, size_t len, char *why, size_t why_len)
{
    ply_arb_pos_t pos;
    int rc = ply_arb_from_fen(&pos, fen, chess960 ? PLY_ARB_CHESS960 : 0, why, why_len);
    if (rc < 0) return rc;
    rc = ply_arb_to_fen(&pos, out, len);
    if (rc < 0) snprintf(why, why_len, "position too long to write");
    return rc < 0 ? rc : 0;
}

int ply_cli_read_fen(const char *cmd, const char *fen, int chess960, char *out, size_t len)
{
    char why[256];
    if (ply_cli_fen(fen, chess960, out, len, why, sizeof why) == 0) return 0;
    fprintf(stderr, "ply %s: bad position: %s\n", cmd, why);
    return 2;
}

/* ---- a position with moves (position.h) ------------------------------------------- */

int ply_cli_position(const char *fen, const char *moves, int chess960, ply_cli_position_t *out,
                     char *why, size_t why_len)
{
    int rc = ply_cli_fen(fen, chess960, out->root, sizeof out->root, why, why_len);
    if (rc < 0) return rc;
    ply_arb_from_fen(&out->pos, out->root, chess960 ? PLY_ARB_CHESS960 : 0, NULL, 0);
    out->chess960 = out->pos.chess960;
    out->nmoves = 0;
    const char *p = moves ? moves : "";
    while (*p) {
        size_t skip = strspn(p, " \t\n,"), n = strcspn(p + skip, " \t\n,");
        const char *m = p + skip;
        p = m + n;
        if (!n) break;
        if (out->nmoves == PLY_CLI_MAX_MOVES)
            return ply_why(why, why_len, PLY_ERANGE, "more than %d history moves",
                           PLY_CLI_MAX_MOVES);
        char text[16], here[PLY_ARB_FEN_MAX];
        snprintf(text, sizeof text, "%.*s", n < 15 ? (int)n : 15, m);
        ply_arb_move_t mv;
        ply_arb_to_fen(&out->pos, here, sizeof here);
        if (n > 5 || ply_arb_move_from_uci(&out->pos, text, &mv) < 0)
            return ply_why(why, why_len, PLY_EILLEGAL,
                           "history move %zu (%.*s): not a legal move (in UCI) in %s",
                           out->nmoves + 1, (int)n, m, here);
        ply_arb_move_to_uci(&out->pos, mv, out->moves[out->nmoves]);
        out->move_ptrs[out->nmoves] = out->moves[out->nmoves];
        out->nmoves++;
        ply_arb_make(&out->pos, mv);
    }
    ply_arb_to_fen(&out->pos, out->fen, sizeof out->fen);
    return 0;
}

int ply_cli_read_position(const char *cmd, const char *fen_opt, char *const *words, int nwords,
                          const char *moves_opt, int chess960, ply_cli_position_t *out)
{
    char fen[512] = "", moves[8192] = "";
    int i = 0, in_moves = 0;
    for (; i < nwords; i++) {
        if (!strcmp(words[i], "moves")) {
            if (in_moves) return ply_usage_error(cmd, "%s", "'moves' given twice");
            in_moves = 1;
            continue;
        }
        char *dst = in_moves ? moves : fen;
        size_t cap = in_moves ? sizeof moves : sizeof fen;
        if (strlen(dst) + strlen(words[i]) + 2 > cap)
            return ply_usage_error(cmd, "%s", in_moves ? "too many moves" : "position too long");
        if (dst[0]) strcat(dst, " ");
        strcat(dst, words[i]);
    }
    if (fen[0] && fen_opt) return ply_usage_error(cmd, "two positions given: --fen and '%s'", fen);
    if (in_moves && !moves[0]) return ply_usage_error(cmd, "%s", "'moves' without a move");
    if (in_moves && moves_opt)
        return ply_usage_error(cmd, "%s", "moves given twice: 'moves ...' and --moves");
    char why[512];
    int rc = ply_cli_position(fen[0]    ? fen
                              : fen_opt ? fen_opt
                                        : "startpos",
                              in_moves ? moves : moves_opt, chess960, out, why, sizeof why);
    if (rc == 0) return 0;
    fprintf(stderr, "ply %s: bad position: %s\n", cmd, why);
    return 2;
}
