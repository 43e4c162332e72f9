/*
 * bench_lazy: what sharing table entries between engines gives (issue 28: "several workers
 * search one subtree and exchange deep table entries through the coordinator", Stockfish's
 * lazy cluster), measured in one process before any transport is built: the upper bound of
 * what a cluster of 2 workers can get from it.
 *
 *   bench_lazy [--depth D] [--epd FILE] [--every K] [--from I] [--limit N] [--hash MIB]
 *              [--min-depth M] [--period-ms P] [--repeat R] [--modes smp,indep,lazy]
 *
 * Per position (the first 4 fields of every K-th line of FILE), the time to finish iteration
 * D, each engine with its own table of MIB MiB and the hand-written evaluation:
 *   1      one engine of 1 thread (deterministic: measured once);
 *   smp    one engine of 2 threads (Lazy SMP, one shared table);
 *   indep  two engines of 1 thread, one with helper_parity (search.h), sharing only the
 *          deepest finished iteration (shared_depth): a team that shares no entries;
 *   lazy   the same two engines, each exporting its stores of M plies or more
 *          (ply_engine_set_export), imported by the other every P ms (ply_engine_import):
 *          a transport whose delay is P.
 * Two-engine times end when either engine finishes iteration D. Threads make each time
 * vary from run to run (by +-30% on a single position): every parallel mode runs R times,
 * and the summary gives the speed-up of the summed times and the geometric mean and median
 * of the positions' speed-ups (each position's mean time over its R runs). Times are wall
 * clock: run it on an otherwise idle machine, and name the CPU beside the figures.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "search.h"
#include "stt.h"

enum { ONE, SMP, INDEP, LAZY, MODES };
static const char *const mode_name[MODES] = {"1", "smp", "indep", "lazy"};
#define MAX_POSITIONS 1024

static struct {
    int depth, every, from, limit, min_depth, period_ms, repeat;
    size_t hash_mib;
    const char *epd, *modes;
} opt = {18, 12, 0, 48, 6, 2, 3, 64, PLY_SOURCE_DIR "/tests/data/analysis/sts-v3.epd",
         "smp,indep,lazy"};

/* Whether mode @m runs: 1 always (the reference), the others when --modes names them. */
static int runs(int m)
{
    if (m == ONE) return 1;
    const size_t n = strlen(mode_name[m]);
    for (const char *s = opt.modes; (s = strstr(s, mode_name[m])) != NULL; s += n)
        if ((s == opt.modes || s[-1] == ',') && (s[n] == ',' || s[n] == 0)) return 1;
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct {
    ply_engine_t *e;
    const ply_search_pos_t *pos;
    ply_search_limits_t lim;
    ply_search_result_t r;
} job_t;

static void *run(void *arg)
{
    job_t *j = arg;
    if (ply_engine_search(j->e, j->pos, &j->lim, NULL, NULL, &j->r) != 0) abort();
    return NULL;
}

/* One direction of the transport: what @from's engine exported, into @to. */
typedef struct {
    ply_stt_log_t *from;
    ply_engine_t *to;
    uint64_t tail, moved;
} pipe_t;

static void drain(pipe_t *p)
{
    static ply_stt_record_t rec[4096];
    size_t n;
    while ((n = ply_stt_log_read(p->from, &p->tail, rec, 4096)) > 0) {
        ply_engine_import(p->to, rec, n);
        p->moved += n;
    }
}

/* Two engines of 1 thread on @pos to opt.depth, sharing entries when @share: seconds. */
static double team(ply_engine_t *a, ply_engine_t *b, const ply_search_pos_t *pos, int share,
                   uint64_t *moved)
{
    ply_engine_clear(a), ply_engine_clear(b);
    ply_stt_log_t *la = ply_stt_log_new(opt.min_depth, 20),
                  *lb = ply_stt_log_new(opt.min_depth, 20);
    if (!la || !lb) abort();
    if (share) ply_engine_set_export(a, la), ply_engine_set_export(b, lb);
    int shared = 0;
    job_t ja = {.e = a, .pos = pos}, jb = {.e = b, .pos = pos};
    ply_search_limits_init(&ja.lim);
    ja.lim.depth = opt.depth;
    ja.lim.shared_depth = &shared;
    jb.lim = ja.lim;
    jb.lim.helper_parity = 1;
    pipe_t pa = {.from = la, .to = b}, pb = {.from = lb, .to = a};
    pthread_t ha, hb;
    const double t0 = now_s();
    pthread_create(&ha, NULL, run, &ja);
    pthread_create(&hb, NULL, run, &jb);
    while (__atomic_load_n(&shared, __ATOMIC_RELAXED) < opt.depth) {
        usleep((useconds_t)opt.period_ms * 1000);
        if (share) drain(&pa), drain(&pb);
    }
    const double t = now_s() - t0;
    ply_engine_stop(a), ply_engine_stop(b);
    pthread_join(ha, NULL), pthread_join(hb, NULL);
    ply_engine_clear_stop(a), ply_engine_clear_stop(b);
    ply_engine_set_export(a, NULL), ply_engine_set_export(b, NULL);
    *moved += pa.moved + pb.moved;
    ply_stt_log_free(&la), ply_stt_log_free(&lb);
    return t;
}

static double one(ply_engine_t *e, const ply_search_pos_t *pos)
{
    ply_search_limits_t l;
    ply_search_limits_init(&l);
    l.depth = opt.depth;
    ply_search_result_t r;
    ply_engine_clear(e);
    const double t0 = now_s();
    if (ply_engine_search(e, pos, &l, NULL, NULL, &r) != 0) abort();
    return now_s() - t0;
}

static int cmpd(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static int parse(int argc, char **argv)
{
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int *iv = strcmp(a, "--depth") == 0       ? &opt.depth
                  : strcmp(a, "--every") == 0     ? &opt.every
                  : strcmp(a, "--from") == 0      ? &opt.from
                  : strcmp(a, "--limit") == 0     ? &opt.limit
                  : strcmp(a, "--min-depth") == 0 ? &opt.min_depth
                  : strcmp(a, "--period-ms") == 0 ? &opt.period_ms
                  : strcmp(a, "--repeat") == 0    ? &opt.repeat
                                                  : NULL;
        if (!v) return -1;
        if (strcmp(a, "--epd") == 0)
            opt.epd = v;
        else if (strcmp(a, "--modes") == 0)
            opt.modes = v;
        else if (strcmp(a, "--hash") == 0)
            opt.hash_mib = (size_t)atoi(v);
        else if (iv)
            *iv = atoi(v);
        else
            return -1;
    }
    return opt.depth >= 1 && opt.depth <= 60 && opt.every >= 1 && opt.from >= 0 && opt.limit >= 1 &&
                   opt.limit <= MAX_POSITIONS && opt.period_ms >= 1 && opt.repeat >= 1 &&
                   opt.hash_mib >= 1 && opt.hash_mib <= 65536
               ? 0
               : -1;
}

int main(int argc, char **argv)
{
    if (parse(argc, argv) < 0) {
        fprintf(stderr, "usage: bench_lazy [--depth D] [--epd FILE] [--every K] [--from I] "
                        "[--limit N] [--hash MIB] [--min-depth M] [--period-ms P] [--repeat R] "
                        "[--modes smp,indep,lazy]\n");
        return 2;
    }
    FILE *f = fopen(opt.epd, "r");
    if (!f) {
        perror(opt.epd);
        return 2;
    }
    ply_engine_t *a = ply_engine_new(opt.hash_mib, 1), *b = ply_engine_new(opt.hash_mib, 1),
                 *s2 = ply_engine_new(opt.hash_mib, 2);
    if (!a || !b || !s2) {
        fprintf(stderr, "bench_lazy: no memory for the tables\n");
        return 2;
    }
    ply_engine_set_net(a, NULL), ply_engine_set_net(b, NULL), ply_engine_set_net(s2, NULL);
    printf("depth %d, tables of %zu MiB, lazy: entries of %d plies or more every %d ms, "
           "%d runs of each parallel mode, %s every %d from %d\n",
           opt.depth, opt.hash_mib, opt.min_depth, opt.period_ms, opt.repeat, opt.epd, opt.every,
           opt.from);
    static double sp[MODES][MAX_POSITIONS];
    double total[MODES] = {0};
    uint64_t moved = 0;
    char line[4096];
    int index = 0, done = 0;
    while (fgets(line, sizeof line, f) && done < opt.limit) {
        if (index++ % opt.every || index - 1 < opt.from) continue;
        char fl[4][96], fen[512];
        if (sscanf(line, "%95s %95s %95s %95s", fl[0], fl[1], fl[2], fl[3]) != 4) continue;
        snprintf(fen, sizeof fen, "%s %s %s %s 0 1", fl[0], fl[1], fl[2], fl[3]);
        static ply_search_pos_t pos;
        char why[128];
        if (ply_search_pos_set(&pos, fen, 0, NULL, 0, why, sizeof why) < 0) continue;
        double t[MODES] = {0};
        t[ONE] = one(a, &pos);
        for (int r = 0; r < opt.repeat; r++) {
            if (runs(SMP)) t[SMP] += one(s2, &pos) / opt.repeat;
            if (runs(INDEP)) t[INDEP] += team(a, b, &pos, 0, &moved) / opt.repeat;
            if (runs(LAZY)) t[LAZY] += team(a, b, &pos, 1, &moved) / opt.repeat;
        }
        printf("#%-4d", index);
        for (int m = 0; m < MODES; m++) {
            if (!runs(m)) continue;
            total[m] += t[m];
            sp[m][done] = t[ONE] / t[m];
            printf("  %s %6.2f s (%.2fx)", mode_name[m], t[m], sp[m][done]);
        }
        printf("\n");
        fflush(stdout);
        done++;
    }
    fclose(f);
    printf("\n%d positions; entries moved %.0f a lazy run\n", done,
           (double)moved / (2.0 * opt.repeat * (done ? done : 1)));
    for (int m = 0; m < MODES && done; m++) {
        if (!runs(m)) continue;
        double lg = 0;
        for (int i = 0; i < done; i++) lg += log(sp[m][i]);
        qsort(sp[m], (size_t)done, sizeof(double), cmpd);
        printf("%-6s total %8.2f s  speed-up %.2f  geometric mean %.2f  median %.2f\n",
               mode_name[m], total[m], total[ONE] / total[m], exp(lg / done), sp[m][done / 2]);
    }
    ply_engine_destroy(&a), ply_engine_destroy(&b), ply_engine_destroy(&s2);
    return 0;
}
