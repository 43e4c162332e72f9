/*
 * Legal move generation API (see movegen.h): the generator body of
 * movegen_body.h instantiated once for listing and once for counting, plus
 * UCI notation.
 */
#include "board/movegen.h"

#include <string.h>

#include "board/movegen_body.h"
#include "util/error.h"

int ply_board_legal_moves(const ply_board_t *b, ply_move_t *moves) { return ply__generate(b, moves, PLY__GEN_LIST); }

int ply_board_noisy_moves(const ply_board_t *b, ply_move_t *moves) { return ply__generate(b, moves, PLY__GEN_NOISY); }

int ply_board_count_legal(const ply_board_t *b) { return ply__generate(b, NULL, PLY__GEN_COUNT); }

int ply_board_move_to_uci(const ply_board_t *b, ply_move_t m, char *buf)
{
    int from = ply_move_from(m), to = ply_move_to(m), n = 4;
    if (ply_move_kind(m) == PLY_MOVE_CASTLE && !b->chess960)
        to = PLY_SQ(to > from ? 6 : 2, PLY_RANK(from)); /* e1g1 rather than e1h1 */
    buf[0] = (char)('a' + PLY_FILE(from));
    buf[1] = (char)('1' + PLY_RANK(from));
    buf[2] = (char)('a' + PLY_FILE(to));
    buf[3] = (char)('1' + PLY_RANK(to));
    if (ply_move_is_promo(m)) buf[n++] = " pnbrqk"[ply_move_promo(m)];
    buf[n] = '\0';
    return n;
}

int ply_board_move_from_uci(const ply_board_t *b, const char *uci, ply_move_t *out)
{
    size_t len = uci ? strlen(uci) : 0;
    if (len < 4 || len > 5 || uci[0] < 'a' || uci[0] > 'h' || uci[1] < '1' || uci[1] > '8' ||
        uci[2] < 'a' || uci[2] > 'h' || uci[3] < '1' || uci[3] > '8' ||
        (len == 5 && !strchr("nbrq", uci[4])))
        return PLY_EPARSE;
    int from = PLY_SQ(uci[0] - 'a', uci[1] - '1'), to = PLY_SQ(uci[2] - 'a', uci[3] - '1');
    ply_move_t moves[PLY_MAX_MOVES];
    int n = ply_board_legal_moves(b, moves);
    for (int i = 0; i < n; i++) {
        ply_move_t m = moves[i];
        if (ply_move_from(m) != from) continue;
        int promo_ok = len == 5 ? ply_move_is_promo(m) && " pnbrqk"[ply_move_promo(m)] == uci[4]
                                : !ply_move_is_promo(m);
        if (!promo_ok) continue;
        int mto = ply_move_to(m);
        if (ply_move_kind(m) == PLY_MOVE_CASTLE) {
            /* king takes rook (Chess960 UCI) or king to its square (standard UCI) */
            int kto = PLY_SQ(mto > from ? 6 : 2, PLY_RANK(from));
            if (to != mto && to != kto) continue;
            /* In Chess960 "king to g1" could also be a plain king move; prefer that. */
            if (to == kto && to != mto) {
                int plain = 0;
                for (int j = 0; j < n; j++)
                    if (ply_move_from(moves[j]) == from && ply_move_to(moves[j]) == to &&
                        ply_move_kind(moves[j]) != PLY_MOVE_CASTLE)
                        plain = 1;
                if (plain) continue;
            }
        } else if (mto != to) {
            continue;
        }
        *out = m;
        return 0;
    }
    return PLY_EILLEGAL;
}
