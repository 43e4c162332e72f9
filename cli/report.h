/*
 * What the ply command prints about a run's verification, its restarts and
 * its progress, shared by `ply perft`, `ply result` and `ply status`; and the
 * parsing of --verify. Output is for people (text) or machines (jansson
 * objects); nothing here talks to a coordinator.
 */
#ifndef PLY_CLI_REPORT_H
#define PLY_CLI_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "ply.pb-c.h"

/**
 * ply_report_parse_verify - read a --verify value: "none", "all", or
 * "sample=P" with P a fraction in (0, 1] ("sample=0.05") or a percentage
 * ("sample=5%"). Sets *mode (a Ply__VerifyMode) and *ppm (parts per million,
 * sample only). Returns 0, or PLY_EUSAGE for anything else.
 */
int ply_report_parse_verify(const char *s, int *mode, uint32_t *ppm);

/**
 * ply_report_verification_text - the lines "Verified: ..." (what was
 * computed twice and by what), one "  mismatch: ..." line per listed
 * mismatch, and "Restarts: ..." when results were read back from a state
 * file. Prints nothing for a run without a verification record.
 */
void ply_report_verification_text(FILE *out, const Ply__RunResult *r);

/**
 * ply_report_verification_json - the verification record as a new JSON
 * object (caller owns the reference): mode, counts per kind of check,
 * mismatches with every computation and drill-down, results restored and
 * computed. Returns NULL only when out of memory.
 */
json_t *ply_report_verification_json(const Ply__RunResult *r);

/**
 * ply_report_planned - whether run progress @p tells the run's plan: its jobs_total is
 * the number of jobs it was split into. A run is acknowledged before it is planned
 * (proto/ply.proto, Accepted): until then an active run says 0 jobs, which is no plan.
 * A finished run's count is its plan, 0 included.
 */
int ply_report_planned(const Ply__RunProgress *p);

/** ply_report_progress_json - a RunProgress as a new JSON object (caller owns it);
 * jobs_total is null while the run is not planned (ply_report_planned). */
json_t *ply_report_progress_json(const Ply__RunProgress *p);

/** ply_report_workers_json - a list of WorkerStatus as a new JSON array (caller owns it). */
json_t *ply_report_workers_json(Ply__WorkerStatus *const *w, size_t n);

#endif
