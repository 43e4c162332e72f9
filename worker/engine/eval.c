/*
 * The static evaluation (eval.h): a sum of terms, each a middlegame and an
 * endgame value, blended by the game phase. It runs at every quiescence
 * leaf, so it is one pass over the pieces with bitboards and no move
 * generation; nothing is cached between calls (no hidden state, any number
 * of threads).
 *
 * Shape: material and piece-square tables (PeSTO), then one loop over the
 * pieces of each side for mobility, king attackers and rook files, one over
 * the pawns for structure and passed pawns, the pawn shelter of each king,
 * the threats against the pieces of each side (from the attack maps the loop
 * over the pieces filled), and last the endgame knowledge: a scale factor per side for material
 * that cannot win, opposite-coloured bishops, and two endgames evaluated by rule (KBNK and a lone
 * king against mating material), which replace the sum.
 *
 * Scores are summed for each colour, white's minus black's blended by the
 * phase, and turned to the side to move's point of view at the end.
 *
 * The values (eval_params_t) were tuned together on 2026-12-01 by Texel's
 * method with tools/tune/ (its README): from PeSTO's and Fruit's values as
 * the start, all at once (772 of the 960: table entries seen in fewer than
 * 100 positions, and values no position reads, left as they were), 16
 * passes of steps of 1, K = 1.457; error 0.03924 to 0.03258 on the training
 * set and 0.04343 to 0.04000 on the validation set (lowest at pass 14,
 * 0.03991: the tables begin to over-fit about there). Data
 * (tools/tune/data.sh): 1741 games of ply against itself at 6,000 nodes a
 * move from 2000 random 8-ply openings (`ply-tune openings 2000 8
 * 20261201`), 203,780 positions, of which the 116,293 quiet ones (not in
 * check, quiescence search = static evaluation) labelled 0.3 x the game's
 * result + 0.7 x Stockfish 15.1's win probability at depth 7 (UCI_ShowWDL);
 * the last 11,630 (the last games) for validation. Against the values
 * before, engine against engine at 20,000 nodes a move, 400 games from the
 * first 200 openings of bench/openings-random.epd, each twice with colours
 * swapped: +177 -145 =78, +27.9 Elo (95%: -2.6 .. +58.8) with the search of
 * main 6f0c289; +180 -147 =73, +28.7 (-2.0 .. +59.9) with the search the
 * data was played with (main 615acfe).
 *
 * Measured before the tuning, with the values of PeSTO and Fruit: what the
 * terms were worth (matches at 10,000 nodes a move, 480 games
 * from 240 openings of 8 random plies that Stockfish 15.1 at depth 12 scores
 * within 50 cp, each twice with colours swapped; Elo of the evaluation
 * without the term against the full one, 95% interval about +-28): mobility
 * -44, passed pawns -39, king shelter -35, rook files -23, tempo -23, king
 * attackers -9, pawn structure -8, bishop pair -7; Fruit's mobility area (no
 * pawn-attack exclusion) -9. All of them together against PeSTO's tables
 * alone: +168 (120 games at 10,000 nodes), +74 at 2 s + 0.02 s a game.
 * Tried and left out: rook and queen on the 7th (Fruit's 20/40, 10/20: -24),
 * king attack doubled (-9), mobility weights x1.5 (+9), 40 cp for a piece
 * attacked by a pawn (+17, then -12 with the newer search).
 *
 * Threats (added 2026-12-02 with Stockfish 10's values scaled to our pawn, not
 * tuned yet): against the evaluation before, 600 games at 20,000 nodes a move
 * from the 300 openings of bench/openings-random.epd, each twice with colours
 * swapped: +305 -166 =129, +82.0 Elo (95%: +57.2 .. +107.6); WAC at 100,000
 * nodes 265 -> 270 of 300, STS 9698 -> 9847 of 15000 points; 4.4% more
 * instructions a node (callgrind, ply bench --search). Safe checks (the same
 * day, our values, not tuned), against the threats alone in the same way:
 * +256 -183 =161, +42.5 Elo (95%: +18.8 .. +66.6); WAC 268, STS 9856; 3.7%
 * more instructions a node.
 *
 * Sources of the numbers beyond PeSTO's tables: Fruit 2.1 by Fabien
 * Letouzey (2005, GPL; its eval.cpp, pawn.cpp and material.cpp define the
 * terms and values cited below; the values are used, not its code). Fruit's
 * scale is centipawns like PeSTO's, with a pawn worth 100.
 */
#include "eval.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "search.h"

#ifdef PLY_EVAL_TUNE
#include <stdio.h>

#include "eval_tune.h"
#endif

/* A middlegame and an endgame value, centipawns. */
typedef struct pair {
    int mg, eg;
} pair_t;

/*
 * The tuned values, in one table (a struct of ints only, so that the tuner,
 * tools/tune/, can see it as an array: eval_tune.h). The engine reads it as
 * constants; compiled with PLY_EVAL_TUNE (the tuner's copy of this file) it
 * is writable. The initializer below is in the form `ply-tune` prints; the
 * comments here say what each value means and where its start came from.
 */
typedef struct eval_params {
    /*
     * Material and piece-square tables: before the tuning PeSTO's, by Ronald
     * Friederich, as published on the chessprogramming wiki, "PeSTO's
     * Evaluation Function". The tables are written from white's point of
     * view with rank 8 on the first row (as the wiki prints them), so white's
     * square sq reads entry sq ^ 56 and black's square sq entry sq.
     */
    pair_t piece_value[7];
    int pst_mg[7][64];
    int pst_eg[7][64];
    /* Tempo: the side to move's bonus. PeSTO has one, but the wiki does not
     * give its value; 10 was ours. */
    pair_t tempo;
    /* Mobility (Fruit 2.1, eval.cpp): per square a piece reaches above
     * mob_unit (below); Fruit's: knight 4, bishop 5, rook 2/4, queen 1/2. */
    pair_t mob_weight[7];
    /* Bishop pair (Fruit 2.1, material.cpp: 50). */
    pair_t bishop_pair;
    /* Rooks on files (Fruit 2.1, eval.cpp): half of the open-file bonus is
     * taken from every rook, a half-open file (no own pawn) gives
     * rook_half_open (Fruit 10), an open one rook_open (20), and a half-open
     * file on or beside the enemy king rook_king_file[0] or [1] more in the
     * middlegame (20, 10). */
    pair_t rook_half_open, rook_open;
    int rook_king_file[2];
    /* Pawn structure penalties (Fruit 2.1, pawn.cpp: 10/20, 10/20, 20/20,
     * 8/10, 16/10); "open": no pawn in front on the file. */
    pair_t doubled, isolated, isolated_open, backward, backward_open;
    /*
     * Passed pawns (Fruit 2.1, eval.cpp and pawn.cpp): min + (max - min) *
     * passed_bonus[rank] / 256 (Fruit 10..70 middlegame, 20..140 endgame).
     * In the endgame the span grows by free_passer (60) for a free path (stop
     * square empty and not lost), by defender_distance (20) per square of
     * the enemy king's distance to the stop square and shrinks by
     * attacker_distance (5) per square of its own king's.
     */
    int passed_mg_min, passed_mg_max, passed_eg_min, passed_eg_max;
    int free_passer, attacker_distance, defender_distance;
    /* King attack (Fruit 2.1, eval.cpp: 20), see king_attack_weight below;
     * pawn storm by the enemy pawn's relative rank (10, 30, 60 on 4-6). */
    int king_attack_value;
    int storm_penalty[8];
    /*
     * Threats (Stockfish 10, evaluate.cpp, Evaluation::threats, scaled from its pawn of
     * 128/213 to ours of 86/78: x0.67 middlegame, x0.37 endgame): an enemy piece that is
     * weak (attacked and not strongly defended: no pawn defends it, nor two pieces against
     * one attacker) or a defended piece other than a pawn, attacked by a minor piece
     * (threat_minor by the victim's type) or, when weak, by a rook (threat_rook) or the king
     * (threat_king); a weak piece hanging (no defender, or a piece attacked twice)
     * (hanging); an enemy piece other than a pawn attacked by a pawn that is safe (not
     * attacked, or defended) (threat_safe_pawn).
     */
    pair_t threat_minor[7], threat_rook[7];
    pair_t threat_king, hanging, threat_safe_pawn;
    /* Safe checks (the squares of Stockfish 10's king danger, Evaluation::king, as a
     * bonus of our own per kind of piece that has one: a square from which it would give
     * check, that it attacks, not occupied by its side, and not defended by the king's
     * side, or only by the king or queen against two attackers). */
    pair_t safe_check[7];
} eval_params_t;

#ifdef PLY_EVAL_TUNE
#define PLY_EVAL_PARAM_CONST
#else
#define PLY_EVAL_PARAM_CONST const
#endif

static PLY_EVAL_PARAM_CONST eval_params_t param = {
    .piece_value = {{0, 0}, {86, 78}, {352, 297}, {371, 292}, {493, 528}, {1041, 952}, {0, 0}},
    .pst_mg =
        {
            [PLY_PAWN] = {0,   0,  0,   0,   0,   0,  0,  0,   85,  118, 45, 87, 68, 118, 23, -27,
                          -11, 23, 42,  15,  49,  40, 41, -4,  -7,  26,  7,  37, 39, 9,   20, -21,
                          -36, 6,  11,  24,  24,  19, 4,  -18, -23, 6,   7,  -3, 5,  3,   33, -19,
                          -41, -1, -11, -28, -28, 8,  22, -31, 0,   0,   0,  0,  0,  0,   0,  0},
            [PLY_KNIGHT] = {-153, -89, -41, -39, 46,   -113, -15, -94, -57, -25, 56,  29,  23,
                            78,   6,   -33, -36, 76,   25,   81,  100, 113, 59,  28,  4,   1,
                            33,   44,  37,  53,  25,   28,   3,   -7,  2,   29,  23,  35,  5,
                            -24,  -36, -1,  10,  26,   3,    11,  35,  -11, -45, -37, -28, 13,
                            10,   19,  2,   -32, -105, -25,  -49, -17, -10, -13, -11, -16},
            [PLY_BISHOP] = {-15, -12, -67, -52, -26, -38, -8, -14, -42, 32,  -4,  3, 17,
                            44,  15,  -61, 0,   53,  30,  54, 24,  37,  29,  14,  8, 21,
                            9,   57,  26,  21,  15,  -18, 10, 4,   15,  10,  26,  5, -6,
                            -12, 12,  31,  9,   12,  3,   35, 12,  25,  -12, 8,   0, 7,
                            11,  8,   44,  1,   -49, -19, -6, -33, -29, -4,  -23, -5},
            [PLY_ROOK] = {41,  57,  48,  35,  48,  -7,  43,  59,  26,  26,  43,  47,  65,
                          59,  32,  41,  0,   4,   33,  48,  28,  42,  45,  32,  -37, 5,
                          -7,  39,  8,   48,  0,   -35, -20, -11, 0,   -12, -6,  -23, -10,
                          -35, -57, -38, -10, -7,  -12, 0,   0,   -19, -53, -32, -4,  4,
                          -16, -5,  8,   -76, -12, -16, 14,  27,  16,  9,   -21, -11},
            [PLY_QUEEN] = {-44, -16, 13, -3,  73,  31, 59,  44,  -33, -26, -4,  -15, -3,
                           45,  13,  38, -8,  -1,  9,  -8,  13,  46,  31,  41,  -13, -40,
                           -26, -12, -4, 3,   -11, 14, -10, -42, -25, -11, 6,   -16, -13,
                           13,  2,   3,  5,   -18, 11, -3,  7,   21,  -48, -19, 18,  18,
                           24,  1,   13, -15, -16, -2, -13, 4,   -5,  -26, -45, -50},
            [PLY_KING] = {-65, 23,  6,   -15, -63, -44, -12, 13,  24,  -5,  -29, -17, -15,
                          -19, -54, -14, -15, 31,  14,  -10, -33, 20,  16,  -7,  -3,  -22,
                          -28, -40, -16, -36, -4,  -33, -46, 14,  -19, -37, -55, -29, -23,
                          -35, -30, -30, -38, -39, -31, -43, 0,   -27, 17,  -1,  -10, -48,
                          -27, -5,  -2,  24,  -7,  49,  -2,  -69, 1,   -12, 30,  -2},
        },
    .pst_eg =
        {
            [PLY_PAWN] = {0,  0,  0,  0,  0,  0,  0,  0,  174, 157, 143, 118, 131, 118, 149, 171,
                          78, 96, 85, 51, 40, 37, 66, 68, 16,  8,   11,  -10, -1,  -12, 1,   20,
                          25, 12, 13, -9, 4,  -1, -7, 13, 20,  17,  7,   -11, 2,   4,   -9,  -6,
                          26, 23, 5,  19, 21, 13, -9, -4, 0,   0,   0,   0,   0,   0,   0,   0},
            [PLY_KNIGHT] = {-44, -38, 3,   -42, -47, -11, -63, -86, -34, 8,   -41, -17, -17,
                            -9,  -14, -36, -15, -4,  10,  17,  -6,  -25, -21, -56, -25, 17,
                            24,  12,  19,  0,   -8,  -4,  -2,  10,  24,  9,   32,  33,  -12,
                            -3,  -39, 9,   -8,  30,  -5,  -1,  -12, -25, -29, -5,  -23, 11,
                            13,  -30, -7,  -28, -29, -40, -7,  -3,  -6,  -5,  -50, -61},
            [PLY_BISHOP] = {-15, -5, 3,   6,   8,   -4,  -27, -8,  -17, 0,   12, 4,   -18,
                            -29, 1,  -1,  14,  8,   -1,  -17, -3,  -10, 16,  20, -18, 10,
                            20,  -7, 11,  0,   18,  -14, -16, -11, 0,   10,  11, 26,  -10,
                            -24, -6, -16, 24,  6,   16,  -8,  0,   -2,  -30, -5, -17, -10,
                            -7,  -8, -21, -11, -12, -18, -14, 7,   -25, -11, 0,  -1},
            [PLY_ROOK] = {3,  26,  34,  -1, 9,  -4,  2,   14, 17, 20, 2,   -3, -8, -13, -6, 19,
                          17, 8,   1,   9,  3,  -12, -20, 13, 19, -2, 28,  17, 18, -15, 15, -5,
                          16, 5,   -2,  19, 7,  1,   -4,  3,  4,  14, -19, -8, 5,  -14, 7,  -9,
                          10, -22, -14, 6,  -2, 0,   -17, 13, -2, 11, 4,   -7, 5,  -7,  16, -16},
            [PLY_QUEEN] = {-25, 8,   10,  15,  34,  4,   26,  21,  -27, 31,  45,  33,  72,
                           34,  15,  5,   -6,  22,  11,  49,  31,  24,  28,  -6,  14,  15,
                           30,  58,  68,  36,  53,  43,  -21, 29,  29,  61,  36,  42,  34,
                           36,  -4,  -30, 0,   19,  25,  19,  15,  19,  -7,  -37, -25, -16,
                           -20, -32, -26, -43, -47, -12, -26, -48, 3,   -29, -35, -41},
            [PLY_KING] = {-74, -35, -34, -18, 3,   6,   -12, -17, -27, 1,   14,  23, 23,
                          22,  7,   27,  -5,  19,  33,  25,  26,  61,  29,  29,  8,  10,
                          9,   35,  42,  19,  36,  -12, -2,  12,  22,  36,  43,  39, 20,
                          5,   -35, -19, -5,  29,  28,  15,  1,   -18, -11, 0,   -2, 4,
                          13,  20,  0,   -21, -37, -18, -27, -25, -22, -24, -24, -59},
        },
    .tempo = {14, 4},
    .mob_weight =
        {[PLY_KNIGHT] = {7, 1}, [PLY_BISHOP] = {6, 4}, [PLY_ROOK] = {3, 3}, [PLY_QUEEN] = {1, 13}},
    .bishop_pair = {40, 46},
    .rook_half_open = {9, 22},
    .rook_open = {17, 19},
    .rook_king_file = {36, -5},
    .doubled = {8, 14},
    .isolated = {3, 10},
    .isolated_open = {25, 22},
    .backward = {-4, -6},
    .backward_open = {6, 15},
    .passed_mg_min = -4,
    .passed_mg_max = 54,
    .passed_eg_min = 21,
    .passed_eg_max = 124,
    .free_passer = 67,
    .attacker_distance = 21,
    .defender_distance = 16,
    .king_attack_value = 18,
    .storm_penalty = {0, -6, -5, 11, 26, 69, -14, 0},
    .threat_minor = {{0, 0}, {0, 11}, {26, 15}, {38, 16}, {46, 41}, {42, 44}, {0, 0}},
    .threat_rook = {{0, 0}, {0, 9}, {26, 26}, {26, 22}, {0, 14}, {34, 14}, {0, 0}},
    .threat_king = {16, 33},
    .hanging = {46, 13},
    .threat_safe_pawn = {116, 35},
    .safe_check = {{0, 0}, {0, 0}, {40, 5}, {25, 5}, {45, 5}, {35, 5}, {0, 0}},
};

/* Game phase: PeSTO's weights (N 1, B 1, R 2, Q 4; 24 for the initial set). */
static const int phase_weight[7] = {0, 0, 1, 1, 2, 4, 0};
#define PHASE_MAX 24

/*
 * Mobility (Fruit 2.1, eval.cpp): centered on mob_unit squares so that an
 * average piece scores 0: knight above 4, bishop 6, rook 7, queen 13. Fruit
 * counts empty and enemy-occupied squares; ours also leaves out squares
 * attacked by an enemy pawn (a piece cannot go there safely).
 */
static const int mob_unit[7] = {
    [PLY_KNIGHT] = 4, [PLY_BISHOP] = 6, [PLY_ROOK] = 7, [PLY_QUEEN] = 13};

/*
 * Passed pawns, the fixed part (Fruit 2.1): the bonus by rank relative to
 * the pawn's side (0 = its first rank), and 800 more to the endgame span for
 * a pawn the lone king cannot catch (rule of the square, or escorted by its
 * king).
 */
static const int passed_bonus[8] = {0, 0, 0, 26, 77, 154, 256, 0};
static const int unstoppable_passer = 800;

/*
 * King safety (Fruit 2.1, eval.cpp), middlegame only. Attackers: every
 * knight, bishop, rook and queen attacking the enemy king's square or a
 * square beside it counts 1, 1, 2 and 4 units; the penalty is units *
 * king_attack_value * weight[attackers] / 256, so one attacker alone hardly
 * counts. Only when the attacking side has a queen and another piece.
 * Shelter: per file on and beside the king (its own file twice), 36 - d * d
 * with d = 7 - the relative rank of the nearest own pawn in front (36 with
 * none), 11 if all three are unmoved; storm: an enemy pawn on those files
 * adds storm_penalty of its relative rank. The king's penalty is the mean of
 * where it is and the best square it can still castle to.
 */
static const int king_attack_unit[7] = {
    [PLY_KNIGHT] = 1, [PLY_BISHOP] = 1, [PLY_ROOK] = 2, [PLY_QUEEN] = 4};
static const int king_attack_weight[16] = {0,   0,   128, 192, 224, 240, 248, 252,
                                           254, 255, 256, 256, 256, 256, 256, 256};

/*
 * Endgames. Scale factors in 16ths, per side, applied when the score favours
 * that side (Fruit 2.1, material.cpp and eval.cpp): 0 for a side without
 * pawns that has one minor piece at most, two knights (against a bare king),
 * or KQKQ and KRKR; 2 (1/8) for a side without pawns at most a minor piece
 * ahead (KBKN, KRKB, KRNKR, ...); 1/2 for KBBKN; with one pawn, that the other
 * side may give a piece for, 1/4 or 1/2 likewise; bishops of opposite colours
 * with no other pieces and at most two pawns of difference halve it.
 * A lone king against a queen, a rook, or bishop and knight (or two
 * bishops) is evaluated by rule, ours: a known-win base, the material, the
 * lone king pushed to the edge (20 per step of its distance from the centre,
 * or for KBNK 20 per step of Manhattan distance nearer a corner of the
 * bishop's colour) and the kings brought together (10 per step).
 */
#define SCALE_FULL 16
static const int scale_drawish = 2;
static const int known_win = 1000;

/* Material plus piece-square value of a piece of colour c on sq, built once from the tables. */
static pair_t psq[2][7][64];

/* Bitboard masks built once: files, squares in front of a pawn on its file,
 * and on its file and the two beside it (where enemy pawns stop a passer). */
static ply_bb_t file_mask[8], adjacent_files[8];
static ply_bb_t front_span[2][64], passed_span[2][64];
static ply_bb_t ranks_ahead[2][8]; /* ranks strictly ahead of rank r for colour c */
static uint8_t distance[64][64];   /* Chebyshev (king-move) distance */

static void build_psq(void)
{
    for (int t = PLY_PAWN; t <= PLY_KING; t++)
        for (int sq = 0; sq < 64; sq++) {
            psq[PLY_WHITE][t][sq].mg = param.piece_value[t].mg + param.pst_mg[t][sq ^ 56];
            psq[PLY_WHITE][t][sq].eg = param.piece_value[t].eg + param.pst_eg[t][sq ^ 56];
            psq[PLY_BLACK][t][sq].mg = param.piece_value[t].mg + param.pst_mg[t][sq];
            psq[PLY_BLACK][t][sq].eg = param.piece_value[t].eg + param.pst_eg[t][sq];
        }
}

__attribute__((constructor)) static void eval_init(void)
{
    build_psq();
    for (int f = 0; f < 8; f++) file_mask[f] = PLY_BB_FILE_A << f;
    for (int f = 0; f < 8; f++)
        adjacent_files[f] = (f > 0 ? file_mask[f - 1] : 0) | (f < 7 ? file_mask[f + 1] : 0);
    for (int r = 0; r < 8; r++) {
        ranks_ahead[PLY_WHITE][r] = r == 7 ? 0 : ~0ull << (8 * (r + 1));
        ranks_ahead[PLY_BLACK][r] = r == 0 ? 0 : ~0ull >> (8 * (8 - r));
    }
    for (int sq = 0; sq < 64; sq++) {
        const int f = PLY_FILE(sq), r = PLY_RANK(sq);
        for (int c = PLY_WHITE; c <= PLY_BLACK; c++) {
            front_span[c][sq] = file_mask[f] & ranks_ahead[c][r];
            passed_span[c][sq] = (file_mask[f] | adjacent_files[f]) & ranks_ahead[c][r];
        }
        for (int to = 0; to < 64; to++) {
            int df = abs(f - PLY_FILE(to)), dr = abs(r - PLY_RANK(to));
            distance[sq][to] = (uint8_t)(df > dr ? df : dr);
        }
    }
}

/* Everything one evaluation computes once and several terms read. */
typedef struct eval_ctx {
    const ply_board_t *b;
    ply_bb_t occ;
    ply_bb_t pawns[2];
    ply_bb_t pawn_attacks[2];
    ply_bb_t king_zone[2];
    /* squares attacked by colour and piece type, by any piece, and by two or more */
    ply_bb_t att[2][7], att_all[2], att2[2];
    int count[2][7]; /* pieces by colour and type */
    pair_t score[2]; /* by colour, each from its own point of view */
    int phase;       /* 0 (kings and pawns) .. PHASE_MAX */
} eval_ctx_t;

static inline void add(pair_t *s, pair_t v)
{
    s->mg += v.mg;
    s->eg += v.eg;
}

static inline void sub(pair_t *s, pair_t v)
{
    s->mg -= v.mg;
    s->eg -= v.eg;
}

/* The rank of @sq seen from @colour's side: 0 is its first rank. */
static inline int relative_rank(int colour, int sq)
{
    return colour == PLY_WHITE ? PLY_RANK(sq) : 7 - PLY_RANK(sq);
}

/* The pawn of @pawns nearest to @colour's first rank (the most advanced of
 * the other side's), or PLY_NO_SQ. */
static inline int rearmost(int colour, ply_bb_t pawns)
{
    if (!pawns) return PLY_NO_SQ;
    return colour == PLY_WHITE ? ply_lsb(pawns) : 63 - __builtin_clzll(pawns);
}

static inline ply_bb_t pawn_attacks_of(int colour, ply_bb_t pawns)
{
    return colour == PLY_WHITE ? ply_shift_ne(pawns) | ply_shift_nw(pawns)
                               : ply_shift_se(pawns) | ply_shift_sw(pawns);
}

static void eval_material_psq(eval_ctx_t *e)
{
    const ply_board_t *b = e->b;
    for (int c = PLY_WHITE; c <= PLY_BLACK; c++) {
        for (int t = PLY_PAWN; t <= PLY_KING; t++) {
            ply_bb_t s = b->pieces[t] & b->colour[c];
            e->count[c][t] = ply_popcount(s);
            e->phase += phase_weight[t] * e->count[c][t];
            while (s) add(&e->score[c], psq[c][t][ply_pop_lsb(&s)]);
        }
    }
    if (e->phase > PHASE_MAX) e->phase = PHASE_MAX; /* promotions */
}

/* Mobility, king attackers and rook files of colour @c's pieces. */
static void eval_pieces(eval_ctx_t *e, int c)
{
    const ply_board_t *b = e->b;
    const int them = c ^ 1;
    const ply_bb_t area = ~b->colour[c] & ~e->pawn_attacks[them];
    const int their_king_file = PLY_FILE(b->king[them]);
    int units = 0, attackers = 0;
    pair_t *s = &e->score[c];

    for (int t = PLY_KNIGHT; t <= PLY_QUEEN; t++) {
        ply_bb_t pieces = b->pieces[t] & b->colour[c];
        while (pieces) {
            const int sq = ply_pop_lsb(&pieces);
            ply_bb_t att;
            switch (t) {
            case PLY_KNIGHT:
                att = ply__knight_attacks[sq];
                break;
            case PLY_BISHOP:
                att = ply_bishop_attacks(sq, e->occ);
                break;
            case PLY_ROOK:
                att = ply_rook_attacks(sq, e->occ);
                break;
            default:
                att = ply_queen_attacks(sq, e->occ);
                break;
            }
            e->att2[c] |= e->att_all[c] & att;
            e->att_all[c] |= att;
            e->att[c][t] |= att;
            const int mob = ply_popcount(att & area) - mob_unit[t];
            s->mg += mob * param.mob_weight[t].mg;
            s->eg += mob * param.mob_weight[t].eg;
            if (att & e->king_zone[them]) {
                attackers++;
                units += king_attack_unit[t];
            }
            if (t == PLY_ROOK) {
                s->mg -= param.rook_open.mg / 2;
                s->eg -= param.rook_open.eg / 2;
                const int f = PLY_FILE(sq);
                if (!(e->pawns[c] & file_mask[f])) {
                    add(s,
                        (e->pawns[them] & file_mask[f]) ? param.rook_half_open : param.rook_open);
                    const int d = abs(f - their_king_file);
                    if (d <= 1) s->mg += param.rook_king_file[d];
                }
            }
        }
    }
    if (e->count[c][PLY_QUEEN] && e->count[c][PLY_KNIGHT] + e->count[c][PLY_BISHOP] +
                                          e->count[c][PLY_ROOK] + e->count[c][PLY_QUEEN] >=
                                      2) {
        if (attackers > 15) attackers = 15;
        s->mg += units * param.king_attack_value * king_attack_weight[attackers] / 256;
    }
    if (e->count[c][PLY_BISHOP] >= 2) add(s, param.bishop_pair);
}

/* Colour @c's threats against the other side's pieces (eval_params_t, Stockfish 10). */
static void eval_threats(eval_ctx_t *e, int c)
{
    const ply_board_t *b = e->b;
    const int them = c ^ 1;
    const ply_bb_t theirs = b->colour[them];
    const ply_bb_t non_pawns = theirs & ~b->pieces[PLY_PAWN];
    const ply_bb_t strongly = e->att[them][PLY_PAWN] | (e->att2[them] & ~e->att2[c]);
    const ply_bb_t defended = non_pawns & strongly;
    const ply_bb_t weak = theirs & ~strongly & e->att_all[c];
    pair_t *s = &e->score[c];
    if (defended | weak) {
        for (ply_bb_t v = (defended | weak) & (e->att[c][PLY_KNIGHT] | e->att[c][PLY_BISHOP]); v;)
            add(s, param.threat_minor[ply_board_piece_on(b, ply_pop_lsb(&v), NULL)]);
        for (ply_bb_t v = weak & e->att[c][PLY_ROOK]; v;)
            add(s, param.threat_rook[ply_board_piece_on(b, ply_pop_lsb(&v), NULL)]);
        if (weak & e->att[c][PLY_KING]) add(s, param.threat_king);
        const int n = ply_popcount(weak & (~e->att_all[them] | (non_pawns & e->att2[c])));
        s->mg += n * param.hanging.mg;
        s->eg += n * param.hanging.eg;
    }
    const ply_bb_t safe = ~e->att_all[them] | e->att_all[c];
    const int n = ply_popcount(pawn_attacks_of(c, e->pawns[c] & safe) & non_pawns);
    s->mg += n * param.threat_safe_pawn.mg;
    s->eg += n * param.threat_safe_pawn.eg;

    /* checks the other king cannot stop by taking the checker */
    const int ksq = b->king[them];
    const ply_bb_t weak_def =
        e->att_all[c] & ~e->att2[them] &
        (~e->att_all[them] | e->att[them][PLY_KING] | e->att[them][PLY_QUEEN]);
    const ply_bb_t check_safe = ~b->colour[c] & (~e->att_all[them] | (weak_def & e->att2[c]));
    const ply_bb_t rook_lines = ply_rook_attacks(ksq, e->occ);
    const ply_bb_t bishop_lines = ply_bishop_attacks(ksq, e->occ);
    const ply_bb_t rook_checks = rook_lines & e->att[c][PLY_ROOK] & check_safe;
    const ply_bb_t queen_checks = (rook_lines | bishop_lines) & e->att[c][PLY_QUEEN] & check_safe &
                                  ~e->att[them][PLY_QUEEN] & ~rook_checks;
    if (rook_checks) add(s, param.safe_check[PLY_ROOK]);
    if (queen_checks) add(s, param.safe_check[PLY_QUEEN]);
    if (bishop_lines & e->att[c][PLY_BISHOP] & check_safe & ~queen_checks)
        add(s, param.safe_check[PLY_BISHOP]);
    if (ply__knight_attacks[ksq] & e->att[c][PLY_KNIGHT] & check_safe)
        add(s, param.safe_check[PLY_KNIGHT]);
}

/* Fruit's shelter penalty of colour @c's king if it stood on @ksq. */
static int shelter(const eval_ctx_t *e, int c, int ksq)
{
    const int kf = PLY_FILE(ksq), kr = PLY_RANK(ksq);
    const ply_bb_t own = e->pawns[c], theirs = e->pawns[c ^ 1];
    /* squares on the king's rank and ahead of it, for colour c */
    const ply_bb_t ahead = ranks_ahead[c][kr] | (PLY_BB_RANK_1 << (8 * kr));
    int penalty = 0, storm = 0;
    for (int f = kf - 1; f <= kf + 1; f++) {
        if (f < 0 || f > 7) continue;
        const int p = rearmost(c, own & file_mask[f] & ahead);
        const int d = p == PLY_NO_SQ ? 0 : 7 - relative_rank(c, p);
        penalty += (36 - d * d) * (f == kf ? 2 : 1);
        const int q = rearmost(c, theirs & file_mask[f]);
        if (q != PLY_NO_SQ) storm += param.storm_penalty[relative_rank(c ^ 1, q)];
    }
    if (penalty == 0) penalty = 11;
    return penalty + storm;
}

static void eval_king_shelter(eval_ctx_t *e, int c)
{
    const ply_board_t *b = e->b;
    const int them = c ^ 1;
    /* Fruit: only when the other side can attack (a queen and another piece). */
    if (!e->count[them][PLY_QUEEN] || e->count[them][PLY_KNIGHT] + e->count[them][PLY_BISHOP] +
                                              e->count[them][PLY_ROOK] + e->count[them][PLY_QUEEN] <
                                          2)
        return;
    const int here = shelter(e, c, b->king[c]);
    int best = here;
    const int rank = c == PLY_WHITE ? 0 : 56;
    const int hside = c == PLY_WHITE ? PLY_CASTLE_WH : PLY_CASTLE_BH;
    const int aside = c == PLY_WHITE ? PLY_CASTLE_WA : PLY_CASTLE_BA;
    if (b->castling & hside) {
        int v = shelter(e, c, rank + 6);
        if (v < best) best = v;
    }
    if (b->castling & aside) {
        int v = shelter(e, c, rank + 1);
        if (v < best) best = v;
    }
    e->score[c].mg -= (here + best) / 2;
}

/* Fruit's rule of the square and escorted passer, for a side whose opponent
 * has no pieces. */
static int passer_unstoppable(const eval_ctx_t *e, int c, int sq)
{
    const ply_board_t *b = e->b;
    const int them = c ^ 1;
    const int prom = c == PLY_WHITE ? 56 + PLY_FILE(sq) : PLY_FILE(sq);
    const int own_king = b->king[c];
    /* escorted: own king beside the pawn and the promotion square, not stuck
     * in front of a rook pawn */
    if (distance[own_king][prom] <= 1 && distance[own_king][sq] <= 1 &&
        (PLY_FILE(own_king) != PLY_FILE(sq) || (PLY_FILE(sq) != 0 && PLY_FILE(sq) != 7)))
        return 1;
    if (front_span[c][sq] & b->colour[c]) return 0; /* own piece in the way */
    int from = sq;
    if (relative_rank(c, sq) == 1) from += c == PLY_WHITE ? 8 : -8; /* double step */
    int dist = distance[from][prom] + (b->side == them);
    return distance[b->king[them]][prom] > dist;
}

/* Doubled, isolated, backward and passed pawns of colour @c. */
static void eval_pawns(eval_ctx_t *e, int c)
{
    const ply_board_t *b = e->b;
    const int them = c ^ 1;
    const ply_bb_t own = e->pawns[c], theirs = e->pawns[them];
    const int step = c == PLY_WHITE ? 8 : -8;
    const int defender_has_pieces = e->count[them][PLY_KNIGHT] + e->count[them][PLY_BISHOP] +
                                    e->count[them][PLY_ROOK] + e->count[them][PLY_QUEEN];
    pair_t *s = &e->score[c];
    ply_bb_t pawns = own;
    while (pawns) {
        const int sq = ply_pop_lsb(&pawns);
        const int f = PLY_FILE(sq), rr = relative_rank(c, sq);
        const int open = !((own | theirs) & front_span[c][sq]);
        if (own & front_span[them][sq]) sub(s, param.doubled);
        if (!(own & adjacent_files[f])) {
            sub(s, open ? param.isolated_open : param.isolated);
        } else if (!(own & adjacent_files[f] & ~ranks_ahead[c][PLY_RANK(sq)]) &&
                   (e->pawn_attacks[them] & ply_bb(sq + step))) {
            /* behind all its neighbours and cannot advance safely */
            sub(s, open ? param.backward_open : param.backward);
        }
        if (!open || (theirs & passed_span[c][sq])) continue;

        /* passed */
        s->mg += param.passed_mg_min +
                 (param.passed_mg_max - param.passed_mg_min) * passed_bonus[rr] / 256;
        int delta = param.passed_eg_max - param.passed_eg_min;
        const int stop = sq + step;
        if (!defender_has_pieces && passer_unstoppable(e, c, sq)) {
            delta += unstoppable_passer;
        } else if (!(e->occ & ply_bb(stop))) {
            /* free path: the pawn can step forward without losing itself */
            ply_board_t t = *b;
            t.side = (uint8_t)c;
            const int kind = rr == 6 ? PLY_MOVE_PROMO_Q : PLY_MOVE_NORMAL;
            if (ply_see_ge(&t, PLY_MOVE(sq, stop, kind, PLY_PAWN), 0)) delta += param.free_passer;
        }
        delta -= distance[b->king[c]][stop] * param.attacker_distance;
        delta += distance[b->king[them]][stop] * param.defender_distance;
        s->eg += param.passed_eg_min;
        if (delta > 0) s->eg += delta * passed_bonus[rr] / 256;
    }
}

static inline int is_light(int sq)
{
    return (PLY_FILE(sq) + PLY_RANK(sq)) & 1;
}

/* Manhattan distance of @sq from the centre (0 on d4-e5, 6 in a corner). */
static inline int centre_distance(int sq)
{
    const int f = PLY_FILE(sq), r = PLY_RANK(sq);
    return (f < 4 ? 3 - f : f - 4) + (r < 4 ? 3 - r : r - 4);
}

/*
 * A lone king (colour @c ^ 1) against mating material: the evaluation from
 * the strong side's point of view, or 0 when the rule does not apply.
 */
static int eval_lone_king(const eval_ctx_t *e, int c)
{
    const ply_board_t *b = e->b;
    const int *n = e->count[c];
    const ply_bb_t bishops = b->pieces[PLY_BISHOP] & b->colour[c];
    const int light = (bishops & 0x55AA55AA55AA55AAull) != 0;
    const int dark = (bishops & ~0x55AA55AA55AA55AAull) != 0;
    const int mating =
        n[PLY_QUEEN] || n[PLY_ROOK] || (light && dark) || (n[PLY_BISHOP] && n[PLY_KNIGHT]);
    if (!mating) return 0;
    const int weak_king = b->king[c ^ 1], strong_king = b->king[c];
    int v = known_win;
    for (int t = PLY_PAWN; t <= PLY_QUEEN; t++) v += n[t] * param.piece_value[t].eg;
    v += 10 * (7 - distance[strong_king][weak_king]);
    if (n[PLY_BISHOP] == 1 && n[PLY_KNIGHT] == 1 && !n[PLY_QUEEN] && !n[PLY_ROOK] && !n[PLY_PAWN]) {
        /* KBNK: only the corners of the bishop's colour mate */
        const int c1 = light ? 56 : 0, c2 = light ? 7 : 63; /* a8/h1 light, a1/h8 dark */
        int d1 = abs(PLY_FILE(weak_king) - PLY_FILE(c1)) + abs(PLY_RANK(weak_king) - PLY_RANK(c1));
        int d2 = abs(PLY_FILE(weak_king) - PLY_FILE(c2)) + abs(PLY_RANK(weak_king) - PLY_RANK(c2));
        v += 20 * (14 - (d1 < d2 ? d1 : d2));
    } else {
        v += 20 * centre_distance(weak_king);
    }
    return v;
}

/*
 * Fruit's scale factor (16ths) for the score of colour @c, from material
 * alone (material.cpp: units are minor 1, rook 2, queen 4).
 */
static int material_scale(const eval_ctx_t *e, int c)
{
    const int *n = e->count[c], *o = e->count[c ^ 1];
    const int heavy = 2 * n[PLY_QUEEN] + n[PLY_ROOK];
    int units = n[PLY_KNIGHT] + n[PLY_BISHOP] + 2 * heavy;
    int their_minors = o[PLY_KNIGHT] + o[PLY_BISHOP];
    int their_units = their_minors + 2 * (2 * o[PLY_QUEEN] + o[PLY_ROOK]);
    if (n[PLY_PAWN] == 0) {
        if (units <= 1) return 0; /* KK, KNK, KBK */
        if (units == 2 && n[PLY_KNIGHT] == 2) return their_units || !o[PLY_PAWN] ? 0 : 1; /* KNNK */
        if (units == 2 && n[PLY_BISHOP] == 2 && their_units == 1 && o[PLY_KNIGHT] == 1)
            return 8; /* KBBKN */
        if (units == heavy * 2 && n[PLY_QUEEN] + n[PLY_ROOK] == 1 && o[PLY_QUEEN] == n[PLY_QUEEN] &&
            o[PLY_ROOK] == n[PLY_ROOK] && !their_minors && !o[PLY_PAWN])
            return 0; /* KQKQ, KRKR */
        if (units - their_units <= 1 && heavy <= 2) return scale_drawish;
    } else if (n[PLY_PAWN] == 1) {
        /* the other side can give a piece for the lone pawn */
        if (their_minors) {
            their_units -= 1;
        } else if (o[PLY_ROOK]) {
            their_units -= 2;
        } else {
            return SCALE_FULL;
        }
        if (units <= 1 || (units == 2 && n[PLY_KNIGHT] == 2)) return 4;
        if (units - their_units <= 1 && heavy <= 2) return 8;
    }
    return SCALE_FULL;
}

int ply_eval(const ply_board_t *b)
{
    eval_ctx_t e = {.b = b};
    e.occ = ply_board_occ(b);
    eval_material_psq(&e);

    const int us = b->side;
    const int lim = PLY_SCORE_MATE_MIN - 1;
    /* A lone king against mating material: evaluated by rule. */
    for (int c = PLY_WHITE; c <= PLY_BLACK; c++) {
        if (b->colour[c ^ 1] != ply_bb(b->king[c ^ 1])) continue;
        const int v = eval_lone_king(&e, c);
        if (v) return c == us ? (v > lim ? lim : v) : (v > lim ? -lim : -v);
    }

    for (int c = PLY_WHITE; c <= PLY_BLACK; c++) {
        e.pawns[c] = b->pieces[PLY_PAWN] & b->colour[c];
        e.pawn_attacks[c] = pawn_attacks_of(c, e.pawns[c]);
        e.king_zone[c] = ply__king_attacks[b->king[c]] | ply_bb(b->king[c]);
        const ply_bb_t king = ply__king_attacks[b->king[c]];
        const ply_bb_t pawn2 = c == PLY_WHITE ? ply_shift_ne(e.pawns[c]) & ply_shift_nw(e.pawns[c])
                                              : ply_shift_se(e.pawns[c]) & ply_shift_sw(e.pawns[c]);
        e.att[c][PLY_PAWN] = e.pawn_attacks[c];
        e.att[c][PLY_KING] = king;
        e.att_all[c] = e.pawn_attacks[c] | king;
        e.att2[c] = pawn2 | (e.pawn_attacks[c] & king);
    }
    for (int c = PLY_WHITE; c <= PLY_BLACK; c++) {
        eval_pieces(&e, c);
        eval_pawns(&e, c);
        eval_king_shelter(&e, c);
    }
    for (int c = PLY_WHITE; c <= PLY_BLACK; c++) eval_threats(&e, c);
    add(&e.score[us], param.tempo);

    const int mg = e.score[PLY_WHITE].mg - e.score[PLY_BLACK].mg;
    const int eg = e.score[PLY_WHITE].eg - e.score[PLY_BLACK].eg;
    int v = (mg * e.phase + eg * (PHASE_MAX - e.phase)) / PHASE_MAX;

    /* Endgame scaling, for the side the score favours. */
    const int strong = v > 0 ? PLY_WHITE : PLY_BLACK;
    int scale = material_scale(&e, strong);
    const ply_bb_t wb = b->pieces[PLY_BISHOP] & b->colour[PLY_WHITE];
    const ply_bb_t bb = b->pieces[PLY_BISHOP] & b->colour[PLY_BLACK];
    const int pawn_diff = e.count[PLY_WHITE][PLY_PAWN] - e.count[PLY_BLACK][PLY_PAWN];
    if (e.phase == 2 && e.count[PLY_WHITE][PLY_BISHOP] == 1 &&
        e.count[PLY_BLACK][PLY_BISHOP] == 1 && pawn_diff >= -2 && pawn_diff <= 2 &&
        is_light(ply_lsb(wb)) != is_light(ply_lsb(bb)) && scale == SCALE_FULL)
        scale = SCALE_FULL / 2; /* opposite-coloured bishops, pawns only besides */
    v = v * scale / SCALE_FULL;

    if (us == PLY_BLACK) v = -v;
    return v > lim ? lim : v < -lim ? -lim : v;
}

#ifdef PLY_EVAL_TUNE
/* The tuner's view of the table (eval_tune.h). */
_Static_assert(sizeof(eval_params_t) % sizeof(int) == 0, "eval_params_t holds ints only");

int *ply__eval_tune_params(int *count)
{
    *count = (int)(sizeof param / sizeof(int));
    return (int *)&param;
}

void ply__eval_tune_update(void)
{
    build_psq();
}

int ply__eval_tune_pst(int i, int *type, int *entry)
{
    const int first = (int)(offsetof(eval_params_t, pst_mg) / sizeof(int));
    const int n = 2 * 7 * 64;
    if (i < first || i >= first + n) return -1;
    i -= first;
    *type = (i / 64) % 7;
    *entry = i % 64;
    return i / (7 * 64); /* 0 middlegame, 1 endgame */
}

int ply__eval_tune_is_material(int i)
{
    return i >= 0 && i < (int)(offsetof(eval_params_t, pst_mg) / sizeof(int));
}

static void print_pairs(FILE *out, const char *name, const pair_t *v, int n)
{
    fprintf(out, ".%s = ", name);
    if (n > 1) fputc('{', out);
    for (int i = 0; i < n; i++) fprintf(out, "%s{%d, %d}", i ? ", " : "", v[i].mg, v[i].eg);
    fprintf(out, n > 1 ? "},\n" : ",\n");
}

static void print_ints(FILE *out, const char *name, const int *v, int n)
{
    fprintf(out, ".%s = {", name);
    for (int i = 0; i < n; i++) fprintf(out, "%s%d", i ? ", " : "", v[i]);
    fprintf(out, "},\n");
}

static const char *const names[7] = {"", "PAWN", "KNIGHT", "BISHOP", "ROOK", "QUEEN", "KING"};

static void print_table(FILE *out, const char *name, const int (*v)[64])
{
    fprintf(out, ".%s = {\n", name);
    for (int t = PLY_PAWN; t <= PLY_KING; t++) {
        fprintf(out, "[PLY_%s] = {", names[t]);
        for (int sq = 0; sq < 64; sq++) fprintf(out, "%s%d", sq ? ", " : "", v[t][sq]);
        fprintf(out, "},\n");
    }
    fprintf(out, "},\n");
}

void ply__eval_tune_print(FILE *out)
{
    const eval_params_t *p = &param;
    print_pairs(out, "piece_value", p->piece_value, 7);
    print_table(out, "pst_mg", p->pst_mg);
    print_table(out, "pst_eg", p->pst_eg);
    print_pairs(out, "tempo", &p->tempo, 1);
    fprintf(out, ".mob_weight = {");
    for (int t = PLY_KNIGHT; t <= PLY_QUEEN; t++)
        fprintf(out, "%s[PLY_%s] = {%d, %d}", t > PLY_KNIGHT ? ", " : "", names[t],
                p->mob_weight[t].mg, p->mob_weight[t].eg);
    fprintf(out, "},\n");
    print_pairs(out, "bishop_pair", &p->bishop_pair, 1);
    print_pairs(out, "rook_half_open", &p->rook_half_open, 1);
    print_pairs(out, "rook_open", &p->rook_open, 1);
    print_ints(out, "rook_king_file", p->rook_king_file, 2);
    print_pairs(out, "doubled", &p->doubled, 1);
    print_pairs(out, "isolated", &p->isolated, 1);
    print_pairs(out, "isolated_open", &p->isolated_open, 1);
    print_pairs(out, "backward", &p->backward, 1);
    print_pairs(out, "backward_open", &p->backward_open, 1);
    fprintf(out, ".passed_mg_min = %d,\n.passed_mg_max = %d,\n", p->passed_mg_min,
            p->passed_mg_max);
    fprintf(out, ".passed_eg_min = %d,\n.passed_eg_max = %d,\n", p->passed_eg_min,
            p->passed_eg_max);
    fprintf(out, ".free_passer = %d,\n.attacker_distance = %d,\n.defender_distance = %d,\n",
            p->free_passer, p->attacker_distance, p->defender_distance);
    fprintf(out, ".king_attack_value = %d,\n", p->king_attack_value);
    print_ints(out, "storm_penalty", p->storm_penalty, 8);
    print_pairs(out, "threat_minor", p->threat_minor, 7);
    print_pairs(out, "threat_rook", p->threat_rook, 7);
    print_pairs(out, "threat_king", &p->threat_king, 1);
    print_pairs(out, "hanging", &p->hanging, 1);
    print_pairs(out, "threat_safe_pawn", &p->threat_safe_pawn, 1);
    print_pairs(out, "safe_check", p->safe_check, 7);
}
#endif
