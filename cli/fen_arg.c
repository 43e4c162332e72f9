/*
 * The one FEN reader of the ply commands (commands.h): the rule engine's
 * validation (common/arbiter/fen.c), applied in the client before anything
 * is sent, so that every command accepts and refuses the same positions and
 * the protocol's own limits (128 printable bytes) only ever see the
 * canonical form, which fits them.
 */
#include <stdio.h>

#include "arbiter/arbiter.h"
#include "commands.h"

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
