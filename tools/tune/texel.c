/*
 * ply-tune tune: Texel's method (Peter Österlund, 2014, as described on the
 * chessprogramming wiki, "Texel's Tuning Method"). The error of a set of
 * values is the mean over the positions of (R - sigmoid(K * e / 400))^2,
 * with e the static evaluation for White, R the label (a win probability for
 * White) and sigmoid(x) = 1 / (1 + 10^-x); K is fitted first, to the
 * starting values, and then kept. The search is Texel's local one: in each
 * pass every value in turn is stepped by 1 (first in the direction that
 * helped it last) and the step is kept when the error falls; passes repeat
 * until one changes nothing or the pass limit is reached.
 *
 * Speed: the evaluation of every position is cached. A piece-square entry
 * changes the evaluation only of positions with that piece on that square, so
 * its step re-evaluates only those (an index built once); any other value
 * re-evaluates all. Values that change no position's evaluation are left out.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board/board.h"
#include "eval.h"
#include "eval_tune.h"
#include "tune.h"

typedef struct position {
    ply_board_t b;
    float label;
} position_t;

typedef struct set {
    position_t *pos;
    int n;
    int *ev; /* cached evaluation for White */
} set_t;

static int eval_white(const ply_board_t *b)
{
    const int v = ply_eval(b);
    return b->side == PLY_WHITE ? v : -v;
}

static double sigmoid(double k, int e)
{
    return 1.0 / (1.0 + pow(10.0, -k * e / 400.0));
}

static double sq_err(double k, float label, int e)
{
    const double d = label - sigmoid(k, e);
    return d * d;
}

static int load(const char *path, set_t *s)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return -1;
    }
    int cap = 1 << 16;
    s->pos = malloc((size_t)cap * sizeof *s->pos);
    s->n = 0;
    char line[256];
    while (s->pos && fgets(line, sizeof line, f)) {
        char *semi = strchr(line, ';');
        if (!semi) continue;
        *semi = '\0';
        if (s->n == cap) {
            cap *= 2;
            position_t *p = realloc(s->pos, (size_t)cap * sizeof *p);
            if (!p) break;
            s->pos = p;
        }
        position_t *p = &s->pos[s->n];
        if (ply_board_from_fen(&p->b, line, 0, NULL, 0)) continue;
        p->label = strtof(semi + 1, NULL);
        s->n++;
    }
    fclose(f);
    s->ev = malloc((size_t)(s->n ? s->n : 1) * sizeof *s->ev);
    return s->pos && s->ev ? 0 : -1;
}

static void eval_all(set_t *s)
{
    for (int i = 0; i < s->n; i++) s->ev[i] = eval_white(&s->pos[i].b);
}

static double error_of(const set_t *s, double k)
{
    double sum = 0;
    for (int i = 0; i < s->n; i++) sum += sq_err(k, s->pos[i].label, s->ev[i]);
    return sum / s->n;
}

/* K minimising the error of the cached evaluations: a scan, then halving steps. */
static double fit_k(const set_t *s)
{
    double k = 1.0, step = 0.5, best = error_of(s, k);
    while (step > 0.001) {
        int moved = 0;
        for (int d = -1; d <= 1; d += 2) {
            const double e = error_of(s, k + d * step);
            if (e < best) {
                best = e;
                k += d * step;
                moved = 1;
                break;
            }
        }
        if (!moved) step /= 2;
    }
    return k;
}

/* Positions whose evaluation reads piece-square entry (type, entry): black
 * pieces on entry, white pieces on entry ^ 56. */
typedef struct index {
    int *start; /* [7 * 64 + 1] */
    int *list;
} index_t;

static int build_index(const set_t *s, index_t *ix)
{
    ix->start = calloc(7 * 64 + 1, sizeof *ix->start);
    size_t total = 0;
    for (int i = 0; i < s->n; i++) total += (size_t)ply_popcount(ply_board_occ(&s->pos[i].b));
    ix->list = malloc((total ? total : 1) * sizeof *ix->list);
    if (!ix->start || !ix->list) return -1;
    int *count = calloc(7 * 64, sizeof *count);
    if (!count) return -1;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < s->n; i++) {
            const ply_board_t *b = &s->pos[i].b;
            for (int t = PLY_PAWN; t <= PLY_KING; t++)
                for (int c = PLY_WHITE; c <= PLY_BLACK; c++) {
                    ply_bb_t bb = b->pieces[t] & b->colour[c];
                    while (bb) {
                        const int sq = ply_pop_lsb(&bb);
                        const int slot = t * 64 + (c == PLY_WHITE ? sq ^ 56 : sq);
                        if (pass == 0)
                            count[slot]++;
                        else
                            ix->list[ix->start[slot] + count[slot]++] = i;
                    }
                }
        }
        if (pass == 0) {
            for (int k = 0; k < 7 * 64; k++) ix->start[k + 1] = ix->start[k] + count[k];
            memset(count, 0, 7 * 64 * sizeof *count);
        }
    }
    /* a position with two pieces of a type on mirrored squares is listed twice: harmless */
    free(count);
    return 0;
}

/* Try value @i at +@d: the error change over the affected positions, with
 * the new evaluations in @scratch. */
static double try_step(set_t *s, const index_t *ix, int *v, int i, int d, double k, int *scratch,
                       const int **affected, int *naff)
{
    int type, entry;
    v[i] += d;
    ply__eval_tune_update();
    if (ply__eval_tune_pst(i, &type, &entry) >= 0) {
        const int slot = type * 64 + entry;
        *affected = ix->list + ix->start[slot];
        *naff = ix->start[slot + 1] - ix->start[slot];
    } else {
        *affected = NULL;
        *naff = s->n;
    }
    double delta = 0;
    for (int j = 0; j < *naff; j++) {
        const int p = *affected ? (*affected)[j] : j;
        scratch[j] = eval_white(&s->pos[p].b);
        delta += sq_err(k, s->pos[p].label, scratch[j]) - sq_err(k, s->pos[p].label, s->ev[p]);
    }
    return delta;
}

static void keep(set_t *s, const int *affected, int naff, const int *scratch)
{
    for (int j = 0; j < naff; j++) s->ev[affected ? affected[j] : j] = scratch[j];
}

/* 1 when value @i changes the evaluation of some position of @s. */
static int reads(const set_t *s, int *v, int i)
{
    int found = 0;
    v[i] += 1;
    ply__eval_tune_update();
    for (int j = 0; j < s->n && !found; j++) found = eval_white(&s->pos[j].b) != s->ev[j];
    v[i] -= 1;
    ply__eval_tune_update();
    return found;
}

static int write_values(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return -1;
    }
    ply__eval_tune_print(f);
    return fclose(f) ? -1 : 0;
}

int ply_tune_texel(const char *train_path, const char *valid_path, int passes, const char *select,
                   const char *out_path)
{
    set_t train = {0}, valid = {0};
    index_t ix = {0};
    int *scratch = NULL, rc = -1;
    char *active = NULL;
    signed char *dir = NULL;
    if (load(train_path, &train) || (valid_path && load(valid_path, &valid))) goto out;
    int n;
    int *v = ply__eval_tune_params(&n);
    eval_all(&train);
    const double k = fit_k(&train);
    fprintf(stderr, "%d positions, K %.3f, error %.6f\n", train.n, k, error_of(&train, k));
    if (valid.n) {
        eval_all(&valid);
        fprintf(stderr, "validation: %d positions, error %.6f\n", valid.n, error_of(&valid, k));
    }
    if (build_index(&train, &ix)) goto out;
    scratch = malloc((size_t)(train.n ? train.n : 1) * sizeof *scratch);
    active = calloc((size_t)n, 1);
    if (!scratch || !active) goto out;
    /* which values to tune: "all", "pst" (material and tables) or "terms" (the rest) */
    for (int i = 0; i < n; i++) {
        int type, entry;
        const int pst = ply__eval_tune_pst(i, &type, &entry) >= 0;
        const int in_pst = pst || ply__eval_tune_is_material(i);
        if (!strcmp(select, "pst") && !in_pst) continue;
        if (!strcmp(select, "terms") && in_pst) continue;
        if (pst) {
            const int slot = type * 64 + entry;
            if (ix.start[slot + 1] - ix.start[slot] < 100) continue; /* too few to tell */
        } else if (!reads(&train, v, i)) {
            continue;
        }
        active[i] = 1;
    }
    int tuned = 0;
    for (int i = 0; i < n; i++) tuned += active[i];
    fprintf(stderr, "%d of the %d values tuned\n", tuned, n);
    /* the direction that last helped each value, tried first */
    dir = malloc((size_t)n);
    if (!dir) goto out;
    memset(dir, 1, (size_t)n);
    double best_valid = valid.n ? error_of(&valid, k) : 0;
    /* no pass: the values as they are, which must read back as eval.c's initializer */
    if (passes == 0 && write_values(out_path)) goto out;
    for (int pass = 1; pass <= passes; pass++) {
        int changed = 0;
        for (int i = 0; i < n; i++) {
            if (!active[i]) continue;
            for (int t = 0; t < 2; t++) {
                const int d = t ? -dir[i] : dir[i];
                const int *aff;
                int naff;
                const double delta = try_step(&train, &ix, v, i, d, k, scratch, &aff, &naff);
                if (delta < 0) {
                    keep(&train, aff, naff, scratch);
                    dir[i] = (signed char)d;
                    changed++;
                    break;
                }
                v[i] -= d;
                ply__eval_tune_update();
            }
        }
        eval_all(&train);
        fprintf(stderr, "pass %d: %d steps kept, error %.6f", pass, changed, error_of(&train, k));
        double verr = 0;
        if (valid.n) {
            eval_all(&valid);
            verr = error_of(&valid, k);
            fprintf(stderr, ", validation %.6f", verr);
        }
        fputc('\n', stderr);
        /* with a validation set, the values written are those it likes best */
        if (!valid.n || verr < best_valid) {
            best_valid = verr;
            if (write_values(out_path)) goto out;
        }
        if (!changed) break;
    }
    rc = 0;
out:
    free(dir);
    free(active);
    free(scratch);
    free(ix.start);
    free(ix.list);
    free(train.pos);
    free(train.ev);
    free(valid.pos);
    free(valid.ev);
    return rc;
}
