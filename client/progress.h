/*
 * The progress display of ply's long commands (perft, perft --epd, analyse, analyse --epd,
 * analyse-pgn), on standard error: on a terminal, one line redrawn in place (a bar,
 * done/total, nodes/s, elapsed, ETA); when standard error is a file or a pipe (a log
 * under nohup, systemd or Slurm), a plain line every PLY_PROGRESS_LOG_MS; nothing with
 * --quiet. Lines other than the progress (a note, a failure) go through
 * ply_progress_clear first, so that they never mix with a half-drawn bar.
 *
 * The ETA is the time elapsed since the work started, scaled by the work left over the
 * work done: work is what the caller knows of the size of each unit (the expected node
 * counts of an EPD suite's checks), else one per unit (a job, a position). Before the
 * first unit ends nothing is known: "ETA --", never 0.
 */
#ifndef PLY_CLIENT_PROGRESS_H
#define PLY_CLIENT_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "util/u128.h"

/** How often a plain progress line goes to a log (stderr not a terminal), ms. */
#define PLY_PROGRESS_LOG_MS 5000
/** Nothing is shown before a run has gone on this long, ms (short runs stay quiet). */
#define PLY_PROGRESS_DELAY_MS 1000

typedef enum { PLY_PROGRESS_OFF, PLY_PROGRESS_TTY, PLY_PROGRESS_LOG } ply_progress_mode_t;

/** One state of a long command, as ply_progress_format shows it. */
typedef struct ply_progress_view {
    uint64_t done, total; /* units done and in all (total 0: not known) */
    const char *unit;     /* plural: "jobs", "positions", "games" */
    double nps;           /* nodes per second; < 0: not known (not shown) */
    uint64_t elapsed_ms;  /* since the work started */
    int64_t eta_ms;       /* time left, ms; < 0: not known ("ETA --") */
    const char *extra;    /* shown after the rate (e.g. "3 workers"), or NULL */
} ply_progress_view_t;

typedef struct ply_progress {
    const char *prefix; /* of a plain line: "ply perft" */
    ply_progress_mode_t mode;
    uint64_t interval_ms, delay_ms; /* PLY_PROGRESS_LOG_MS, PLY_PROGRESS_DELAY_MS */
    uint64_t start_ms;              /* when the work started (ply_progress_restart) */
    uint64_t last_ms;               /* when the last plain line was written */
    int shown;                      /* a terminal line is on screen */
    int have_base;                  /* base_nodes/base_ms hold the rate's start */
    ply_u128_t base_nodes;          /* nodes already counted then (0, or a resumed run's) */
    uint64_t base_ms;
} ply_progress_t;

/**
 * ply_progress_eta_ms - the time left of work of which @work_done of @work_total (any unit:
 * jobs, estimated nodes) took @elapsed_ms: elapsed x (total - done) / done, rounded to the
 * millisecond. Returns -1 (not known) when nothing is done yet or the figures are not
 * finite, negative or done > total; 0 when all is done.
 */
int64_t ply_progress_eta_ms(uint64_t elapsed_ms, double work_done, double work_total);

/**
 * ply_progress_duration - @ms as people read a duration, into @buf (@len bytes, at least
 * 16): "0 s", "59 s", "1 min 05 s", "59 min 59 s", "1 h 00 min", "2 d 03 h"; negative:
 * "--". Rounds down to the unit shown. Returns @buf.
 */
char *ply_progress_duration(int64_t ms, char *buf, size_t len);

/**
 * ply_progress_rate - @nps nodes per second with an SI prefix and three significant
 * digits into @buf (@len bytes, at least 24): "812 nodes/s", "45.3 knodes/s",
 * "139 Mnodes/s", "1.25 Gnodes/s". Returns @buf.
 */
char *ply_progress_rate(double nps, char *buf, size_t len);

/**
 * ply_progress_format - one progress line of @v into @buf (@len bytes), no newline:
 * with @bar > 0 a bar of that many cells first ("[#####.....] "), then
 * "12/20 jobs (60%)  45.3 Mnodes/s  <extra>  12 s  ETA 8 s". A total of 0 shows only
 * "12 jobs" and no bar. Returns the length written (snprintf's, cut to @len - 1).
 */
size_t ply_progress_format(const ply_progress_view_t *v, int bar, char *buf, size_t len);

/**
 * ply_progress_init - a display for the command @prefix ("ply perft"; kept, not copied):
 * off with @quiet, else a terminal's or a log's as standard error is. The environment
 * variable PLY_PROGRESS_MS (milliseconds, 10..3600000) replaces PLY_PROGRESS_LOG_MS and,
 * when shorter, PLY_PROGRESS_DELAY_MS (for logs that want more, and for tests).
 */
void ply_progress_init(ply_progress_t *p, const char *prefix, int quiet);

/** ply_progress_restart - the work starts now, none counted (a queued run's wait is over). */
void ply_progress_restart(ply_progress_t *p);

/**
 * ply_progress_rebase - the nodes of the next update were counted before (a run resumed
 * from a state file): the rate starts from them, then.
 */
void ply_progress_rebase(ply_progress_t *p);

/**
 * ply_progress_update - show that @done of @total units (@unit) are done, @work_done of
 * @work_total for the ETA (both 0: the units), @nodes counted so far (the rate is of
 * those counted since the first update: a resumed run's earlier nodes do not count),
 * @extra after the rate or NULL. Draws on a terminal; writes a plain line when the
 * interval has passed; nothing before the delay, nothing when off.
 */
void ply_progress_update(ply_progress_t *p, uint64_t done, uint64_t total, const char *unit,
                         double work_done, double work_total, ply_u128_t nodes, int have_nodes,
                         const char *extra);

/**
 * ply_progress_view - what ply_progress_update would show, into *@v (strings point to the
 * arguments), without showing it: for a command that draws its own live display (ply
 * analyse's table) with this line under it. Starts the rate's base as the update does.
 */
void ply_progress_view(ply_progress_t *p, uint64_t done, uint64_t total, const char *unit,
                       double work_done, double work_total, ply_u128_t nodes, int have_nodes,
                       const char *extra, ply_progress_view_t *v);

/**
 * ply_progress_show - show @v (from ply_progress_view, perhaps with an ETA of the caller's:
 * a deepening analysis knows its time left from its wall time, not from units done) as
 * ply_progress_update would: drawn on a terminal, a plain line when the interval has
 * passed, nothing before the delay, nothing when off.
 */
void ply_progress_show(ply_progress_t *p, const ply_progress_view_t *v);

/** ply_progress_width - standard error's terminal width in columns (80 when unknown). */
int ply_progress_width(void);

/** ply_progress_clear - erase the terminal line if one is shown (before other output). */
void ply_progress_clear(ply_progress_t *p);

#endif
