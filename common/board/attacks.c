/*
 * Builds the attack tables at start-up (constructor): leapers, between/line
 * tables, and the slider tables: magic-indexed always, PEXT-indexed too when
 * the CPU has a fast PEXT (then the perft kernels compiled for BMI2 run).
 * Slider attacks are first computed slowly by ray walking and the fast tables
 * filled from those, so the two can never disagree silently: a magic that
 * maps two different attack sets to one slot stops the program at start-up.
 */
#include "board/attacks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

ply__sliders_t ply__bishop;
ply__sliders_t ply__rook;
ply_bb_t ply__knight_attacks[64];
ply_bb_t ply__king_attacks[64];
ply_bb_t ply__pawn_attacks[2][64];
ply_bb_t ply__between[64][64];
ply_bb_t ply__line[64][64];
ply_bb_t ply__bishop_rays[64];
ply__castle_path_t ply__castle_paths[2][8][8] __attribute__((aligned(64)));
ply_bb_t ply__rook_rays[64];

/* 5248 bishop + 102400 rook entries: the sums of 2^popcount(mask) over
 * squares. The PEXT-indexed copy is filled only when PEXT will be used. */
static ply_bb_t slider_table[5248 + 102400];
static ply_bb_t pext_table[5248 + 102400];

static const int bishop_dirs[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
static const int rook_dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};

static int on_board(int f, int r) { return f >= 0 && f < 8 && r >= 0 && r < 8; }

/* Ray-walking reference: attacks of a slider from sq, stopping at blockers. */
static ply_bb_t slow_slider(int sq, ply_bb_t occ, const int dirs[4][2])
{
    ply_bb_t att = 0;
    for (int d = 0; d < 4; d++) {
        int f = PLY_FILE(sq) + dirs[d][0], r = PLY_RANK(sq) + dirs[d][1];
        while (on_board(f, r)) {
            att |= ply_bb(PLY_SQ(f, r));
            if (occ & ply_bb(PLY_SQ(f, r))) break;
            f += dirs[d][0];
            r += dirs[d][1];
        }
    }
    return att;
}

/* Relevant occupancy: the rays without the board edge at their end. */
static ply_bb_t slider_mask(int sq, const int dirs[4][2])
{
    ply_bb_t mask = 0;
    for (int d = 0; d < 4; d++) {
        int f = PLY_FILE(sq) + dirs[d][0], r = PLY_RANK(sq) + dirs[d][1];
        while (on_board(f + dirs[d][0], r + dirs[d][1])) {
            mask |= ply_bb(PLY_SQ(f, r));
            f += dirs[d][0];
            r += dirs[d][1];
        }
    }
    return mask;
}

/* Magic multipliers, found once by a fixed-seed random search over sparse
 * candidates (chessprogramming wiki, "Looking for Magics") and recorded here
 * so that start-up is instant. init_slider() checks every one of them
 * against the ray-walking reference on all occupancies. */
static const ply_bb_t bishop_magics[64] = {
    0x10102002004A1420ull,    0x8020040400584008ull,
    0x10510800811201C8ull,    0x5204042080000088ull,
    0x2204106880000002ull,    0x1401042004000000ull,
    0x0400880410042004ull,    0x0028208200A02020ull,
    0x1500241990010E00ull,    0x8001200182020A40ull,
    0x40004101030B0000ull,    0x8002041042000100ull,
    0x4010011041020038ull,    0x0000010421044000ull,
    0x1500210808020A00ull,    0x8000088400880520ull,
    0x0405004010040100ull,    0x1005823210040108ull,
    0x2708008102040011ull,    0x4048200404009100ull,
    0x0018104101400024ull,    0x0003000601190101ull,
    0x8004803108491000ull,    0x8014241200820800ull,
    0x0006E080100C3040ull,    0x0501044A11041800ull,
    0x9020300008004045ull,    0x0894080000220040ull,
    0x1001010083104000ull,    0x5004030040900080ull,
    0x000400422C012400ull,    0x0002128698404812ull,
    0x1010108404900440ull,    0x0928021182084100ull,
    0x2006080409020024ull,    0x1010202020180080ull,
    0xA010008200202200ull,    0x2098015100019004ull,
    0x0002041440810811ull,    0x802A02020000B098ull,
    0x0009015090004060ull,    0x4000821082081001ull,
    0x0100210040420800ull,    0x0800004010488A00ull,
    0x2000081104004040ull,    0x4C8E029015000082ull,
    0x0420340322224842ull,    0x1298260043400210ull,
    0x0000822802400008ull,    0x00008A0101600000ull,
    0x3040003412080021ull,    0x3040290220884800ull,
    0x4A1500401041004Aull,    0x8010200282020781ull,
    0x0020203142209091ull,    0x0070300600902110ull,
    0x0040808800B62048ull,    0x0000810400C44420ull,
    0x00080400440C0441ull,    0x8340080020840411ull,
    0x0000000104208200ull,    0x0000800810D00080ull,
    0x0400530411080200ull,    0x4040702400932244ull,
};
static const ply_bb_t rook_magics[64] = {
    0x1080004008801020ull,    0x0840092002C03000ull,
    0x1900200010400900ull,    0x0880100008000480ull,
    0x4200100420080200ull,    0x8100020100080400ull,
    0x0200040110886200ull,    0x0200008040220411ull,
    0x0404800084400220ull,    0x0000401000402000ull,
    0x0086001081220440ull,    0x0408800800100280ull,
    0x000A001201040820ull,    0x8848800200840080ull,
    0x4001000100040200ull,    0x0442000102105084ull,
    0x9080010020804100ull,    0x0040404000201009ull,
    0x0000808010002009ull,    0x2200090021D00100ull,
    0x0008008008040080ull,    0x0004004002010040ull,
    0x0011040008015042ull,    0x00000A0001768104ull,
    0x0000800080204009ull,    0x2010004140002001ull,
    0x9800200280100080ull,    0x1000100080080080ull,
    0x0442000A00049020ull,    0x2100040080020080ull,
    0x0800120400900148ull,    0x0010040A00128541ull,
    0x2800804000800030ull,    0x1010002000400041ull,
    0x4000200011004100ull,    0x0610008410800800ull,
    0x0400802402800800ull,    0xC100020080800400ull,
    0x0002000802000401ull,    0x0182085882000401ull,
    0x0220204000808000ull,    0x2860100040024022ull,
    0x0001002004110040ull,    0x99101042000A0020ull,
    0x0004080004008080ull,    0x0010040002008080ull,
    0x2012004881020004ull,    0x8300842444820011ull,
    0x0088403882010200ull,    0x0820400080210100ull,
    0x0110910040A00300ull,    0x0801100280080480ull,
    0x0242009008200600ull,    0x1002000489500200ull,
    0x0040800200010080ull,    0x0091800041000080ull,
    0x0000209300488001ull,    0x04C1002414824001ull,
    0x020020000B001041ull,    0x7000100004200901ull,
    0x8002002004100802ull,    0x30010002084C0007ull,
    0x0888221800813004ull,    0x4000002840840112ull,
};

/* Fills one square's magic table and, when @ptable is given, its PEXT
 * table, from ray walking; returns the next free slots through the pointers. */
static void init_slider(ply__sliders_t *s, int sq, const int dirs[4][2], ply_bb_t magic,
                        ply_bb_t **table, ply_bb_t **ptable)
{
    const ply_bb_t mask = slider_mask(sq, dirs);
    const unsigned shift = (unsigned)(64 - ply_popcount(mask));
    s->mask[sq] = mask;
    s->shift[sq] = (unsigned char)shift;
    s->magic[sq] = magic;
    s->table[sq] = *table;
    s->ptable[sq] = *ptable;
    size_t size = (size_t)1 << ply_popcount(mask);
    static unsigned char filled[4096];
    memset(filled, 0, size);
    ply_bb_t occ = 0;
    size_t k = 0;
    /* Carry-Rippler: every subset of the mask, in increasing order, which is also the
     * order of their PEXT indices (PEXT keeps the order of subsets of its mask): the
     * k-th subset's PEXT index is k, with no bit extract to compute. */
    do {
        ply_bb_t att = slow_slider(sq, occ, dirs);
        size_t idx = (size_t)(((occ & mask) * magic) >> shift);
        if (filled[idx] && (*table)[idx] != att) {
            /* A wrong constant above: a programming error, caught on every start. */
            fprintf(stderr, "ply: attack table: bad magic for square %d\n", sq);
            abort();
        }
        filled[idx] = 1;
        (*table)[idx] = att;
        if (*ptable) (*ptable)[k] = att;
        k++;
        occ = (occ - mask) & mask;
    } while (occ);
    *table += size;
    if (*ptable) *ptable += size;
}

static void init_leapers(void)
{
    static const int knight[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2},
                                     {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
    for (int sq = 0; sq < 64; sq++) {
        int f = PLY_FILE(sq), r = PLY_RANK(sq);
        for (int i = 0; i < 8; i++)
            if (on_board(f + knight[i][0], r + knight[i][1]))
                ply__knight_attacks[sq] |= ply_bb(PLY_SQ(f + knight[i][0], r + knight[i][1]));
        for (int df = -1; df <= 1; df++)
            for (int dr = -1; dr <= 1; dr++)
                if ((df || dr) && on_board(f + df, r + dr))
                    ply__king_attacks[sq] |= ply_bb(PLY_SQ(f + df, r + dr));
        for (int df = -1; df <= 1; df += 2) {
            if (on_board(f + df, r + 1)) ply__pawn_attacks[PLY_WHITE][sq] |= ply_bb(PLY_SQ(f + df, r + 1));
            if (on_board(f + df, r - 1)) ply__pawn_attacks[PLY_BLACK][sq] |= ply_bb(PLY_SQ(f + df, r - 1));
        }
    }
}

static void init_lines(void)
{
    for (int a = 0; a < 64; a++) {
        ply__bishop_rays[a] = slow_slider(a, 0, bishop_dirs);
        ply__rook_rays[a] = slow_slider(a, 0, rook_dirs);
        for (int b = 0; b < 64; b++) {
            if (a == b) continue;
            const int (*dirs)[2] = NULL;
            if (slow_slider(a, 0, bishop_dirs) & ply_bb(b)) dirs = bishop_dirs;
            if (slow_slider(a, 0, rook_dirs) & ply_bb(b)) dirs = rook_dirs;
            if (!dirs) continue;
            ply__between[a][b] = slow_slider(a, ply_bb(b), dirs) & slow_slider(b, ply_bb(a), dirs);
            ply__line[a][b] = (slow_slider(a, 0, dirs) & slow_slider(b, 0, dirs)) | ply_bb(a) | ply_bb(b);
        }
    }
}

/* PEXT is one fast instruction on Intel since Haswell and AMD since Zen 3,
 * but microcoded (hundreds of cycles) on AMD Zen 1 and 2 (families 0x17
 * and earlier), where magic multiplication wins. */
static int cpu_has_fast_pext(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("bmi2")) return 0;
    if (__builtin_cpu_is("amd")) {
        unsigned eax, ebx, ecx, edx;
        if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
        unsigned family = ((eax >> 8) & 0xF) + ((eax >> 20) & 0xFF);
        return family >= 0x19;
    }
    return 1;
#else
    return 0;
#endif
}

static int use_pext;

/* King and rook end on g/f (rook on the h-side) or c/d (a-side); every
 * square either crosses must be empty but for the two of them (RULES.md
 * art. 3.8, and its Chess960 note). */
static void init_castling(void)
{
    for (int c = 0; c < 2; c++)
        for (int kf = 0; kf < 8; kf++)
            for (int rf = 0; rf < 8; rf++) {
                if (kf == rf) continue;
                int rank = c ? 56 : 0, ksq = rank + kf, rsq = rank + rf;
                int kto = rank + (rf > kf ? 6 : 2), rto = rank + (rf > kf ? 5 : 3);
                ply_bb_t kpath = ply__between[ksq][kto] | ply_bb(kto);
                ply__castle_path_t *cp = &ply__castle_paths[c][kf][rf];
                cp->king_path = kpath;
                cp->empty =
                    (kpath | ply__between[rsq][rto] | ply_bb(rto)) & ~(ply_bb(ksq) | ply_bb(rsq));
                for (ply_bb_t path = kpath; path;) {
                    int sq = ply_pop_lsb(&path);
                    cp->knights |= ply__knight_attacks[sq];
                    cp->pawns |= ply__pawn_attacks[c][sq]; /* where the enemy's pawns hit sq from */
                    cp->kings |= ply__king_attacks[sq];
                    cp->diagonal |= ply__bishop_rays[sq];
                    cp->orthogonal |= ply__rook_rays[sq];
                }
            }
}

__attribute__((constructor)) static void ply_attacks_init(void)
{
    init_leapers();
    init_lines();
    init_castling();
    /* PLY_SLIDERS=magic|pext overrides the CPU check (benchmarks, tests). */
    const char *env = getenv("PLY_SLIDERS");
    use_pext = cpu_has_fast_pext();
#if defined(__x86_64__) && defined(PLY_HAVE_PEXT_KERNEL)
    if (env && strcmp(env, "magic") == 0) use_pext = 0;
    if (env && strcmp(env, "pext") == 0) use_pext = __builtin_cpu_supports("bmi2");
#else
    (void)env;
    use_pext = 0;
#endif
    ply_bb_t *t = slider_table, *pt = use_pext ? pext_table : NULL;
    for (int sq = 0; sq < 64; sq++) init_slider(&ply__bishop, sq, bishop_dirs, bishop_magics[sq], &t, &pt);
    for (int sq = 0; sq < 64; sq++) init_slider(&ply__rook, sq, rook_dirs, rook_magics[sq], &t, &pt);
}

int ply_attacks_use_pext(void) { return use_pext; }

const char *ply_attacks_backend(void) { return use_pext ? "pext" : "magic"; }
