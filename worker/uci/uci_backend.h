/*
 * The search behind the UCI loop (uci.h): a table of operations, so that one
 * loop speaks UCI for ply's engine in this process (ply_uci_builtin_new) and
 * for a cluster (client/uci_cluster.h, `ply uci --workers N`, plugged in by
 * the ply command: this folder has no sockets and no protocol).
 *
 * The loop owns the conversation: parsing, the options MultiPV, UCI_Chess960,
 * Move Overhead and Ponder, `go perft`, the info lines and the one bestmove.
 * A backend owns the search and the options it lists (ply's engine: Hash,
 * Threads, Use NNUE, EvalFile, Clear Hash), which the loop refuses to change
 * during a search.
 *
 * Threads: the loop's job thread calls search (it blocks); stop and ponderhit
 * may come from the input thread at any time while search runs, and a stop
 * that arrives before search has begun applies to it (it then ends early, as
 * ply_engine_stop): the loop clears it with clear_stop, under the lock that
 * guards its own stop calls, when search returns. The other operations are
 * called by the input thread only while no search runs.
 */
#ifndef PLY_WORKER_UCI_BACKEND_H
#define PLY_WORKER_UCI_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "search.h"

/** The kinds of option a backend owns (as the UCI specification names them). */
enum { PLY_UCI_OPTION_SPIN, PLY_UCI_OPTION_BUTTON, PLY_UCI_OPTION_CHECK, PLY_UCI_OPTION_STRING };

/** One option a backend owns: `uci` lists it, `setoption` checks a spin against min..max and
 * a check's true or false. */
typedef struct ply_uci_option {
    const char *name; /* as `setoption name` gives it (matched without case) */
    int type;         /* PLY_UCI_OPTION_* */
    int64_t def, min, max; /* a check's default: def 0 or 1 */
    const char *def_text;  /* a string's default (`uci` writes it, "<empty>" for "") */
} ply_uci_option_t;

/** A line of text for the GUI (the loop writes it as "info string TEXT"); @arg: search's. */
typedef void (*ply_uci_note_fn)(const char *text, void *arg);

/** What one `go` searches. */
typedef struct ply_uci_go {
    const char *fen;          /* the position command's FEN, or "startpos" */
    const char *const *moves; /* its UCI moves, as the GUI wrote them (all legal) */
    int n_moves;
    int chess960;                   /* UCI_Chess960 when the position came */
    const ply_search_pos_t *pos;    /* the same position, read: root and history */
    const ply_search_limits_t *lim; /* the go's limits (searchmoves legal at the root) */
    ply_uci_note_fn note;           /* what the search has to say meanwhile (never NULL) */
} ply_uci_go_t;

typedef struct ply_uci_backend ply_uci_backend_t;

/** What a backend implements (see the top of this file for the threads). */
typedef struct ply_uci_backend_ops {
    const char *id_name;             /* "id name ID_NAME VERSION" */
    const ply_uci_option_t *options; /* the options it owns, in the order `uci` lists them */
    int n_options;
    /* setoption of one of its options (a spin's @value already in min..max; a check's 0 or 1;
     * a button's 0): 0, or a negative PLY_E code with what was refused in @why (the option
     * keeps its value); a text for the GUI may be left in @why on success too */
    int (*set_option)(ply_uci_backend_t *b, const ply_uci_option_t *opt, int64_t value, char *why,
                      size_t why_len);
    /* setoption of one of its string options, @text the words after "value" joined by one
     * space ("" for none or "<empty>"); as set_option. NULL when it has none. */
    int (*set_text)(ply_uci_backend_t *b, const ply_uci_option_t *opt, const char *text,
                    char *why, size_t why_len);
    void (*new_game)(ply_uci_backend_t *b); /* ucinewgame: forget what was learned */
    /* search @go, calling @cb for each line of each iteration as it completes (info->hashfull
     * < 0: not known), and fill *@out (out->best 0: no move, the loop then plays the first
     * legal one). Blocks until a limit, stop, or (infinite, ponder) stop or ponderhit and a
     * limit. 0, or a negative PLY_E code with the reason in @why ("": ply_strerror), and
     * in out->best the best move known so far when there is one. */
    int (*search)(ply_uci_backend_t *b, const ply_uci_go_t *go, ply_search_info_fn cb, void *arg,
                  ply_search_result_t *out, char *why, size_t why_len);
    void (*stop)(ply_uci_backend_t *b);
    void (*clear_stop)(ply_uci_backend_t *b);
    void (*ponderhit)(ply_uci_backend_t *b);
    void (*destroy)(ply_uci_backend_t *b);
} ply_uci_backend_ops_t;

/** A backend: its ops first, its state after (each backend's own struct starts with this). */
struct ply_uci_backend {
    const ply_uci_backend_ops_t *ops;
};

/**
 * ply_uci_builtin_new - ply's engine in this process as a backend: a search
 * table of @hash_mib MiB (the Hash option) and @threads threads (Threads),
 * both 1..the option's max, the evaluation (Use NNUE: the network when there
 * is one, the built-in one or EvalFile's, else the hand-written evaluation;
 * false, the hand-written one always; default search.h's
 * PLY_ENGINE_NNUE_DEFAULT; EvalFile: the network's file, "<built-in>" for the
 * embedded one, loaded and checked when set, a refused file named with its
 * reason and the previous network kept), and the Clear Hash button.
 * Returns NULL when the table cannot be allocated. Destroy with
 * ply_uci_backend_destroy.
 */
ply_uci_backend_t *ply_uci_builtin_new(size_t hash_mib, int threads);

/** ply_uci_backend_destroy - free @*b and NULL it; idempotent. Not during a search. */
void ply_uci_backend_destroy(ply_uci_backend_t **b);

#endif
