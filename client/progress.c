/*
 * The progress display of ply's long commands (see progress.h): the arithmetic and the
 * text are plain functions (unit-tested); the display state decides when and where.
 */
#include "progress.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util/time.h"

int64_t ply_progress_eta_ms(uint64_t elapsed_ms, double work_done, double work_total)
{
    if (!isfinite(work_done) || !isfinite(work_total) || work_done <= 0 || work_total < work_done)
        return -1;
    double left = (double)elapsed_ms * (work_total - work_done) / work_done;
    if (left > 9.0e15) return -1; /* beyond any run (and int64) */
    return (int64_t)llround(left);
}

char *ply_progress_duration(int64_t ms, char *buf, size_t len)
{
    if (ms < 0) {
        snprintf(buf, len, "--");
        return buf;
    }
    int64_t s = ms / 1000;
    if (s < 60)
        snprintf(buf, len, "%" PRId64 " s", s);
    else if (s < 3600)
        snprintf(buf, len, "%" PRId64 " min %02" PRId64 " s", s / 60, s % 60);
    else if (s < 86400)
        snprintf(buf, len, "%" PRId64 " h %02" PRId64 " min", s / 3600, s / 60 % 60);
    else
        snprintf(buf, len, "%" PRId64 " d %02" PRId64 " h", s / 86400, s / 3600 % 24);
    return buf;
}

char *ply_progress_rate(double nps, char *buf, size_t len)
{
    static const char *const prefix[] = {"", "k", "M", "G", "T", "P"};
    int k = 0;
    if (!(nps >= 0) || !isfinite(nps)) nps = 0;
    /* round to three significant digits first, so that 999.6k reads 1.00M, not 1000k */
    while (k < 5 && nps >= 999.5) nps /= 1000, k++;
    int prec = nps >= 99.95 || k == 0 ? 0 : nps >= 9.995 ? 1 : 2;
    snprintf(buf, len, "%.*f %snodes/s", prec, nps, prefix[k]);
    return buf;
}

size_t ply_progress_format(const ply_progress_view_t *v, int bar, char *buf, size_t len)
{
    if (!len) return 0;
    size_t n = 0;
    buf[0] = '\0';
#define PUT(...)                                                                                   \
    do {                                                                                           \
        int w_ = snprintf(buf + n, len - n, __VA_ARGS__);                                          \
        if (w_ > 0) n = n + (size_t)w_ < len ? n + (size_t)w_ : len - 1;                           \
    } while (0)
    if (v->total) {
        uint64_t done = v->done < v->total ? v->done : v->total;
        if (bar > 0) {
            int full = (int)((double)bar * (double)done / (double)v->total);
            PUT("[");
            for (int i = 0; i < bar; i++) PUT("%c", i < full ? '#' : '.');
            PUT("] ");
        }
        PUT("%" PRIu64 "/%" PRIu64 " %s (%d%%)", v->done, v->total, v->unit,
            (int)(100.0 * (double)done / (double)v->total));
    } else {
        PUT("%" PRIu64 " %s", v->done, v->unit);
    }
    char t[32];
    if (v->nps >= 0) PUT("  %s", ply_progress_rate(v->nps, t, sizeof t));
    if (v->extra && v->extra[0]) PUT("  %s", v->extra);
    PUT("  %s", ply_progress_duration((int64_t)v->elapsed_ms, t, sizeof t));
    /* rounded up: "ETA 0 s" would claim it is over */
    PUT("  ETA %s", ply_progress_duration(
                        v->eta_ms > 0 ? (v->eta_ms + 999) / 1000 * 1000 : v->eta_ms, t, sizeof t));
#undef PUT
    return n;
}

void ply_progress_init(ply_progress_t *p, const char *prefix, int quiet)
{
    memset(p, 0, sizeof *p);
    p->prefix = prefix;
    p->mode = quiet                   ? PLY_PROGRESS_OFF
              : isatty(STDERR_FILENO) ? PLY_PROGRESS_TTY
                                      : PLY_PROGRESS_LOG;
    p->interval_ms = PLY_PROGRESS_LOG_MS;
    p->delay_ms = PLY_PROGRESS_DELAY_MS;
    const char *env = getenv("PLY_PROGRESS_MS");
    if (env && *env) {
        char *end;
        long v = strtol(env, &end, 10);
        if (!*end && v >= 10 && v <= 3600000) {
            p->interval_ms = (uint64_t)v;
            if (p->delay_ms > (uint64_t)v) p->delay_ms = (uint64_t)v;
        }
    }
    p->start_ms = p->last_ms = p->base_ms = ply_time_ms();
    p->have_base = 1; /* nothing counted yet; ply_progress_rebase for a resumed run */
}

void ply_progress_restart(ply_progress_t *p)
{
    p->start_ms = p->base_ms = ply_time_ms();
    p->have_base = 1, p->base_nodes = 0;
}

void ply_progress_rebase(ply_progress_t *p)
{
    p->have_base = 0;
}

void ply_progress_clear(ply_progress_t *p)
{
    if (p->shown) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
    p->shown = 0;
}

int ply_progress_width(void)
{
    struct winsize ws;
    return ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20 ? ws.ws_col : 80;
}

void ply_progress_view(ply_progress_t *p, uint64_t done, uint64_t total, const char *unit,
                       double work_done, double work_total, ply_u128_t nodes, int have_nodes,
                       const char *extra, ply_progress_view_t *v)
{
    uint64_t now = ply_time_ms();
    if (have_nodes && !p->have_base) {
        p->have_base = 1;
        p->base_nodes = nodes;
        p->base_ms = now;
    }
    uint64_t elapsed = ply_elapsed_ms(now, p->start_ms);
    if (work_total <= 0) work_done = (double)done, work_total = (double)total;
    double since = (double)ply_elapsed_ms(now, p->base_ms) / 1000.0;
    *v = (ply_progress_view_t){
        .done = done,
        .total = total,
        .unit = unit,
        .nps = have_nodes && p->have_base && since > 0 && nodes >= p->base_nodes
                   ? (double)(nodes - p->base_nodes) / since
                   : -1,
        .elapsed_ms = elapsed,
        .eta_ms = total ? ply_progress_eta_ms(elapsed, work_done, work_total) : -1,
        .extra = extra,
    };
}

void ply_progress_update(ply_progress_t *p, uint64_t done, uint64_t total, const char *unit,
                         double work_done, double work_total, ply_u128_t nodes, int have_nodes,
                         const char *extra)
{
    if (p->mode == PLY_PROGRESS_OFF) return;
    ply_progress_view_t v;
    ply_progress_view(p, done, total, unit, work_done, work_total, nodes, have_nodes, extra, &v);
    ply_progress_show(p, &v);
}

void ply_progress_show(ply_progress_t *p, const ply_progress_view_t *vp)
{
    if (p->mode == PLY_PROGRESS_OFF) return;
    const ply_progress_view_t v = *vp;
    uint64_t now = ply_time_ms();
    if (v.elapsed_ms < p->delay_ms) return;
    if (p->mode == PLY_PROGRESS_LOG && ply_elapsed_ms(now, p->last_ms) < p->interval_ms) return;
    p->last_ms = now;
    char line[512];
    if (p->mode == PLY_PROGRESS_LOG) {
        ply_progress_format(&v, 0, line, sizeof line);
        fprintf(stderr, "%s: %s\n", p->prefix, line);
    } else {
        int width = ply_progress_width();
        size_t n = ply_progress_format(&v,
                                       width >= 100  ? 30
                                       : width >= 80 ? 20
                                                     : 0,
                                       line, sizeof line);
        if (n >= (size_t)width) line[width - 1] = '\0'; /* a wrapped line cannot be redrawn */
        fprintf(stderr, "\r\033[K%s", line);
        p->shown = 1;
    }
    fflush(stderr);
}
