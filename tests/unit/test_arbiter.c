/*
 * Unit tests of the arbiter (common/arbiter): perft against public suites,
 * detailed statistics against the Grand Chess Tree, FEN validation (one test
 * per error class), a fuzz of the FEN reader, position identity (art. 9.2),
 * UCI round trips and castling-right bookkeeping.
 *
 * Every expected number comes from an independent source named next to it:
 * the files in tests/data (see PROVENANCE.md) or Stockfish 15.1 (Debian's
 * /usr/games/stockfish, "go perft", UCI_Chess960 true for Chess960), run by
 * hand when the test was written.
 *
 * Run without arguments (or "quick") for the quick group (ctest label
 * quick); with the argument "slow" for the deeper counts (label slow). A
 * second argument selects tests by name pattern (cmocka_set_test_filter).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "arbiter/arbiter.h"
#include "util/error.h"
#include "util/stats.h"
#include "test_rng.h"

#define DATA(name) PLY_TEST_DATA "/" name
#define MAXD       16

/* ---------------------------------------------------------------- helpers */

typedef struct suite_pos {
    char id[64];
    char fen[160];
    int nd;
    int depth[MAXD];
    uint64_t count[MAXD];
} suite_pos_t;

typedef struct suite {
    suite_pos_t *pos;
    int n;
} suite_t;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = 0;
    fclose(f);
    return buf;
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\r' || s[n - 1] == '\t')) s[--n] = 0;
    size_t i = 0;
    while (s[i] == ' ' || s[i] == '\t') i++;
    memmove(s, s + i, strlen(s + i) + 1);
}

static suite_pos_t *suite_add(suite_t *s)
{
    s->pos = realloc(s->pos, sizeof *s->pos * (size_t)(s->n + 1));
    assert_non_null(s->pos);
    memset(&s->pos[s->n], 0, sizeof *s->pos);
    return &s->pos[s->n++];
}

/* EPD with perft opcodes, both spellings in tests/data:
 * "FEN ;D1 20 ;D2 400" (perftsuite, ethereal) and "FEN; D1 5; D2 25" (GCT). */
static suite_t load_epd(const char *path)
{
    suite_t s = {NULL, 0};
    char *text = slurp(path), *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *semi = strchr(line, ';');
        if (!semi) continue;
        suite_pos_t *p = suite_add(&s);
        *semi = 0;
        snprintf(p->fen, sizeof p->fen, "%s", line);
        trim(p->fen);
        snprintf(p->id, sizeof p->id, "%s:%d", strrchr(path, '/') + 1, s.n);
        char *save2 = NULL;
        for (char *op = strtok_r(semi + 1, ";", &save2); op; op = strtok_r(NULL, ";", &save2)) {
            int d;
            uint64_t c;
            if (sscanf(op, " D%d %" SCNu64, &d, &c) == 2 && p->nd < MAXD) {
                p->depth[p->nd] = d;
                p->count[p->nd++] = c;
            }
        }
    }
    free(text);
    return s;
}

/* python-chess's block format: "id NAME", "epd FEN", "perft DEPTH COUNT". */
static suite_t load_tricky(const char *path)
{
    suite_t s = {NULL, 0};
    suite_pos_t *p = NULL;
    char *text = slurp(path), *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        trim(line);
        int d;
        uint64_t c;
        if (strncmp(line, "id ", 3) == 0) {
            p = suite_add(&s);
            snprintf(p->id, sizeof p->id, "%s", line + 3);
        } else if (p && strncmp(line, "epd ", 4) == 0) {
            snprintf(p->fen, sizeof p->fen, "%s", line + 4);
        } else if (p && sscanf(line, "perft %d %" SCNu64, &d, &c) == 2 && p->nd < MAXD) {
            p->depth[p->nd] = d;
            p->count[p->nd++] = c;
        }
    }
    free(text);
    return s;
}

static void load(ply_arb_pos_t *pos, const char *fen, unsigned flags)
{
    char why[160];
    int rc = ply_arb_from_fen(pos, fen, flags, why, sizeof why);
    if (rc != 0) fail_msg("from_fen(%s) = %d: %s", fen, rc, why);
}

/* Checks perft(depth) for every listed depth with count <= limit. */
static uint64_t check_perft_upto(const suite_pos_t *p, unsigned flags, uint64_t lo, uint64_t hi)
{
    ply_arb_pos_t pos;
    uint64_t total = 0;
    load(&pos, p->fen, flags);
    for (int i = 0; i < p->nd; i++) {
        if (p->count[i] < lo || p->count[i] > hi) continue;
        uint64_t got = ply_arb_perft(&pos, p->depth[i]);
        if (got != p->count[i])
            fail_msg("%s: %s perft %d = %" PRIu64 ", expected %" PRIu64, p->id, p->fen, p->depth[i],
                     got, p->count[i]);
        total += got;
    }
    return total;
}

/* Checks one listed depth: the deepest (@deepest) or the shallowest whose
 * count is within [lo, hi]. Returns the count checked, 0 when none fits. */
static uint64_t check_one_depth(const suite_pos_t *p, unsigned flags, uint64_t lo, uint64_t hi,
                                int deepest)
{
    int best = -1;
    for (int i = 0; i < p->nd; i++) {
        if (p->count[i] < lo || p->count[i] > hi) continue;
        if (best < 0 || (deepest ? p->depth[i] > p->depth[best] : p->depth[i] < p->depth[best]))
            best = i;
    }
    if (best < 0) return 0;
    suite_pos_t one = *p;
    one.nd = 1;
    one.depth[0] = p->depth[best];
    one.count[0] = p->count[best];
    return check_perft_upto(&one, flags, 0, UINT64_MAX);
}

static void check_depths(const suite_pos_t *p, unsigned flags, int dmin, int dmax)
{
    ply_arb_pos_t pos;
    load(&pos, p->fen, flags);
    for (int i = 0; i < p->nd; i++) {
        if (p->depth[i] < dmin || p->depth[i] > dmax) continue;
        uint64_t got = ply_arb_perft(&pos, p->depth[i]);
        if (got != p->count[i])
            fail_msg("%s: %s perft %d = %" PRIu64 ", expected %" PRIu64, p->id, p->fen, p->depth[i],
                     got, p->count[i]);
    }
}

static uint64_t perft_fen(const char *fen, unsigned flags, int depth)
{
    ply_arb_pos_t pos;
    load(&pos, fen, flags);
    return ply_arb_perft(&pos, depth);
}

/* --------------------------------------------------------- perft: suites */

/* tests/data/perftsuite.epd (sunfish; agrees with Stockfish 15.1): all 126
 * positions, every depth up to 4 (quick) or 5 (slow). */
static void test_perftsuite_d4(void **state)
{
    (void)state;
    suite_t s = load_epd(DATA("perftsuite.epd"));
    assert_int_equal(s.n, 126);
    for (int i = 0; i < s.n; i++) check_depths(&s.pos[i], 0, 1, 4);
    free(s.pos);
}

static void test_perftsuite_d5(void **state)
{
    (void)state;
    suite_t s = load_epd(DATA("perftsuite.epd"));
    for (int i = 0; i < s.n; i++) check_depths(&s.pos[i], 0, 5, 5);
    free(s.pos);
}

/* tests/data/ethereal-fischer.epd (Ethereal; the 960 Chess960 starts after a
 * few moves, Shredder-FEN; agrees with Stockfish 15.1): all, depths 1-3
 * (quick) and depth 4 (slow). */
static void test_fischer_d3(void **state)
{
    (void)state;
    suite_t s = load_epd(DATA("ethereal-fischer.epd"));
    assert_int_equal(s.n, 960);
    for (int i = 0; i < s.n; i++) check_depths(&s.pos[i], PLY_ARB_CHESS960, 1, 3);
    free(s.pos);
}

static void test_fischer_d4(void **state)
{
    (void)state;
    suite_t s = load_epd(DATA("ethereal-fischer.epd"));
    for (int i = 0; i < s.n; i++) check_depths(&s.pos[i], PLY_ARB_CHESS960, 4, 4);
    free(s.pos);
}

/* tests/data/gct-client-tests-perft.epd (Grand Chess Tree client tests,
 * including castling rooks captured on their squares; agrees with Stockfish
 * 15.1). Quick: every line at its shallowest listed depth, when that count is
 * at most 5,000,000 (170 of 174 lines). Slow: every line at its deepest
 * listed depth with at most 10,000,000 nodes, or else its shallowest with at
 * most 100,000,000 (173 lines). */
static void test_gct_small(void **state)
{
    (void)state;
    suite_t s = load_epd(DATA("gct-client-tests-perft.epd"));
    int checked = 0;
    assert_int_equal(s.n, 174);
    for (int i = 0; i < s.n; i++) checked += check_one_depth(&s.pos[i], 0, 0, 5000000, 0) > 0;
    /* Four lines list only larger counts: three are in the slow test, the
     * fourth (D6 867,640,754) in test_gct_stockfish_shallow below. */
    assert_int_equal(checked, 170);
    free(s.pos);
}

static void test_gct_large(void **state)
{
    (void)state;
    suite_t s = load_epd(DATA("gct-client-tests-perft.epd"));
    int checked = 0;
    for (int i = 0; i < s.n; i++)
        checked += (check_one_depth(&s.pos[i], 0, 0, 10000000, 1) > 0 ||
                    check_one_depth(&s.pos[i], 0, 0, 100000000, 0) > 0);
    assert_int_equal(checked, 173);
    free(s.pos);
}

/* Shallow counts for the GCT line that lists only a deep count (D6
 * 867,640,754), from Stockfish 15.1 "go perft" (run by hand); depth 5
 * (26,957,954) is in the slow group. */
static void test_gct_stockfish_shallow(void **state)
{
    (void)state;
    const char *deep = "r3k2r/pb3p2/5npp/n2p4/1p1PPB2/6P1/P2N1PBP/R3K2R b KQkq - 0 1";
    assert_int_equal(perft_fen(deep, 0, 1), 29);
    assert_int_equal(perft_fen(deep, 0, 2), 953);
    assert_int_equal(perft_fen(deep, 0, 3), 27990);
    assert_int_equal(perft_fen(deep, 0, 4), 909807);
}

static void test_gct_stockfish_d5(void **state)
{
    (void)state;
    const char *deep = "r3k2r/pb3p2/5npp/n2p4/1p1PPB2/6P1/P2N1PBP/R3K2R b KQkq - 0 1";
    assert_int_equal(perft_fen(deep, 0, 5), 26957954); /* Stockfish 15.1 go perft 5 */
}

/* tests/data/python-chess-tricky.perft (python-chess; 18/19 agree with
 * Stockfish 15.1): every listed depth. The xfen-* positions are Chess960
 * (X-FEN castling). "asymmetrical-and-king-on-h" gives black a 'q' right with
 * the king on h8: not a standard-chess castling right (rejected without the
 * flag), but a valid X-FEN one (rook a8, a-side of the king), and the
 * published counts are those of the Chess960 reading. */
static void test_tricky(void **state)
{
    (void)state;
    suite_t s = load_tricky(DATA("python-chess-tricky.perft"));
    assert_int_equal(s.n, 19);
    for (int i = 0; i < s.n; i++) {
        const suite_pos_t *p = &s.pos[i];
        unsigned flags = strncmp(p->id, "xfen-", 5) == 0 ? PLY_ARB_CHESS960 : 0;
        if (strcmp(p->id, "asymmetrical-and-king-on-h") == 0) {
            ply_arb_pos_t pos;
            char why[160];
            assert_int_equal(ply_arb_from_fen(&pos, p->fen, 0, why, sizeof why), PLY_EILLEGAL);
            assert_non_null(strstr(why, "'q' but the black king is not on e8"));
            flags = PLY_ARB_CHESS960;
        }
        check_perft_upto(p, flags, 0, UINT64_MAX);
    }
    free(s.pos);
}

/* Chess960 castling corner cases, counts from Stockfish 15.1 with
 * UCI_Chess960 true (go perft 1-4, run by hand). */
static void test_chess960_castling(void **state)
{
    (void)state;
    static const struct {
        const char *fen;
        uint64_t n[4];
    } cases[] = {
        /* King stays on g1 (h-side) and castles a-side from g1 with the b1 rook. */
        {"1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1", {24, 479, 10954, 237166}},
        /* The rook stays on d1 while the king goes e1-c1. */
        {"4k3/8/8/8/8/8/8/3RK3 w D - 0 1", {15, 52, 866, 4965}},
        /* King and rook swap (f1/g1). */
        {"7k/8/8/8/8/8/8/5KR1 w G - 0 1", {13, 19, 296, 1089}},
        /* The castling rook on b1 shields c1 from the a1 queen: after O-O-O
         * the king would stand in check, so castling is illegal. */
        {"4k3/8/8/8/8/8/8/qR2K3 w B - 0 1", {8, 146, 1868, 41775}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int d = 1; d <= 4; d++)
            if (perft_fen(cases[i].fen, PLY_ARB_CHESS960, d) != cases[i].n[d - 1])
                fail_msg("%s perft %d", cases[i].fen, d);

    /* The moves themselves: castles appear as king-takes-rook in UCI. */
    ply_arb_pos_t pos;
    ply_arb_move_t mv[PLY_ARB_MAX_MOVES], m;
    char uci[6];
    load(&pos, "1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1", 0);
    assert_int_equal(ply_arb_move_from_uci(&pos, "g1h1", &m), 0);
    assert_true(m.flags & PLY_ARB_MOVE_CASTLE);
    assert_int_equal(m.from, 6);
    assert_int_equal(m.to, 6); /* the king stays on g1 */
    assert_int_equal(ply_arb_move_from_uci(&pos, "g1b1", &m), 0);
    assert_int_equal(m.to, 2);
    ply_arb_move_to_uci(&pos, m, uci);
    assert_string_equal(uci, "g1b1");
    ply_arb_make(&pos, m);
    char fen[PLY_ARB_FEN_MAX];
    ply_arb_to_fen(&pos, fen, sizeof fen);
    assert_string_equal(fen, "1r4kr/8/8/8/8/8/8/2KR3R b hb - 1 1");

    load(&pos, "4k3/8/8/8/8/8/8/qR2K3 w B - 0 1", 0);
    int n = ply_arb_legal_moves(&pos, mv);
    for (int i = 0; i < n; i++) assert_false(mv[i].flags & PLY_ARB_MOVE_CASTLE);
}

/* Hand positions for en passant and castling rights, Stockfish 15.1 go perft. */
static void test_perft_extra(void **state)
{
    (void)state;
    /* Horizontal discovery: bxc6 e.p. would expose a5 to h5. */
    assert_int_equal(perft_fen("8/8/8/KPp4r/8/8/8/7k w - c6 0 2", 0, 4), 4225);
    /* Diagonally pinned capturer: exd6 e.p. leaves the pin line. */
    assert_int_equal(perft_fen("4k3/6b1/8/3pP3/8/2K5/8/8 w - d6 0 1", 0, 4), 6685);
    /* Pinned capturer moving along the pin line: exd6 e.p. is legal. */
    assert_int_equal(perft_fen("4k3/2b5/8/3pP3/8/6K1/8/8 w - d6 0 1", 0, 4), 9341);
    /* Bg2xh1 captures a rook on its castling square. */
    assert_int_equal(perft_fen("r3k2r/8/8/8/8/8/6b1/R3K2R b KQkq - 0 1", 0, 4), 501075);
}

/* ---------------------------------------------------------------- stats */

static void check_stats_file(const char *path, int dmax)
{
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    if (!root) fail_msg("%s: %s", path, err.text);
    ply_arb_pos_t pos;
    load(&pos, json_string_value(json_object_get(root, "position_fen")), 0);
    json_t *results = json_object_get(root, "results");
    size_t i;
    json_t *row;
    int seen = 0;
    json_array_foreach(results, i, row)
    {
        int d = (int)json_integer_value(json_object_get(row, "depth"));
        if (d > dmax) continue;
        ply_stats_t st;
        ply_arb_perft_stats(&pos, d, &st);
        for (int k = 0; k < PLY_STATS_N; k++) {
            json_t *v = json_object_get(row, ply_stats_name(k));
            assert_non_null(v);
            if ((uint64_t)json_integer_value(v) != st.v[k])
                fail_msg("%s depth %d %s: %" PRIu64 ", expected %" JSON_INTEGER_FORMAT, path, d,
                         ply_stats_name(k), st.v[k], json_integer_value(v));
        }
        seen++;
    }
    assert_int_equal(seen, dmax + 1);
    json_decref(root);
}

/* Grand Chess Tree results (tests/data/perft_p*_results.json): start position
 * depths 0-4, Kiwipete 0-3, CPW position 6 0-3 (quick); start position to 6,
 * Kiwipete to 5 and position 6 to 4 (slow). */
static void test_stats_quick(void **state)
{
    (void)state;
    check_stats_file(DATA("perft_p0_results.json"), 4);
    check_stats_file(DATA("perft_p1_results.json"), 3);
    check_stats_file(DATA("perft_p2_results.json"), 3);
}

static void test_stats_slow(void **state)
{
    (void)state;
    check_stats_file(DATA("perft_p0_results.json"), 6);
    check_stats_file(DATA("perft_p1_results.json"), 5);
    check_stats_file(DATA("perft_p2_results.json"), 4);
}

/* Check classification of single leaves, worked out by hand from the
 * definitions in util/stats.h on positions small enough to enumerate. */
static void test_stats_kinds(void **state)
{
    (void)state;
    ply_arb_pos_t pos;
    ply_stats_t st;

    /* White: Ke1, Rh1 (right K); black Kf8. Checks: O-O (the rook arrives on
     * f1: direct, the arrival square is the rook's), Rf1 and Rh8 (direct). */
    load(&pos, "5k2/8/8/8/8/8/8/4K2R w K - 0 1", 0);
    ply_arb_perft_stats(&pos, 1, &st);
    assert_int_equal(st.v[PLY_STAT_nodes], 15);
    assert_int_equal(st.v[PLY_STAT_castles], 1);
    assert_int_equal(st.v[PLY_STAT_direct_checks], 3);
    assert_int_equal(st.v[PLY_STAT_total_checks], 3);
    assert_int_equal(st.v[PLY_STAT_single_discovered_checks], 0);
    assert_int_equal(st.v[PLY_STAT_total_mates], 0);

    /* exd6 e.p. empties d5 and e5, so the a5 rook checks the h5 king: a
     * single discovered check by en passant (the pawn on d6 does not check).
     * Captures: exd6 and Rxd5. */
    load(&pos, "8/8/8/R2pP2k/8/8/8/K7 w - d6 0 1", 0);
    ply_arb_perft_stats(&pos, 1, &st);
    assert_int_equal(st.v[PLY_STAT_enpassants], 1);
    assert_int_equal(st.v[PLY_STAT_captures], 2);
    assert_int_equal(st.v[PLY_STAT_single_discovered_checks], 1);
    assert_int_equal(st.v[PLY_STAT_direct_checks], 0);
    assert_int_equal(st.v[PLY_STAT_total_checks], 1);

    /* The e4 knight uncovers the e1 rook: Nd6+ and Nf6+ also check from their
     * arrival squares (direct discovered), the six other jumps are single
     * discovered checks. */
    load(&pos, "4k3/8/8/8/4N3/8/8/K3R3 w - - 0 1", 0);
    ply_arb_perft_stats(&pos, 1, &st);
    assert_int_equal(st.v[PLY_STAT_single_discovered_checks], 6);
    assert_int_equal(st.v[PLY_STAT_direct_discovered_checks], 2);
    assert_int_equal(st.v[PLY_STAT_double_discovered_checks], 0);
    assert_int_equal(st.v[PLY_STAT_total_checks], 8);

    /* exd6 e.p. empties e5 (opening the e7 rook's file) and d5 (opening the
     * b7 bishop's diagonal) onto the e4 king, and the pawn on d6 does not
     * check: a double discovered check, neither checker on the arrival.
     * The only other check is Bxd5+ (direct). */
    load(&pos, "8/1B2R3/8/3pP3/4k3/8/8/7K w - d6 0 1", 0);
    ply_arb_perft_stats(&pos, 1, &st);
    assert_int_equal(st.v[PLY_STAT_enpassants], 1);
    assert_int_equal(st.v[PLY_STAT_double_discovered_checks], 1);
    assert_int_equal(st.v[PLY_STAT_direct_checks], 1);
    assert_int_equal(st.v[PLY_STAT_total_checks], 2);
    assert_int_equal(st.v[PLY_STAT_total_mates], 0);

    /* Back-rank mates by promotion (Kh8 boxed in by g7, h7): b8=Q and b8=R
     * are direct mates from the promotion square; b8=B and b8=N are quiet. */
    load(&pos, "7k/1P4pp/8/8/8/8/8/K7 w - - 0 1", 0);
    ply_arb_perft_stats(&pos, 1, &st);
    assert_int_equal(st.v[PLY_STAT_promotions], 4);
    assert_int_equal(st.v[PLY_STAT_direct_mates], 2);
    assert_int_equal(st.v[PLY_STAT_total_mates], 2);
    assert_int_equal(st.v[PLY_STAT_total_checks], 0);
}

/* ------------------------------------------------------------ FEN errors */

typedef struct fen_case {
    const char *fen;
    unsigned flags;
    int rc;
    const char *why; /* a substring of the reason */
} fen_case_t;

static void run_fen_cases(const fen_case_t *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ply_arb_pos_t pos;
        char why[200] = "unset";
        int rc = ply_arb_from_fen(&pos, c[i].fen, c[i].flags, why, sizeof why);
        if (rc != c[i].rc || !strstr(why, c[i].why))
            fail_msg("from_fen(\"%s\") = %d \"%s\"; expected %d with \"%s\"", c[i].fen, rc, why,
                     c[i].rc, c[i].why);
    }
}

#define SP "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"

static void test_fen_syntax_errors(void **state)
{
    (void)state;
    static const fen_case_t cases[] = {
        {"", 0, PLY_EFEN, "empty FEN"},
        {"   \t ", 0, PLY_EFEN, "empty FEN"},
        {"start", 0, PLY_EFEN, "wrong field count: 1 field "},
        {SP " w KQkq", 0, PLY_EFEN, "wrong field count: 3 fields"},
        {SP " w KQkq - 0 1 extra", 0, PLY_EFEN, "wrong field count: 7 fields"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", 0, PLY_EFEN,
         "field 1 (placement): bad character 'X'"},
        {"rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0, PLY_EFEN,
         "field 1 (placement): bad character '9'"},
        {"rnbqkbnr/pppppppp/0/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0, PLY_EFEN,
         "bad character '0'"},
        {"rnbqkbnr/pppp\x01ppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0, PLY_EFEN,
         "bad character byte 0x01"},
        {"rnbqkbnrr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0, PLY_EFEN,
         "field 1 (placement): rank 8 has 9 squares"},
        {"rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0, PLY_EFEN,
         "field 1 (placement): rank 7 has 7 squares"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1", 0, PLY_EFEN,
         "rank 1 has 7 squares"},
        /* issue 14: "44" was silently merged into one run of 8 */
        {"rnbqkbnr/pppppppp/8/44/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0, PLY_EFEN,
         "field 1 (placement): rank 5 has two digits in a row ('44')"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1Q11R w KQkq - 0 1", 0, PLY_EFEN,
         "field 1 (placement): rank 1 has two digits in a row ('11')"},
        {"rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0, PLY_EFEN,
         "field 1 (placement): 7 ranks (expected 8)"},
        {"rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0, PLY_EFEN,
         "9 ranks (expected 8)"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/ w KQkq - 0 1", 0, PLY_EFEN, "9 ranks"},
        {SP " x KQkq - 0 1", 0, PLY_EFEN, "field 2 (side to move): 'x' is not w or b"},
        {SP " white KQkq - 0 1", 0, PLY_EFEN, "field 2 (side to move): 'white' is not w or b"},
        {SP " W KQkq - 0 1", 0, PLY_EFEN, "field 2 (side to move)"},
        {SP " w KQkx - 0 1", 0, PLY_EFEN, "field 3 (castling): bad character 'x'"},
        {SP " w KK - 0 1", 0, PLY_EFEN, "field 3 (castling): 'K' appears twice"},
        {SP " w K- - 0 1", 0, PLY_EFEN, "field 3 (castling): bad character '-' ('-' must stand"},
        {SP " w -- - 0 1", 0, PLY_EFEN, "field 3 (castling): bad character '-'"},
        {SP " w KQkq e9 0 1", 0, PLY_EFEN, "field 4 (en passant): 'e9' is not a square or -"},
        {SP " w KQkq z3 0 1", 0, PLY_EFEN, "field 4 (en passant): 'z3' is not a square"},
        {SP " w KQkq e33 0 1", 0, PLY_EFEN, "field 4 (en passant): 'e33' is not a square"},
        {SP " w KQkq E3 0 1", 0, PLY_EFEN, "field 4 (en passant)"},
        {SP " w KQkq e4 0 1", 0, PLY_EFEN, "field 4 (en passant): e4 is not on rank 3 or 6"},
        {SP " w KQkq - x 1", 0, PLY_EFEN, "field 5 (halfmove clock): 'x' is not a number"},
        {SP " w KQkq - -1 1", 0, PLY_EFEN, "field 5 (halfmove clock): '-1' is not a number"},
        {SP " w KQkq - 65536 1", 0, PLY_EFEN, "field 5 (halfmove clock): '65536' is out of range"},
        {SP " w KQkq - 0 1.5", 0, PLY_EFEN, "field 6 (fullmove number): '1.5' is not a number"},
        {SP " w KQkq - 0 99999999999999999999", 0, PLY_EFEN, "field 6 (fullmove number)"},
    };
    run_fen_cases(cases, sizeof cases / sizeof cases[0]);
}

static void test_fen_semantic_errors(void **state)
{
    (void)state;
    static const fen_case_t cases[] = {
        {"rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", 0, PLY_EILLEGAL,
         "field 1 (placement): no black king"},
        {"rnbqkbnr/pppppppp/8/8/8/3k4/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0, PLY_EILLEGAL,
         "field 1 (placement): two black kings"},
        {"kkk5/8/8/8/8/8/8/K7 w - - 0 1", 0, PLY_EILLEGAL, "3 black kings"},
        {"P3k3/8/8/8/8/8/8/4K3 w - - 0 1", 0, PLY_EILLEGAL,
         "field 1 (placement): white pawn on a8"},
        {"4k3/8/8/8/8/8/8/p3K3 w - - 0 1", 0, PLY_EILLEGAL, "black pawn on a1"},
        {"4k2p/8/8/8/8/8/8/4K3 w - - 0 1", 0, PLY_EILLEGAL, "black pawn on h8"},
        {"4k3/8/8/8/8/8/PPPPPPPP/P3K3 w - - 0 1", 0, PLY_EILLEGAL, "white pawn on a1"},
        {"4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1", 0, PLY_EILLEGAL,
         "field 1 (placement): 9 white pawns (at most 8)"},
        {"4k3/8/8/8/8/N7/PPPPPPPP/RNBQKBNR w KQ - 0 1", 0, PLY_EILLEGAL,
         "field 1 (placement): 17 white pieces (at most 16)"},
        {"4k3/8/8/8/8/QQQ5/PPPPPP2/RNBQKBN1 w Q - 0 1", 0, PLY_EILLEGAL,
         "white has 3 pieces beyond the initial set but only 2 pawns could have promoted"},
        {"4k3/8/8/8/8/QQ6/PPPPPP2/RNBQKBNR w KQ - 0 1", 0, 0, ""},
        {"4k3/8/8/8/8/8/8/4R1K1 w - - 0 1", 0, PLY_EILLEGAL,
         "field 2 (side to move): black is not to move but is in check"},
        {"4k3/8/8/8/8/3n1n2/8/r3K3 w - - 0 1", 0, PLY_EILLEGAL,
         "field 1 (placement): white is in check from 3 pieces"},
        {"4k3/8/8/8/8/8/8/3K3R w K - 0 1", 0, PLY_EILLEGAL,
         "field 3 (castling): 'K' but the white king is not on e1"},
        {"4k3/8/8/8/8/8/8/4K3 w K - 0 1", 0, PLY_EILLEGAL,
         "field 3 (castling): 'K' but no white rook on h1"},
        {"4k3/8/8/8/8/8/8/R3K3 w Qq - 0 1", 0, PLY_EILLEGAL,
         "field 3 (castling): 'q' but no black rook on a8"},
        {"4k3/8/8/8/8/8/4K3/7R w K - 0 1", PLY_ARB_CHESS960, PLY_EILLEGAL,
         "field 3 (castling): 'K' but the white king is not on rank 1"},
        {"4k3/8/8/8/8/8/8/R3K3 w K - 0 1", PLY_ARB_CHESS960, PLY_EILLEGAL,
         "field 3 (castling): 'K' but no white rook on the h-side of the king on rank 1"},
        {"4k3/8/8/8/8/8/8/4K3 w G - 0 1", 0, PLY_EILLEGAL,
         "field 3 (castling): 'G' but no white rook on g1"},
        {"4k3/8/8/8/8/8/4K3/6R1 w G - 0 1", 0, PLY_EILLEGAL,
         "field 3 (castling): 'G' but the white king is not on rank 1"},
        {"4k3/8/8/8/8/8/8/4K1RR w KG - 0 1", PLY_ARB_CHESS960, PLY_EILLEGAL,
         "field 3 (castling): 'K' and 'G' both give the white h-side right"},
        {"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1", 0, PLY_EILLEGAL,
         "field 4 (en passant): e3 but white is to move (the square must be on rank 6)"},
        {SP " b KQkq e3 0 1", 0, PLY_EILLEGAL, "field 4 (en passant): e3 but no white pawn on e4"},
        {"rnbqkbnr/pppppppp/8/8/4P3/4N3/PPPP1PPP/RNBQKB1R b KQkq e3 0 1", 0, PLY_EILLEGAL,
         "field 4 (en passant): e3 but e3 is not empty"},
        {"rnbqkbnr/pppppppp/8/8/4P3/8/PPPPNPPP/RNBQKB1R b KQkq e3 0 1", 0, PLY_EILLEGAL,
         "field 4 (en passant): e3 but e2, where the pawn came from, is not empty"},
        {"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 5 1", 0, PLY_EILLEGAL,
         "field 5 (halfmove clock): 5 but the en-passant square"},
        {SP " w KQkq - 0 0", 0, PLY_EILLEGAL, "field 6 (fullmove number): 0"},
    };
    run_fen_cases(cases, sizeof cases / sizeof cases[0]);
}

static void test_fen_accepts(void **state)
{
    (void)state;
    ply_arb_pos_t a, b;
    char fa[PLY_ARB_FEN_MAX], fb[PLY_ARB_FEN_MAX], why[8];

    /* "startpos", surrounding white space, EPD's four fields, and NULLs. */
    ply_arb_startpos(&a);
    assert_int_equal(ply_arb_to_fen(&a, fa, sizeof fa), 56);
    assert_string_equal(fa, SP " w KQkq - 0 1");
    load(&b, "startpos", 0);
    ply_arb_to_fen(&b, fb, sizeof fb);
    assert_string_equal(fa, fb);
    load(&b, "  " SP "\tw  KQkq -\r\n", 0);
    ply_arb_to_fen(&b, fb, sizeof fb);
    assert_string_equal(fa, fb);
    load(&b, SP " w KQkq - 7", 0);
    assert_int_equal(b.halfmove, 7);
    assert_int_equal(b.fullmove, 1);
    assert_int_equal(ply_arb_from_fen(NULL, SP " w - -", 0, why, sizeof why), PLY_EINVAL);
    assert_int_equal(ply_arb_from_fen(&b, NULL, 0, NULL, 0), PLY_EINVAL);

    /* A short @why buffer is truncated, not overrun; a NULL one is fine. */
    assert_int_equal(ply_arb_from_fen(&b, "x", 0, why, sizeof why), PLY_EFEN);
    assert_int_equal(strlen(why), sizeof why - 1);
    assert_int_equal(ply_arb_from_fen(&b, "x", 0, NULL, 0), PLY_EFEN);

    /* On failure the position is untouched. */
    b = a;
    assert_int_equal(ply_arb_from_fen(&b, "4k3/8/8/8/8/8/8/4K3 w K - 0 1", 0, NULL, 0),
                     PLY_EILLEGAL);
    assert_memory_equal(&a, &b, sizeof a);

    /* Buffer sizes for the writers. */
    assert_int_equal(ply_arb_to_fen(&a, fa, 56), PLY_ERANGE);
    assert_int_equal(ply_arb_to_fen(&a, fa, 57), 56);
    assert_int_equal(ply_arb_to_fen(&a, NULL, 0), PLY_ERANGE);
    assert_int_equal(ply_arb_identity(&a, fa, 10), PLY_ERANGE);

    /* Shredder-FEN implies Chess960 and is written back as such; X-FEN KQkq
     * with the flag names the outermost rooks and is written as letters. */
    load(&b, SP " w HAha - 0 1", 0);
    assert_int_equal(b.chess960, 1);
    ply_arb_to_fen(&b, fb, sizeof fb);
    assert_string_equal(fb, SP " w HAha - 0 1");
    load(&b, "rk2r3/8/8/8/8/8/8/RK2R3 w KQkq - 0 1", PLY_ARB_CHESS960);
    ply_arb_to_fen(&b, fb, sizeof fb);
    assert_string_equal(fb, "rk2r3/8/8/8/8/8/8/RK2R3 w EAea - 0 1");
    /* X-FEN: K with two rooks on the h-side is the outer one; an inner one is named by file. */
    load(&b, "4k3/8/8/8/8/8/8/4KRR1 w K - 0 1", PLY_ARB_CHESS960);
    ply_arb_to_fen(&b, fb, sizeof fb);
    assert_string_equal(fb, "4k3/8/8/8/8/8/8/4KRR1 w G - 0 1");
    load(&b, "4k3/8/8/8/8/8/8/4KRR1 w F - 0 1", PLY_ARB_CHESS960);
    ply_arb_to_fen(&b, fb, sizeof fb);
    assert_string_equal(fb, "4k3/8/8/8/8/8/8/4KRR1 w F - 0 1");

    /* The en-passant square is kept even when no capture is possible. */
    load(&b, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", 0);
    ply_arb_to_fen(&b, fb, sizeof fb);
    assert_string_equal(fb, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
}

/* ------------------------------------------------------------ FEN fuzz */

/* Feeds one string to the reader and checks the contract on the outcome. */
static void fuzz_one(const char *s, unsigned flags, int *accepted)
{
    ply_arb_pos_t pos, again;
    char why[96], f1[PLY_ARB_FEN_MAX], f2[PLY_ARB_FEN_MAX];
    memset(why, 'Z', sizeof why);
    int rc = ply_arb_from_fen(&pos, s, flags, why, sizeof why);
    if (rc != 0 && rc != PLY_EFEN && rc != PLY_EILLEGAL) fail_msg("rc %d for \"%s\"", rc, s);
    assert_non_null(memchr(why, 0, sizeof why));
    if (rc != 0) {
        assert_true(why[0] != 0);
        return;
    }
    (*accepted)++;
    /* Whatever is accepted is a position the rest of the API handles. */
    int n = ply_arb_to_fen(&pos, f1, sizeof f1);
    assert_true(n > 0);
    load(&again, f1, flags);
    ply_arb_to_fen(&again, f2, sizeof f2);
    assert_string_equal(f1, f2);
    assert_true(ply_arb_identity(&pos, f2, sizeof f2) > 0);
    load(&again, f2, flags);
    ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
    assert_true(ply_arb_legal_moves(&pos, mv) <= PLY_ARB_MAX_MOVES);
    (void)ply_arb_perft(&pos, 2);
}

static void test_fen_fuzz(void **state)
{
    (void)state;
    static const char alphabet[] = "pnbrqkPNBRQK12345678/ -wbKQkqABCDEFGHabcdefgh0123456789";
    suite_t s = load_epd(DATA("perftsuite.epd"));
    suite_t f = load_epd(DATA("ethereal-fischer.epd"));
    char buf[400];
    int accepted = 0;

    /* Random bytes (never NUL), random FEN-alphabet soup. */
    for (int i = 0; i < 20000; i++) {
        int len = (int)(rng() % 120);
        for (int j = 0; j < len; j++) buf[j] = (char)(1 + rng() % 255);
        buf[len] = 0;
        fuzz_one(buf, (unsigned)(rng() & 1), &accepted);
        for (int j = 0; j < len; j++) buf[j] = alphabet[rng() % (sizeof alphabet - 1)];
        fuzz_one(buf, (unsigned)(rng() & 1), &accepted);
    }
    /* Mutations of valid FENs reach the semantic checks. */
    for (int i = 0; i < 200000; i++) {
        const char *src =
            (i & 1) ? f.pos[rng() % (uint64_t)f.n].fen : s.pos[rng() % (uint64_t)s.n].fen;
        snprintf(buf, sizeof buf, "%s", src);
        int muts = 1 + (int)(rng() % 3);
        for (int m = 0; m < muts; m++) {
            size_t len = strlen(buf);
            size_t at = len ? rng() % len : 0;
            char c = alphabet[rng() % (sizeof alphabet - 1)];
            switch (rng() % 4) {
            case 0: /* replace */
                if (len) buf[at] = c;
                break;
            case 1: /* delete */
                memmove(buf + at, buf + at + 1, len - at);
                break;
            case 2: /* insert */
                if (len + 2 < sizeof buf) {
                    memmove(buf + at + 1, buf + at, len - at + 1);
                    buf[at] = c;
                }
                break;
            default: /* swap with the next character */
                if (at + 1 < len) {
                    char t = buf[at];
                    buf[at] = buf[at + 1];
                    buf[at + 1] = t;
                }
                break;
            }
        }
        fuzz_one(buf, (unsigned)(rng() & 1), &accepted);
    }
    /* The mutations must exercise the accepting path too. */
    assert_true(accepted > 1000);

    /* A very long string. */
    char *big = malloc(1 << 20);
    assert_non_null(big);
    memset(big, '8', (1 << 20) - 1);
    big[(1 << 20) - 1] = 0;
    fuzz_one(big, 0, &accepted);
    for (int i = 0; i < (1 << 20) - 1; i++) big[i] = (i % 9 == 8) ? '/' : ' ';
    fuzz_one(big, 0, &accepted);
    free(big);
    free(s.pos);
    free(f.pos);
}

/* ------------------------------------------------------------ identity */

static void identity_of(const char *fen, char *out)
{
    ply_arb_pos_t pos;
    load(&pos, fen, 0);
    assert_true(ply_arb_identity(&pos, out, PLY_ARB_FEN_MAX) > 0);
}

static void test_identity(void **state)
{
    (void)state;
    char a[PLY_ARB_FEN_MAX], b[PLY_ARB_FEN_MAX];

    /* Art. 9.2: the horizontal case. bxc6 e.p. removes b5 and c5 from the
     * fifth rank and exposes the a5 king to the h5 rook: no legal capture,
     * so the en-passant square does not count. */
    identity_of("8/8/8/KPp4r/8/8/8/7k w - c6 0 2", a);
    assert_string_equal(a, "8/8/8/KPp4r/8/8/8/7k w - -");
    identity_of("8/8/8/KPp4r/8/8/8/7k w - - 3 40", b);
    assert_string_equal(a, b);

    /* A capturer pinned on a diagonal that leaves the pin line. */
    identity_of("4k3/6b1/8/3pP3/8/2K5/8/8 w - d6 0 1", a);
    assert_string_equal(a, "4k3/6b1/8/3pP3/8/2K5/8/8 w - -");
    /* A capturer pinned on the diagonal it captures along: legal, kept. */
    identity_of("4k3/2b5/8/3pP3/8/6K1/8/8 w - d6 0 1", a);
    assert_string_equal(a, "4k3/2b5/8/3pP3/8/6K1/8/8 w - d6");
    /* An ordinary capturable double step. */
    identity_of("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3", a);
    assert_string_equal(a, "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3");
    /* Two capturers on the rank of the king and a rook: either capture
     * leaves the other pawn as a blocker, so e.p. stays legal. */
    identity_of("8/8/8/8/k1pPp2R/8/8/4K3 b - d3 0 1", a);
    assert_string_equal(a, "8/8/8/8/k1pPp2R/8/8/4K3 b - d3");

    /* 1.e4 with no black pawn able to capture: e3 vanishes from the identity,
     * the FEN keeps it. */
    ply_arb_pos_t pos, other;
    ply_arb_move_t m;
    ply_arb_startpos(&pos);
    assert_int_equal(ply_arb_move_from_uci(&pos, "e2e4", &m), 0);
    assert_true(m.flags & PLY_ARB_MOVE_DOUBLE);
    ply_arb_make(&pos, m);
    ply_arb_to_fen(&pos, a, sizeof a);
    assert_string_equal(a, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    ply_arb_identity(&pos, a, sizeof a);
    assert_string_equal(a, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -");

    /* Transposition: 1.Nf3 Nf6 2.Ng1 Ng8 is the start position again. */
    const char *seq[] = {"g1f3", "g8f6", "f3g1", "f6g8"};
    ply_arb_startpos(&pos);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(ply_arb_move_from_uci(&pos, seq[i], &m), 0);
        ply_arb_make(&pos, m);
    }
    ply_arb_startpos(&other);
    ply_arb_identity(&pos, a, sizeof a);
    ply_arb_identity(&other, b, sizeof b);
    assert_string_equal(a, b);

    /* Castling rights are part of the identity, even unusable ones. */
    identity_of("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", a);
    identity_of("r3k2r/8/8/8/8/8/8/R3K2R w Kkq - 0 1", b);
    assert_string_not_equal(a, b);
    /* Rook out and back: same squares, one right fewer. */
    ply_arb_startpos(&pos);
    const char *seq2[] = {"g1f3", "g8f6", "h1g1", "h8g8", "g1h1", "g8h8"};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(ply_arb_move_from_uci(&pos, seq2[i], &m), 0);
        ply_arb_make(&pos, m);
    }
    ply_arb_identity(&pos, a, sizeof a);
    assert_string_equal(a, "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R w Qq -");

    /* Identities are FENs the reader accepts (jobs are sent as identities). */
    load(&pos, a, 0);
    ply_arb_identity(&pos, b, sizeof b);
    assert_string_equal(a, b);
}

/* ---------------------------------------------------------------- UCI */

static int move_eq(ply_arb_move_t a, ply_arb_move_t b)
{
    return a.from == b.from && a.to == b.to && a.promo == b.promo && a.flags == b.flags;
}

/* Every legal move of @pos: UCI out and back in gives the same move, the
 * other castling spelling is read too, and the child's FEN round-trips. */
static int uci_round_trip(const ply_arb_pos_t *pos)
{
    ply_arb_move_t mv[PLY_ARB_MAX_MOVES], back;
    char uci[6], alt[6], f1[PLY_ARB_FEN_MAX], f2[PLY_ARB_FEN_MAX];
    int n = ply_arb_legal_moves(pos, mv);
    for (int i = 0; i < n; i++) {
        int len = ply_arb_move_to_uci(pos, mv[i], uci);
        assert_int_equal(len, mv[i].promo ? 5 : 4);
        assert_int_equal(ply_arb_move_from_uci(pos, uci, &back), 0);
        if (!move_eq(mv[i], back)) fail_msg("UCI %s does not read back", uci);
        if (mv[i].flags & PLY_ARB_MOVE_CASTLE) {
            /* The other spelling: king-to-destination in Chess960, king takes
             * rook in standard chess. In Chess960 an ordinary king step with the
             * same squares wins (documented), so there only check it parses. */
            int other = mv[i].to;
            if (!pos->chess960) {
                int r = pos->castle_rook[pos->side * 2 + ((mv[i].to & 7) == 2)];
                other = ((r >> 4) << 3) | (r & 7);
            }
            snprintf(alt, sizeof alt, "%c%c%c%c", uci[0], uci[1], 'a' + (other & 7),
                     '1' + (other >> 3));
            assert_int_equal(ply_arb_move_from_uci(pos, alt, &back), 0);
            if ((!pos->chess960 || (back.flags & PLY_ARB_MOVE_CASTLE)) && !move_eq(mv[i], back))
                fail_msg("castle spelling %s", alt);
        }
        ply_arb_pos_t child = *pos, again;
        ply_arb_make(&child, mv[i]);
        ply_arb_to_fen(&child, f1, sizeof f1);
        load(&again, f1, child.chess960 ? PLY_ARB_CHESS960 : 0);
        ply_arb_to_fen(&again, f2, sizeof f2);
        assert_string_equal(f1, f2);
    }
    return n;
}

static void test_uci_round_trip(void **state)
{
    (void)state;
    const char *files[] = {DATA("perftsuite.epd"), DATA("ethereal-fischer.epd"),
                           DATA("gct-client-tests-perft.epd")};
    long moves = 0;
    for (int k = 0; k < 3; k++) {
        suite_t s = load_epd(files[k]);
        for (int i = 0; i < s.n; i++) {
            ply_arb_pos_t pos;
            load(&pos, s.pos[i].fen, k == 1 ? PLY_ARB_CHESS960 : 0);
            moves += uci_round_trip(&pos);
            /* and one ply deeper, to meet promotions, e.p. and castles often */
            ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
            int n = ply_arb_legal_moves(&pos, mv);
            for (int j = 0; j < n; j++) {
                ply_arb_pos_t child = pos;
                ply_arb_make(&child, mv[j]);
                moves += uci_round_trip(&child);
            }
        }
        free(s.pos);
    }
    suite_t t = load_tricky(DATA("python-chess-tricky.perft"));
    for (int i = 0; i < t.n; i++) {
        ply_arb_pos_t pos;
        unsigned flags = (strncmp(t.pos[i].id, "xfen-", 5) == 0 ||
                          strcmp(t.pos[i].id, "asymmetrical-and-king-on-h") == 0)
                             ? PLY_ARB_CHESS960
                             : 0;
        load(&pos, t.pos[i].fen, flags);
        moves += uci_round_trip(&pos);
    }
    free(t.pos);
    assert_true(moves > 100000);
}

static void test_uci_errors(void **state)
{
    (void)state;
    ply_arb_pos_t pos;
    ply_arb_move_t m;
    ply_arb_startpos(&pos);
    assert_int_equal(ply_arb_move_from_uci(&pos, "e2e5", &m), PLY_EILLEGAL);
    assert_int_equal(ply_arb_move_from_uci(&pos, "e1g1", &m), PLY_EILLEGAL);
    assert_int_equal(ply_arb_move_from_uci(&pos, "0000", &m), PLY_EPARSE);
    assert_int_equal(ply_arb_move_from_uci(&pos, "e2", &m), PLY_EPARSE);
    assert_int_equal(ply_arb_move_from_uci(&pos, "", &m), PLY_EPARSE);
    assert_int_equal(ply_arb_move_from_uci(&pos, "e2e4 ", &m), PLY_EPARSE);
    assert_int_equal(ply_arb_move_from_uci(&pos, "e2e4qq", &m), PLY_EPARSE);
    assert_int_equal(ply_arb_move_from_uci(&pos, "i2i4", &m), PLY_EPARSE);
    assert_int_equal(ply_arb_move_from_uci(&pos, "e7e8k", &m), PLY_EPARSE);
    assert_int_equal(ply_arb_move_from_uci(&pos, "e2e4q", &m), PLY_EILLEGAL);
    assert_int_equal(ply_arb_move_from_uci(NULL, "e2e4", &m), PLY_EINVAL);
    assert_int_equal(ply_arb_move_from_uci(&pos, "e2e4", &m), 0);

    /* Promotion needs its letter; upper case is accepted. */
    load(&pos, "8/4P3/8/8/8/8/8/k1K5 w - - 0 1", 0);
    assert_int_equal(ply_arb_move_from_uci(&pos, "e7e8", &m), PLY_EILLEGAL);
    assert_int_equal(ply_arb_move_from_uci(&pos, "e7e8N", &m), 0);
    assert_int_equal(m.promo, 'n');

    /* Standard castling in both spellings; Chess960 king step vs castle. */
    load(&pos, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", 0);
    char uci[6];
    assert_int_equal(ply_arb_move_from_uci(&pos, "e1g1", &m), 0);
    assert_true(m.flags & PLY_ARB_MOVE_CASTLE);
    ply_arb_move_to_uci(&pos, m, uci);
    assert_string_equal(uci, "e1g1");
    assert_int_equal(ply_arb_move_from_uci(&pos, "e1a1", &m), 0);
    assert_int_equal(m.to, 2);
    load(&pos, "4k3/8/8/8/8/8/8/5K1R w H - 0 1", 0);
    assert_int_equal(ply_arb_move_from_uci(&pos, "f1g1", &m), 0);
    assert_false(m.flags & PLY_ARB_MOVE_CASTLE);
    assert_int_equal(ply_arb_move_from_uci(&pos, "f1h1", &m), 0);
    assert_true(m.flags & PLY_ARB_MOVE_CASTLE);
    ply_arb_move_to_uci(&pos, m, uci);
    assert_string_equal(uci, "f1h1");
}

/* --------------------------------------------------- castling bookkeeping */

static void play(ply_arb_pos_t *pos, const char *uci)
{
    ply_arb_move_t m;
    if (ply_arb_move_from_uci(pos, uci, &m) != 0) fail_msg("%s is not legal", uci);
    ply_arb_make(pos, m);
}

static void expect_fen(const ply_arb_pos_t *pos, const char *fen)
{
    char buf[PLY_ARB_FEN_MAX];
    ply_arb_to_fen(pos, buf, sizeof buf);
    assert_string_equal(buf, fen);
}

static void test_castle_rights(void **state)
{
    (void)state;
    ply_arb_pos_t pos;

    /* Art. 3.8(b)(1): a rook captured on its castling square takes the
     * opponent's right with it (Bg2xh1 removes K). */
    load(&pos, "r3k2r/8/8/8/8/8/6b1/R3K2R b KQkq - 0 1", 0);
    play(&pos, "g2h1");
    expect_fen(&pos, "r3k2r/8/8/8/8/8/8/R3K2b w Qkq - 0 2");
    /* Ra1xa8: the mover's right and the captured rook's right both go. */
    load(&pos, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", 0);
    play(&pos, "a1a8");
    expect_fen(&pos, "R3k2r/8/8/8/8/8/8/4K2R b Kk - 0 1");
    ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
    int n = ply_arb_legal_moves(&pos, mv);
    for (int i = 0; i < n; i++)
        if (mv[i].flags & PLY_ARB_MOVE_CASTLE) assert_int_equal(mv[i].to, 62); /* only O-O */
    /* A rook arriving later on the empty corner does not bring the right back. */
    load(&pos, "r3k2r/8/8/8/8/8/6b1/R3K2R b KQkq - 0 1", 0);
    play(&pos, "g2h1");
    play(&pos, "a1b1");
    play(&pos, "h1g2");
    play(&pos, "b1a1");
    play(&pos, "h8h1");
    expect_fen(&pos, "r3k3/8/8/8/8/8/6b1/R3K2r w q - 4 4");

    /* The king moving loses both; a rook moving loses its own. */
    load(&pos, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", 0);
    play(&pos, "e1f1");
    expect_fen(&pos, "r3k2r/8/8/8/8/8/8/R4K1R b kq - 1 1");
    play(&pos, "h8h7");
    expect_fen(&pos, "r3k3/7r/8/8/8/8/8/R4K1R w q - 2 2");

    /* Castling itself: rook relocated, both rights gone, clock counts on. */
    load(&pos, "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 3 9", 0);
    play(&pos, "e8c8");
    expect_fen(&pos, "2kr3r/8/8/8/8/8/8/R3K2R w KQ - 4 10");

    /* Chess960: capture of an inner castling rook (Shredder letters). */
    load(&pos, "1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1", 0);
    play(&pos, "b1b8");
    expect_fen(&pos, "1R4kr/8/8/8/8/8/8/6KR b Hh - 0 1");

    /* GCT client tests with rooks captured on their squares (quick subset
     * of tests/data/gct-client-tests-perft.epd, Stockfish-agreed). */
    assert_int_equal(perft_fen("r3k2r/8/8/8/8/8/8/1R2K2R b Kkq - 0 1", 0, 4), 334705);
    assert_int_equal(perft_fen("r3k1r1/8/8/8/8/8/8/R3K2R b KQq - 0 1", 0, 4), 316214);
}

static void test_checks_and_moves(void **state)
{
    (void)state;
    ply_arb_pos_t pos;
    ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
    int sq[16];

    ply_arb_startpos(&pos);
    assert_int_equal(ply_arb_in_check(&pos), 0);
    assert_int_equal(ply_arb_checkers(&pos, sq), 0);
    assert_int_equal(ply_arb_legal_moves(&pos, mv), 20);

    /* Double check: rook e1 and bishop b5 on the e8 king. */
    load(&pos, "4k3/8/8/1B6/8/8/8/4R1K1 b - - 0 1", 0);
    assert_int_equal(ply_arb_in_check(&pos), 1);
    assert_int_equal(ply_arb_checkers(&pos, sq), 2);
    assert_true((sq[0] == 33 && sq[1] == 4) || (sq[0] == 4 && sq[1] == 33));
    /* Only king moves answer a double check. */
    int n = ply_arb_legal_moves(&pos, mv);
    assert_true(n > 0);
    for (int i = 0; i < n; i++) assert_int_equal(mv[i].from, 60);

    /* Fool's mate: in check, no legal move (art. 5.1(a)). */
    load(&pos, "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", 0);
    assert_int_equal(ply_arb_in_check(&pos), 1);
    assert_int_equal(ply_arb_legal_moves(&pos, mv), 0);
    /* Stalemate (art. 5.2(a)). */
    load(&pos, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 0);
    assert_int_equal(ply_arb_in_check(&pos), 0);
    assert_int_equal(ply_arb_legal_moves(&pos, mv), 0);

    /* The move order is deterministic. */
    ply_arb_move_t mv2[PLY_ARB_MAX_MOVES];
    load(&pos, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 0);
    n = ply_arb_legal_moves(&pos, mv);
    assert_int_equal(n, 48);
    assert_int_equal(ply_arb_legal_moves(&pos, mv2), n);
    assert_memory_equal(mv, mv2, sizeof mv[0] * (size_t)n);

    /* The 218-move record position (Nenad Petrovic): the API's bound holds. */
    load(&pos, "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1", 0);
    assert_int_equal(ply_arb_legal_moves(&pos, mv), 218);

    /* Perft(0) is 1; stats depth 0 likewise. */
    assert_int_equal(ply_arb_perft(&pos, 0), 1);
    ply_stats_t st;
    ply_arb_perft_stats(&pos, 0, &st);
    assert_int_equal(st.v[PLY_STAT_nodes], 1);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest quick[] = {
        cmocka_unit_test(test_fen_syntax_errors), cmocka_unit_test(test_fen_semantic_errors),
        cmocka_unit_test(test_fen_accepts),       cmocka_unit_test(test_fen_fuzz),
        cmocka_unit_test(test_identity),          cmocka_unit_test(test_uci_errors),
        cmocka_unit_test(test_uci_round_trip),    cmocka_unit_test(test_castle_rights),
        cmocka_unit_test(test_checks_and_moves),  cmocka_unit_test(test_chess960_castling),
        cmocka_unit_test(test_perft_extra),       cmocka_unit_test(test_tricky),
        cmocka_unit_test(test_perftsuite_d4),     cmocka_unit_test(test_fischer_d3),
        cmocka_unit_test(test_gct_small),         cmocka_unit_test(test_gct_stockfish_shallow),
        cmocka_unit_test(test_stats_kinds),       cmocka_unit_test(test_stats_quick),
    };
    const struct CMUnitTest slow[] = {
        cmocka_unit_test(test_perftsuite_d5), cmocka_unit_test(test_fischer_d4),
        cmocka_unit_test(test_gct_large),     cmocka_unit_test(test_gct_stockfish_d5),
        cmocka_unit_test(test_stats_slow),
    };
    /* "test_arbiter [quick|slow [PATTERN]]": PATTERN selects tests by name. */
    if (argc > 2) cmocka_set_test_filter(argv[2]);
    if (argc > 1 && strcmp(argv[1], "slow") == 0)
        return cmocka_run_group_tests_name("arbiter_slow", slow, NULL, NULL);
    return cmocka_run_group_tests_name("arbiter", quick, NULL, NULL);
}
