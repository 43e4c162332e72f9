/*
 * Tests of proto/envelope_validate.c (ply_msg_validate): per message type, each required
 * field missing and values out of range, starting from the golden messages of
 * tests/support/proto_golden.h; each case also through the wire (encoded by protobuf-c,
 * decoded by ply_msg_decode: the same verdict), and every type with a required field has
 * both kinds of case.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envelope.h"
#include "proto_golden.h"
#include "util/error.h"

/* ------------------------------------------------------- validation tests */

/*
 * One case: start from the golden message of @file, apply @edit, expect @rc
 * and (for errors) a reason starting with @reason. Each edit is a tiny
 * function so that a table can name it.
 */
typedef struct vcase {
    const char *file;
    void (*edit)(ply_msg_t *m);
    int rc;
    const char *reason;
} vcase_t;

EDIT(hello_no_id, m->hello->worker_id = NULL)
EDIT(hello_empty_id, m->hello->worker_id = "")
EDIT(hello_long_id, m->hello->worker_id = long_text)
EDIT(hello_max_id, m->hello->worker_id = max_text)
EDIT(hello_newline_id, m->hello->worker_id = "node07\nFAKE LOG LINE")
EDIT(hello_no_protocol, m->hello->has_protocol = 0)
EDIT(hello_protocol_1, m->hello->protocol = 1) /* a PLY/1 worker's */
EDIT(hello_bad_build, m->hello->build = "gcc \xff\xfe")
EDIT(hello_overlong_utf8, m->hello->build = "slash \xc0\xaf")
EDIT(hello_surrogate, m->hello->build = "\xed\xa0\x80")
EDIT(hello_emoji, m->hello->build = "ply \xf0\x9f\x90\xb4 ok")
EDIT(hello_no_build, m->hello->build = NULL)
EDIT(hello_no_threads, m->hello->has_threads = 0)
EDIT(hello_threads_0, m->hello->threads = 0)
EDIT(hello_threads_max, m->hello->threads = 4096)
EDIT(hello_threads_over, m->hello->threads = 4097)
EDIT(hello_no_hash, m->hello->has_hash_mib = 0)
EDIT(hello_no_zobrist, m->hello->has_zobrist_checksum = 0)
EDIT(hello_no_seed, m->hello->has_zobrist_seed = 0)
EDIT(welcome_no_hb, m->welcome->has_heartbeat_ms = 0)
EDIT(welcome_hb_0, m->welcome->heartbeat_ms = 0)
EDIT(welcome_hb_max, m->welcome->heartbeat_ms = 600000)
EDIT(welcome_hb_over, m->welcome->heartbeat_ms = 600001)
EDIT(welcome_no_live, m->welcome->has_liveness = 0)
EDIT(welcome_live_0, m->welcome->liveness = 0)
EDIT(welcome_live_over, m->welcome->liveness = 1001)
EDIT(ready_no_credit, m->ready->has_credit = 0)
EDIT(ready_credit_0, m->ready->credit = 0)
EDIT(ready_credit_max, m->ready->credit = PLY_MAX_CREDIT)
EDIT(ready_credit_over, m->ready->credit = PLY_MAX_CREDIT + 1)
EDIT(job_no_id, m->job->has_job_id = 0)
EDIT(job_id_0, m->job->job_id = 0)
EDIT(job_no_attempt, m->job->has_attempt = 0)
EDIT(job_attempt_0, m->job->attempt = 0)
EDIT(job_no_kind, m->job->has_kind = 0)
EDIT(job_kind_0, m->job->kind = PLY__JOB_KIND__JOB_KIND_UNSPECIFIED)
EDIT(job_kind_7, m->job->kind = 7)
/* a kind of the registry (any number): its job travels in other, which the envelope passes */
EDIT(job_kind_7_other, (m->job->kind = 7, m->job->perft = NULL, m->job->has_other = 1,
                        m->job->other.len = 3, m->job->other.data = (uint8_t *)"\x08\x01\x10"))
EDIT(job_kind_7_no_other, (m->job->kind = 7, m->job->perft = NULL))
EDIT(job_kind_max_other, (m->job->kind = UINT32_MAX, m->job->perft = NULL, m->job->has_other = 1))
EDIT(job_no_perft, m->job->perft = NULL)
EDIT(job_perft_other, m->job->has_other = 1)
EDIT(job_no_fen, m->job->perft->fen = NULL)
EDIT(job_empty_fen, m->job->perft->fen = "")
EDIT(job_long_fen, m->job->perft->fen = long_fen)
EDIT(job_max_fen, m->job->perft->fen = max_fen)
EDIT(job_tab_fen, m->job->perft->fen = "8/8/8/8/8/8/8/K1k5\tw - - 0 1")
EDIT(job_utf8_fen, m->job->perft->fen = "8/8/8/8/8/8/8/K1k5 w - - 0 1 \xc3\xa9")
EDIT(job_no_depth, m->job->perft->has_depth = 0)
EDIT(job_depth_0, m->job->perft->depth = 0)
EDIT(job_depth_max, m->job->perft->depth = PLY_MAX_JOB_DEPTH)
EDIT(job_depth_over, m->job->perft->depth = PLY_MAX_JOB_DEPTH + 1)
EDIT(job_no_run, m->job->has_run_id = 0)
EDIT(job_run_0, m->job->run_id = 0)
EDIT(progress_no_id, m->progress->has_job_id = 0)
EDIT(progress_no_attempt, m->progress->has_attempt = 0)
EDIT(progress_attempt_0, m->progress->attempt = 0)
EDIT(progress_no_nodes, m->progress->has_nodes = 0)
EDIT(result_no_id, m->result->has_job_id = 0)
EDIT(result_id_0, m->result->job_id = 0)
EDIT(result_no_attempt, m->result->has_attempt = 0)
EDIT(result_no_nodes, m->result->has_nodes = 0)
EDIT(result_no_perft1, m->result->has_perft1 = 0)
EDIT(result_perft1_max, m->result->perft1 = PLY_MAX_DIVIDE)
EDIT(result_perft1_over, m->result->perft1 = PLY_MAX_DIVIDE + 1)
EDIT(result_no_time, m->result->has_time_us = 0)
EDIT(result_no_stats, m->result->stats = NULL)
EDIT(result_divide_max, m->result = result_with_entries(PLY_MAX_DIVIDE)->result)
EDIT(result_divide_over, m->result = result_with_entries(PLY_MAX_DIVIDE + 1)->result)
EDIT(result_divide_none, m->result->n_divide = 0)
EDIT(result_move_rank9, m->result->divide[1]->move = "e2e9")
EDIT(result_move_king, m->result->divide[2]->move = "b7b8k")
EDIT(result_move_short, m->result->divide[0]->move = "e2e")
EDIT(result_move_long, m->result->divide[0]->move = "e2e4qq")
EDIT(result_move_upper, m->result->divide[0]->move = "E2E4")
EDIT(result_move_null, m->result->divide[0]->move = "0000")
EDIT(result_move_missing, m->result->divide[0]->move = NULL)
EDIT(result_entry_no_nodes, m->result->divide[2]->has_nodes = 0)
/* 128-bit sums (fields 40-49): hi words of one job's counts are absent or 0; a run's any */
static uint64_t hi_words[PLY_STATS_N] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
EDIT(result_stats_hi, (m->result->stats->n_hi = PLY_STATS_N, m->result->stats->hi = hi_words))
EDIT(result_entry_hi, (m->result->divide[0]->has_nodes_hi = 1, m->result->divide[0]->nodes_hi = 1))
EDIT(result_entry_hi_0,
     (m->result->divide[0]->has_nodes_hi = 1, m->result->divide[0]->nodes_hi = 0))
EDIT(run_result_hi,
     (m->run_result->has_nodes_hi = 1, m->run_result->nodes_hi = 109,
      m->run_result->divide[0]->has_nodes_hi = 1, m->run_result->divide[0]->nodes_hi = UINT64_MAX))
EDIT(run_result_stats_hi,
     (m->run_result->stats->n_hi = PLY_STATS_N, m->run_result->stats->hi = hi_words))
EDIT(run_result_stats_hi_short,
     (m->run_result->stats->n_hi = 3, m->run_result->stats->hi = hi_words))
EDIT(run_result_entry_stats_hi_long, (m->run_result->divide[1]->stats->n_hi = PLY_STATS_N + 1,
                                      m->run_result->divide[1]->stats->hi = hi_words))
EDIT(error_no_code, m->error->has_code = 0)
EDIT(error_code_0, m->error->code = 0)
EDIT(error_code_pos, m->error->code = 5)
EDIT(error_code_min, m->error->code = INT32_MIN)
EDIT(error_no_message, m->error->message = NULL)
EDIT(error_empty_message, m->error->message = "")
EDIT(error_long_message, m->error->message = long_text)
EDIT(error_bad_supported, m->error->supported = "PLY/1\r\n")
EDIT(bye_long, m->bye->reason = long_text)
EDIT(bye_escape, m->bye->reason = "\x1b[31mred")
EDIT(bye_none, m->bye->reason = NULL)
EDIT(submit_no_kind, m->submit->has_kind = 0)
EDIT(submit_kind_0, m->submit->kind = 0)
EDIT(submit_no_perft, m->submit->perft = NULL)
EDIT(submit_kind_9_other, (m->submit->kind = 9, m->submit->perft = NULL, m->submit->has_other = 1))
EDIT(submit_kind_9_no_other, (m->submit->kind = 9, m->submit->perft = NULL))
EDIT(submit_kind_9_perft, (m->submit->kind = 9, m->submit->has_other = 1))
EDIT(submit_no_fen, m->submit->perft->fen = NULL)
EDIT(submit_no_depth, m->submit->perft->has_depth = 0)
EDIT(submit_depth_0, m->submit->perft->depth = 0)
EDIT(submit_depth_max, m->submit->perft->depth = PLY_MAX_DEPTH)
EDIT(submit_depth_over, m->submit->perft->depth = PLY_MAX_DEPTH + 1)
EDIT(submit_split_low, m->submit->perft->split_depth = -2)
EDIT(submit_split_top, m->submit->perft->split_depth = 6)
EDIT(submit_split_over, m->submit->perft->split_depth = 7)
EDIT(submit_split_absent,
     (m->submit->perft->has_split_depth = 0, m->submit->perft->split_depth = 99))
EDIT(submit_long_client, m->submit->client_id = long_text)
EDIT(submit_key_16, (m->submit->has_idempotency_key = 1, m->submit->idempotency_key.len = 16,
                     m->submit->idempotency_key.data = (uint8_t *)long_text))
EDIT(submit_key_64, (m->submit->has_idempotency_key = 1, m->submit->idempotency_key.len = 64,
                     m->submit->idempotency_key.data = (uint8_t *)long_text))
EDIT(submit_key_15, (m->submit->has_idempotency_key = 1, m->submit->idempotency_key.len = 15,
                     m->submit->idempotency_key.data = (uint8_t *)long_text))
EDIT(submit_key_65, (m->submit->has_idempotency_key = 1, m->submit->idempotency_key.len = 65,
                     m->submit->idempotency_key.data = (uint8_t *)long_text))
EDIT(accepted_no_run, m->accepted->has_run_id = 0)
EDIT(accepted_run_0, m->accepted->run_id = 0)
EDIT(accepted_no_jobs, m->accepted->has_jobs = 0)
EDIT(accepted_jobs_0, m->accepted->jobs = 0)
EDIT(accepted_no_split, m->accepted->has_split_depth = 0)
EDIT(accepted_split_over, m->accepted->split_depth = PLY_MAX_DEPTH + 1)
EDIT(accepted_bad_fen, m->accepted->fen = "8/8\x01")
EDIT(accepted_no_fen, m->accepted->fen = NULL)
EDIT(status_empty, m->status->has_run_id = 0)
EDIT(heartbeat_empty,
     (m->heartbeat->has_nodes = m->heartbeat->has_job_id = 0, m->heartbeat->has_attempt = 0))
EDIT(progress_run_no_run, m->run_progress->has_run_id = 0)
EDIT(progress_run_no_state, m->run_progress->state = NULL)
EDIT(progress_run_bad_worker, m->run_progress->worker[1]->worker_id = "a\x7f")
EDIT(progress_run_no_workers, m->run_progress->n_worker = 0)
EDIT(run_result_no_run, m->run_result->has_run_id = 0)
EDIT(run_result_no_fen, m->run_result->fen = NULL)
EDIT(run_result_no_depth, m->run_result->has_depth = 0)
EDIT(run_result_depth_over, m->run_result->depth = PLY_MAX_DEPTH + 1)
EDIT(run_result_no_nodes, m->run_result->has_nodes = 0)
EDIT(run_result_bad_move, m->run_result->divide[1]->move = "g1f3n5")
EDIT(run_result_bad_detail, m->run_result->verification->detail[1] = "\xc0\xaf")
EDIT(run_result_long_mode, m->run_result->verification->mode = long_text)
static char *bad_exclusion[PLY_MAX_EXCLUSIONS + 1] = {"worker w (curve:K): caught \x1b[31m"};
EDIT(run_result_bad_exclusion, (m->run_result->verification->n_exclusion = 1,
                                m->run_result->verification->exclusion = bad_exclusion))
static char *many_exclusions[PLY_MAX_EXCLUSIONS + 1];
static void run_result_many_exclusions(ply_msg_t *m)
{
    for (int i = 0; i <= PLY_MAX_EXCLUSIONS; i++) many_exclusions[i] = "w (conn:00): caught";
    m->run_result->verification->n_exclusion = PLY_MAX_EXCLUSIONS + 1;
    m->run_result->verification->exclusion = many_exclusions;
}
EDIT(run_result_bad_identity,
     m->run_result->verification->mismatch[0]->computation[0]->identity = "conn:\x7f")
EDIT(run_result_no_verif, m->run_result->verification = NULL)
/* RunAsked (what a run computes), attached to the answers that may carry it */
static Ply__RunAsked g_asked;
static Ply__PerftRequest g_asked_perft;
static Ply__RunAsked *asked_ok(void)
{
    g_asked_perft = (Ply__PerftRequest)PLY__PERFT_REQUEST__INIT;
    g_asked_perft.fen = (char *)STARTFEN;
    g_asked_perft.has_depth = 1, g_asked_perft.depth = 7;
    g_asked_perft.has_split_depth = 1, g_asked_perft.split_depth = -1;
    g_asked = (Ply__RunAsked)PLY__RUN_ASKED__INIT;
    g_asked.has_kind = 1, g_asked.kind = PLY__JOB_KIND__JOB_KIND_PERFT;
    g_asked.perft = &g_asked_perft;
    g_asked.has_verify = 1, g_asked.verify = PLY__VERIFY_MODE__VERIFY_MODE_NONE;
    return &g_asked;
}
EDIT(submit_short_token, m->submit->owner_token = "0123456789abcde")
EDIT(submit_token, m->submit->owner_token = "0123456789abcdef")
EDIT(status_token_space, m->status->owner_token = "0123456789 abcdef")
EDIT(result_request_long_token, m->result_request->owner_token = long_text)
EDIT(cancel_token_utf8, m->cancel->owner_token = "0123456789abcdef\xc3\xa9")
EDIT(accepted_asked, m->accepted->asked = asked_ok())
EDIT(accepted_asked_no_fen, (m->accepted->asked = asked_ok())->perft->fen = NULL)
EDIT(accepted_asked_long_fen, (m->accepted->asked = asked_ok())->perft->fen = long_fen)
EDIT(accepted_asked_no_kind, (m->accepted->asked = asked_ok())->has_kind = 0)
EDIT(accepted_asked_no_perft, (m->accepted->asked = asked_ok())->perft = NULL)
EDIT(accepted_asked_other, (m->accepted->asked = asked_ok(), g_asked.kind = 12,
                            g_asked.perft = NULL, g_asked.has_other = 1))
EDIT(accepted_asked_other_missing,
     (m->accepted->asked = asked_ok(), g_asked.kind = 12, g_asked.perft = NULL))
EDIT(run_result_asked_no_depth, (m->run_result->asked = asked_ok())->perft->has_depth = 0)
EDIT(run_result_asked_no_split, (m->run_result->asked = asked_ok())->perft->has_split_depth = 0)
EDIT(run_result_asked_split_over, (m->run_result->asked = asked_ok())->perft->split_depth = 7)
EDIT(run_result_asked_split_under, (m->run_result->asked = asked_ok())->perft->split_depth = -2)
/* another kind's answer: its bytes in other, none of perft's or search's fields */
EDIT(run_result_other, (m->run_result->has_other = 1, m->run_result->n_divide = 0,
                        m->run_result->stats = NULL, m->run_result->has_depth = 0))
EDIT(run_result_other_divide, (m->run_result->has_other = 1, m->run_result->stats = NULL))
EDIT(result_other,
     (m->result->has_other = 1, m->result->has_nodes = 0, m->result->stats = NULL,
      m->result->has_perft1 = 0, m->result->n_divide = 0, m->result->has_tt_nodes = 0))
EDIT(result_other_nodes,
     (m->result->has_other = 1, m->result->stats = NULL, m->result->has_perft1 = 0,
      m->result->n_divide = 0, m->result->has_tt_nodes = 0))
EDIT(run_result_tail_ok, (m->run_result->has_tail_ms = 1, m->run_result->tail_ms = 12345))
EDIT(run_result_tail_over, (m->run_result->has_tail_ms = 1, m->run_result->tail_ms = 12346))
EDIT(run_result_tail_no_time,
     (m->run_result->has_time_ms = 0, m->run_result->has_tail_ms = 1, m->run_result->tail_ms = 1))
EDIT(progress_asked_verify_bad, (m->run_progress->asked = asked_ok())->verify = (Ply__VerifyMode)3)
EDIT(progress_asked_sample_no_ppm,
     (m->run_progress->asked = asked_ok())->verify = PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE)
EDIT(progress_asked_ppm_without, asked_ok()->has_verify_ppm = 1; g_asked.verify_ppm = 5;
     m->run_progress->asked = &g_asked)
EDIT(progress_asked_sample, asked_ok()->verify = PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE;
     g_asked.has_verify_ppm = 1; g_asked.verify_ppm = 5; m->run_progress->asked = &g_asked)
EDIT(result_request_no_run, m->result_request->has_run_id = 0)
EDIT(result_request_run_0, m->result_request->run_id = 0)
EDIT(cancel_no_run, m->cancel->has_run_id = 0)
EDIT(cancel_run_0, m->cancel->run_id = 0)
/* the coordinator's Cancel to a worker names the attempt to stop: job_id and attempt together */
EDIT(cancel_to_worker, (m->cancel->has_job_id = 1, m->cancel->job_id = 5,
                        m->cancel->has_attempt = 1, m->cancel->attempt = 2))
EDIT(cancel_job_no_attempt, (m->cancel->has_job_id = 1, m->cancel->job_id = 5))
EDIT(cancel_attempt_no_job, (m->cancel->has_attempt = 1, m->cancel->attempt = 2))
EDIT(cancel_job_0, (m->cancel->has_job_id = 1, m->cancel->job_id = 0, m->cancel->has_attempt = 1,
                    m->cancel->attempt = 2))
EDIT(cancel_attempt_0, (m->cancel->has_job_id = 1, m->cancel->job_id = 5,
                        m->cancel->has_attempt = 1, m->cancel->attempt = 0))
EDIT(submit_verify_bad, m->submit->verify = (Ply__VerifyMode)3)
EDIT(submit_sample_no_ppm, m->submit->has_verify_ppm = 0)
EDIT(submit_sample_ppm_0, m->submit->verify_ppm = 0)
EDIT(submit_sample_ppm_over, m->submit->verify_ppm = PLY_PPM + 1)
EDIT(submit_all_with_ppm, m->submit->verify = PLY__VERIFY_MODE__VERIFY_MODE_ALL)
EDIT(submit_all,
     (m->submit->verify = PLY__VERIFY_MODE__VERIFY_MODE_ALL, m->submit->has_verify_ppm = 0))
EDIT(progress_run_bad_fen, m->run_progress->fen = "rnbqkbnr\n")
EDIT(progress_run_bad_error, m->run_progress->error = long_text)
EDIT(run_result_bad_summary, m->run_result->verification->summary = "two\nlines")
/* Lists one entry longer than allowed, every entry the golden one (they must still pack). */
static void run_result_many_mismatches(ply_msg_t *m)
{
    static Ply__Mismatch *many[PLY_MAX_MISMATCHES + 1];
    for (size_t i = 0; i <= PLY_MAX_MISMATCHES; i++)
        many[i] = m->run_result->verification->mismatch[0];
    m->run_result->verification->mismatch = many;
    m->run_result->verification->n_mismatch = PLY_MAX_MISMATCHES + 1;
}

static void run_result_many_computations(ply_msg_t *m)
{
    static Ply__Computation *many[PLY_MAX_COMPUTATIONS + 1];
    Ply__Mismatch *x = m->run_result->verification->mismatch[0];
    for (size_t i = 0; i <= PLY_MAX_COMPUTATIONS; i++) many[i] = x->computation[i % 2];
    x->computation = many;
    x->n_computation = PLY_MAX_COMPUTATIONS + 1;
}
EDIT(run_result_mismatch_fen, m->run_result->verification->mismatch[0]->fen = long_fen)
EDIT(run_result_computation_id,
     m->run_result->verification->mismatch[0]->computation[1]->worker_id = "a\tb")
EDIT(status_reply_run_no_state, m->status_reply->run[0]->state = NULL)
EDIT(status_reply_bad_worker, m->status_reply->worker[0]->worker_id = "\x1b[31m")
EDIT(status_reply_bad_identity, m->status_reply->worker[0]->identity = "curve:\x1b[31m")
EDIT(progress_run_bad_identity, m->run_progress->worker[1]->identity = "conn:\n")
EDIT(status_reply_empty, (m->status_reply->n_run = 0, m->status_reply->n_worker = 0))

static const vcase_t VCASES[] = {
    {"hello", hello_no_id, PLY_EPROTO, "HELLO: field worker_id missing"},
    {"hello", hello_empty_id, PLY_EPROTO, "HELLO: field worker_id is 0 bytes, must be 1..512"},
    {"hello", hello_long_id, PLY_EPROTO, "HELLO: field worker_id is over 512 bytes"},
    {"hello", hello_max_id, 0, NULL},
    {"hello", hello_newline_id, PLY_EPROTO, "HELLO: field worker_id has a control character"},
    {"hello", hello_no_protocol, PLY_EPROTO, "HELLO: field protocol missing"},
    {"hello", hello_protocol_1, PLY_EPROTO, "HELLO: field protocol = 1, must be 2"},
    {"hello", hello_bad_build, PLY_EPROTO, "HELLO: field build has a control character or invalid"},
    {"hello", hello_overlong_utf8, PLY_EPROTO, "HELLO: field build has"},
    {"hello", hello_surrogate, PLY_EPROTO, "HELLO: field build has"},
    {"hello", hello_emoji, 0, NULL},
    {"hello", hello_no_build, 0, NULL},
    {"hello", hello_no_threads, PLY_EPROTO, "HELLO: field threads missing"},
    {"hello", hello_threads_0, PLY_EPROTO, "HELLO: field threads = 0, must be 1..4096"},
    {"hello", hello_threads_max, 0, NULL},
    {"hello", hello_threads_over, PLY_EPROTO, "HELLO: field threads = 4097, must be 1..4096"},
    {"hello", hello_no_hash, PLY_EPROTO, "HELLO: field hash_mib missing"},
    {"hello", hello_no_zobrist, PLY_EPROTO, "HELLO: field zobrist_checksum missing"},
    {"hello", hello_no_seed, 0, NULL},
    {"welcome", welcome_no_hb, PLY_EPROTO, "WELCOME: field heartbeat_ms missing"},
    {"welcome", welcome_hb_0, PLY_EPROTO, "WELCOME: field heartbeat_ms = 0, must be 1..600000"},
    {"welcome", welcome_hb_max, 0, NULL},
    {"welcome", welcome_hb_over, PLY_EPROTO, "WELCOME: field heartbeat_ms = 600001"},
    {"welcome", welcome_no_live, PLY_EPROTO, "WELCOME: field liveness missing"},
    {"welcome", welcome_live_0, PLY_EPROTO, "WELCOME: field liveness = 0, must be 1..1000"},
    {"welcome", welcome_live_over, PLY_EPROTO, "WELCOME: field liveness = 1001"},
    {"ready", ready_no_credit, PLY_EPROTO, "READY: field credit missing"},
    {"ready", ready_credit_0, PLY_EPROTO, "READY: field credit = 0, must be 1..1024"},
    {"ready", ready_credit_max, 0, NULL},
    {"ready", ready_credit_over, PLY_EPROTO, "READY: field credit = 1025, must be 1..1024"},
    {"job", job_no_id, PLY_EPROTO, "JOB: field job_id missing"},
    {"job", job_id_0, PLY_EPROTO, "JOB: field job_id = 0, must be at least 1"},
    {"job", job_no_attempt, PLY_EPROTO, "JOB: field attempt missing"},
    {"job", job_attempt_0, PLY_EPROTO, "JOB: field attempt = 0, must be at least 1"},
    {"job", job_no_kind, PLY_EPROTO, "JOB: field kind missing"},
    {"job", job_kind_0, PLY_EPROTO, "JOB: field kind = 0, must be 1..4294967295"},
    {"job", job_kind_7, PLY_EPROTO, "JOB: field perft present in a job of kind 7"},
    {"job", job_kind_7_other, 0, NULL},
    {"job", job_kind_7_no_other, PLY_EPROTO,
     "JOB: field other missing (kind 7 is not one proto/ describes: its job travels in other)"},
    {"job", job_kind_max_other, 0, NULL},
    {"job", job_no_perft, PLY_EPROTO, "JOB: field perft missing (kind PERFT)"},
    {"job", job_perft_other, PLY_EPROTO, "JOB: field other present in a PERFT job"},
    {"job", job_no_fen, PLY_EPROTO, "JOB: field perft.fen missing"},
    {"job", job_empty_fen, PLY_EPROTO, "JOB: field perft.fen is 0 bytes, must be 1..128"},
    {"job", job_long_fen, PLY_EPROTO, "JOB: field perft.fen is over 128 bytes"},
    {"job", job_max_fen, 0, NULL},
    {"job", job_tab_fen, PLY_EPROTO, "JOB: field perft.fen has a byte that is not printable ASCII"},
    {"job", job_utf8_fen, PLY_EPROTO,
     "JOB: field perft.fen has a byte that is not printable ASCII"},
    {"job", job_no_depth, PLY_EPROTO, "JOB: field perft.depth missing"},
    {"job", job_depth_0, PLY_EPROTO, "JOB: field perft.depth = 0, must be 1..16"},
    {"job", job_depth_max, 0, NULL},
    {"job", job_depth_over, PLY_EPROTO, "JOB: field perft.depth = 17, must be 1..16"},
    {"job", job_no_run, PLY_EPROTO, "JOB: field run_id missing"},
    {"job", job_run_0, PLY_EPROTO, "JOB: field run_id = 0"},
    {"progress", progress_no_id, PLY_EPROTO, "PROGRESS: field job_id missing"},
    {"progress", progress_no_attempt, PLY_EPROTO, "PROGRESS: field attempt missing"},
    {"progress", progress_attempt_0, PLY_EPROTO, "PROGRESS: field attempt = 0"},
    {"progress", progress_no_nodes, PLY_EPROTO, "PROGRESS: field nodes missing"},
    {"result", result_no_id, PLY_EPROTO, "RESULT: field job_id missing"},
    {"result", result_id_0, PLY_EPROTO, "RESULT: field job_id = 0"},
    {"result", result_no_attempt, PLY_EPROTO, "RESULT: field attempt missing"},
    {"result", result_no_nodes, PLY_EPROTO, "RESULT: field nodes missing"},
    {"result", result_no_perft1, PLY_EPROTO, "RESULT: field perft1 missing"},
    {"result", result_perft1_max, 0, NULL},
    {"result", result_perft1_over, PLY_EPROTO, "RESULT: field perft1 = 257, must be 0..256"},
    {"result", result_no_time, PLY_EPROTO, "RESULT: field time_us missing"},
    {"result", result_no_stats, 0, NULL},
    {"result", result_divide_max, 0, NULL},
    {"result", result_divide_over, PLY_EPROTO, "RESULT: field divide has 257 entries"},
    {"result", result_divide_none, 0, NULL},
    {"result", result_move_rank9, PLY_EPROTO, "RESULT: field divide[1].move is not a UCI move"},
    {"result", result_move_king, PLY_EPROTO, "RESULT: field divide[2].move is not a UCI move"},
    {"result", result_move_short, PLY_EPROTO, "RESULT: field divide[0].move is not a UCI move"},
    {"result", result_move_long, PLY_EPROTO, "RESULT: field divide[0].move is not a UCI move"},
    {"result", result_move_upper, PLY_EPROTO, "RESULT: field divide[0].move is not a UCI move"},
    {"result", result_move_null, PLY_EPROTO, "RESULT: field divide[0].move is not a UCI move"},
    {"result", result_move_missing, PLY_EPROTO, "RESULT: field divide[0].move missing"},
    {"result", result_entry_no_nodes, PLY_EPROTO, "RESULT: field divide[2].nodes missing"},
    {"result", result_stats_hi, PLY_EPROTO,
     "RESULT: field stats.hi present: one job's counts fit in 64 bits"},
    {"result", result_entry_hi, PLY_EPROTO,
     "RESULT: field divide[0].nodes_hi = 1: one job's counts fit in 64 bits"},
    {"result", result_entry_hi_0, 0, NULL},
    {"run_result", run_result_hi, 0, NULL},
    {"run_result", run_result_stats_hi, 0, NULL},
    {"run_result", run_result_stats_hi_short, PLY_EPROTO,
     "RUN_RESULT: field stats.hi has 3 words, must be 0 or 15"},
    {"run_result", run_result_entry_stats_hi_long, PLY_EPROTO,
     "RUN_RESULT: field divide[1].stats.hi has 16 words, must be 0 or 15"},
    {"error", error_no_code, PLY_EPROTO, "ERROR: field code missing"},
    {"error", error_code_0, PLY_EPROTO, "ERROR: field code = 0, must be negative"},
    {"error", error_code_pos, PLY_EPROTO, "ERROR: field code = 5, must be negative"},
    {"error", error_code_min, 0, NULL},
    {"error", error_no_message, PLY_EPROTO, "ERROR: field message missing"},
    {"error", error_empty_message, PLY_EPROTO, "ERROR: field message is 0 bytes"},
    {"error", error_long_message, PLY_EPROTO, "ERROR: field message is over 512 bytes"},
    {"error", error_bad_supported, PLY_EPROTO, "ERROR: field supported has a control"},
    {"bye", bye_long, PLY_EPROTO, "BYE: field reason is over 512 bytes"},
    {"bye", bye_escape, PLY_EPROTO, "BYE: field reason has a control character"},
    {"bye", bye_none, 0, NULL},
    {"submit", submit_no_kind, PLY_EPROTO, "SUBMIT: field kind missing"},
    {"submit", submit_kind_0, PLY_EPROTO, "SUBMIT: field kind = 0, must be 1..4294967295"},
    {"submit", submit_no_perft, PLY_EPROTO, "SUBMIT: field perft missing (kind PERFT)"},
    {"submit", submit_kind_9_other, 0, NULL},
    {"submit", submit_kind_9_no_other, PLY_EPROTO,
     "SUBMIT: field other missing (kind 9 is not one proto/ describes: its submit travels in "
     "other)"},
    {"submit", submit_kind_9_perft, PLY_EPROTO,
     "SUBMIT: field perft present in a submit of kind 9"},
    {"submit", submit_no_fen, PLY_EPROTO, "SUBMIT: field perft.fen missing"},
    {"submit", submit_no_depth, PLY_EPROTO, "SUBMIT: field perft.depth missing"},
    {"submit", submit_depth_0, PLY_EPROTO, "SUBMIT: field perft.depth = 0, must be 1..16"},
    {"submit", submit_depth_max, 0, NULL},
    {"submit", submit_depth_over, PLY_EPROTO, "SUBMIT: field perft.depth = 17, must be 1..16"},
    {"submit", submit_split_low, PLY_EPROTO, "SUBMIT: field perft.split_depth = -2, must be -1..6"},
    {"submit", submit_split_top, 0, NULL},
    {"submit", submit_split_over, PLY_EPROTO, "SUBMIT: field perft.split_depth = 7, must be -1..6"},
    {"submit", submit_split_absent, 0, NULL},
    {"submit", submit_long_client, PLY_EPROTO, "SUBMIT: field client_id is over 512 bytes"},
    {"accepted", accepted_no_run, PLY_EPROTO, "ACCEPTED: field run_id missing"},
    {"accepted", accepted_run_0, PLY_EPROTO, "ACCEPTED: field run_id = 0"},
    {"submit", submit_key_16, 0, NULL},
    {"submit", submit_key_64, 0, NULL},
    {"submit", submit_key_15, PLY_EPROTO,
     "SUBMIT: field idempotency_key is 15 bytes, must be 16..64"},
    {"submit", submit_key_65, PLY_EPROTO,
     "SUBMIT: field idempotency_key is 65 bytes, must be 16..64"},
    /* acknowledged before it is planned (issue 27): jobs and split_depth come with the plan */
    {"accepted", accepted_no_jobs, 0, NULL},
    {"accepted", accepted_jobs_0, 0, NULL},
    {"accepted", accepted_no_split, 0, NULL},
    {"accepted", accepted_split_over, PLY_EPROTO,
     "ACCEPTED: field split_depth = 17, must be 0..16"},
    {"accepted", accepted_bad_fen, PLY_EPROTO, "ACCEPTED: field fen has a byte"},
    {"accepted", accepted_no_fen, 0, NULL},
    {"status", status_empty, 0, NULL},
    {"heartbeat", heartbeat_empty, 0, NULL},
    {"run_progress", progress_run_no_run, PLY_EPROTO, "RUN_PROGRESS: field run_id missing"},
    {"run_progress", progress_run_no_state, PLY_EPROTO, "RUN_PROGRESS: field state missing"},
    {"run_progress", progress_run_bad_worker, PLY_EPROTO,
     "RUN_PROGRESS: field worker[1].worker_id has a control"},
    {"run_progress", progress_run_no_workers, 0, NULL},
    {"run_result", run_result_no_run, PLY_EPROTO, "RUN_RESULT: field run_id missing"},
    {"run_result", run_result_no_fen, PLY_EPROTO, "RUN_RESULT: field fen missing"},
    {"run_result", run_result_no_depth, PLY_EPROTO, "RUN_RESULT: field depth missing"},
    {"run_result", run_result_depth_over, PLY_EPROTO,
     "RUN_RESULT: field depth = 17, must be 1..16"},
    {"run_result", run_result_no_nodes, PLY_EPROTO, "RUN_RESULT: field nodes missing"},
    {"run_result", run_result_bad_move, PLY_EPROTO, "RUN_RESULT: field divide[1].move is not"},
    {"run_result", run_result_bad_detail, PLY_EPROTO,
     "RUN_RESULT: field verification.detail[1] has a control character or invalid UTF-8"},
    {"run_result", run_result_long_mode, PLY_EPROTO, "RUN_RESULT: field verification.mode is over"},
    {"run_result", run_result_bad_exclusion, PLY_EPROTO,
     "RUN_RESULT: field verification.exclusion[0] has a control character"},
    {"run_result", run_result_many_exclusions, PLY_EPROTO,
     "RUN_RESULT: field verification.exclusion has 17 entries, must be at most 16"},
    {"run_result", run_result_bad_identity, PLY_EPROTO,
     "RUN_RESULT: field verification.mismatch[0].computation[0].identity has a control"},
    {"run_result", run_result_no_verif, 0, NULL},
    {"result_request", result_request_no_run, PLY_EPROTO, "RESULT_REQUEST: field run_id missing"},
    {"result_request", result_request_run_0, PLY_EPROTO, "RESULT_REQUEST: field run_id = 0"},
    {"cancel", cancel_no_run, PLY_EPROTO, "CANCEL: field run_id missing"},
    {"cancel", cancel_run_0, PLY_EPROTO, "CANCEL: field run_id = 0"},
    {"cancel", cancel_to_worker, 0, NULL},
    {"cancel", cancel_job_no_attempt, PLY_EPROTO, "CANCEL: field attempt missing"},
    {"cancel", cancel_attempt_no_job, PLY_EPROTO, "CANCEL: field job_id missing"},
    {"cancel", cancel_job_0, PLY_EPROTO, "CANCEL: field job_id = 0"},
    {"cancel", cancel_attempt_0, PLY_EPROTO, "CANCEL: field attempt = 0"},
    {"submit", submit_verify_bad, PLY_EPROTO, "SUBMIT: field verify = 3, must be 0..2"},
    {"submit", submit_sample_no_ppm, PLY_EPROTO, "SUBMIT: field verify_ppm missing"},
    {"submit", submit_sample_ppm_0, PLY_EPROTO, "SUBMIT: field verify_ppm = 0, must be 1..1000000"},
    {"submit", submit_sample_ppm_over, PLY_EPROTO, "SUBMIT: field verify_ppm = 1000001"},
    {"submit", submit_all_with_ppm, PLY_EPROTO, "SUBMIT: field verify_ppm given without"},
    {"submit", submit_all, 0, NULL},
    {"run_progress", progress_run_bad_fen, PLY_EPROTO, "RUN_PROGRESS: field fen has a byte"},
    {"run_progress", progress_run_bad_error, PLY_EPROTO, "RUN_PROGRESS: field error is over"},
    {"run_result", run_result_bad_summary, PLY_EPROTO,
     "RUN_RESULT: field verification.summary has a control"},
    {"run_result", run_result_many_mismatches, PLY_EPROTO,
     "RUN_RESULT: field verification.mismatch has 65 entries"},
    {"run_result", run_result_mismatch_fen, PLY_EPROTO,
     "RUN_RESULT: field verification.mismatch[0].fen is over"},
    {"run_result", run_result_many_computations, PLY_EPROTO,
     "RUN_RESULT: field verification.mismatch[0].computation has 9 entries"},
    {"run_result", run_result_computation_id, PLY_EPROTO,
     "RUN_RESULT: field verification.mismatch[0].computation[1].worker_id has a control"},
    {"status_reply", status_reply_run_no_state, PLY_EPROTO, "STATUS_REPLY: field state missing"},
    {"status_reply", status_reply_bad_identity, PLY_EPROTO,
     "STATUS_REPLY: field worker[0].identity has a control character"},
    {"run_progress", progress_run_bad_identity, PLY_EPROTO,
     "RUN_PROGRESS: field worker[1].identity has a control character"},
    {"status_reply", status_reply_bad_worker, PLY_EPROTO,
     "STATUS_REPLY: field worker[0].worker_id has a control"},
    {"status_reply", status_reply_empty, 0, NULL},
    {"submit", submit_short_token, PLY_EPROTO,
     "SUBMIT: field owner_token is 15 bytes, must be 16..128"},
    {"submit", submit_token, 0, NULL},
    {"status", status_token_space, PLY_EPROTO,
     "STATUS: field owner_token has a byte that is not printable ASCII at offset 10"},
    {"result_request", result_request_long_token, PLY_EPROTO,
     "RESULT_REQUEST: field owner_token is over 128 bytes"},
    {"cancel", cancel_token_utf8, PLY_EPROTO,
     "CANCEL: field owner_token has a byte that is not printable ASCII at offset 16"},
    {"accepted", accepted_asked, 0, NULL},
    {"accepted", accepted_asked_no_fen, PLY_EPROTO, "ACCEPTED: field asked.perft.fen missing"},
    {"accepted", accepted_asked_no_kind, PLY_EPROTO, "ACCEPTED: field asked.kind missing"},
    {"accepted", accepted_asked_no_perft, PLY_EPROTO,
     "ACCEPTED: field asked.perft missing (kind PERFT)"},
    {"accepted", accepted_asked_other, 0, NULL},
    {"accepted", accepted_asked_other_missing, PLY_EPROTO,
     "ACCEPTED: field asked.other missing (kind 12 is not one proto/ describes"},
    {"accepted", accepted_asked_long_fen, PLY_EPROTO, "ACCEPTED: field asked.perft.fen is over"},
    {"run_result", run_result_asked_no_depth, PLY_EPROTO,
     "RUN_RESULT: field asked.perft.depth missing"},
    {"run_result", run_result_other, 0, NULL},
    {"run_result", run_result_other_divide, PLY_EPROTO,
     "RUN_RESULT: field divide present beside other (another kind's answer)"},
    {"result", result_other, 0, NULL},
    {"result", result_other_nodes, PLY_EPROTO,
     "RESULT: field nodes present beside other (another kind's answer)"},
    {"run_result", run_result_asked_no_split, PLY_EPROTO,
     "RUN_RESULT: field asked.perft.split_depth missing"},
    {"run_result", run_result_asked_split_over, PLY_EPROTO,
     "RUN_RESULT: field asked.perft.split_depth = 7, must be -1..6"},
    {"run_result", run_result_asked_split_under, PLY_EPROTO,
     "RUN_RESULT: field asked.perft.split_depth = -2, must be -1..6"},
    /* the idle tail is part of the run's time (issue 13) */
    {"run_result", run_result_tail_ok, 0, NULL},
    {"run_result", run_result_tail_over, PLY_EPROTO,
     "RUN_RESULT: field tail_ms = 12346, must be 0..12345"},
    {"run_result", run_result_tail_no_time, PLY_EPROTO, "RUN_RESULT: field tail_ms = 1, must be 0"},
    {"run_progress", progress_asked_verify_bad, PLY_EPROTO,
     "RUN_PROGRESS: field asked.verify = 3, must be 0..2"},
    {"run_progress", progress_asked_sample_no_ppm, PLY_EPROTO,
     "RUN_PROGRESS: field asked.verify_ppm missing"},
    {"run_progress", progress_asked_ppm_without, PLY_EPROTO,
     "RUN_PROGRESS: field asked.verify_ppm given without verify = SAMPLE"},
    {"run_progress", progress_asked_sample, 0, NULL},
};

static const struct golden *golden(const char *file)
{
    for (size_t i = 0; i < NGOLDEN; i++)
        if (!strcmp(GOLDEN[i].file, file)) return &GOLDEN[i];
    fail_msg("no golden message %s", file);
    return NULL;
}

/*
 * Each case through ply_msg_validate, and (when it still packs) through the
 * wire: encoded by protobuf-c, decoded by ply_msg_decode, same verdict.
 */
static void test_validation(void **state)
{
    (void)state;
    init_texts();
    size_t missing = 0, range = 0;
    for (size_t i = 0; i < sizeof VCASES / sizeof VCASES[0]; i++) {
        const vcase_t *v = &VCASES[i];
        ply_msg_t *m = golden(v->file)->build();
        v->edit(m);
        char why[256], why2[256];
        int rc = ply_msg_validate(m, why, sizeof why);
        if (rc != v->rc) fail_msg("case %zu (%s): rc %d, want %d: %s", i, v->file, rc, v->rc, why);
        if (v->reason && strncmp(why, v->reason, strlen(v->reason)) != 0)
            fail_msg("case %zu: reason \"%s\", want \"%s...\"", i, why, v->reason);
        if (v->rc == 0) assert_string_equal(why, "");
        if (v->reason && strstr(v->reason, "missing"))
            missing++;
        else if (v->reason)
            range++;
        assert_true(one_line(why));

        zmsg_t *z = ply_msg_encode(m);
        assert_non_null(z);
        ply_msg_t *got = NULL;
        int rc2 = ply_msg_decode(z, &got, why2, sizeof why2);
        assert_int_equal(rc2, rc);
        assert_string_equal(why2, why);
        if (rc2 == 0) assert_true(msg_equal(&got->base, &m->base));
        ply_msg_free(&got);
        zmsg_destroy(&z);
    }
    print_message("validation: %zu missing-field and %zu range cases\n", missing, range);
}

/* Every type with a required field has a missing-field case and a bad-value case. */
static void test_validation_covers_types(void **state)
{
    (void)state;
    for (size_t g = 0; g < NGOLDEN; g++) {
        int miss = 0, bad = 0;
        for (size_t i = 0; i < sizeof VCASES / sizeof VCASES[0]; i++) {
            if (strcmp(VCASES[i].file, GOLDEN[g].file) || !VCASES[i].reason) continue;
            if (strncmp(VCASES[i].reason, GOLDEN[g].type, strlen(GOLDEN[g].type)) != 0)
                fail_msg("case for %s names %s", GOLDEN[g].file, VCASES[i].reason);
            if (strstr(VCASES[i].reason, "missing"))
                miss++;
            else
                bad++;
        }
        int needs_nothing = GOLDEN[g].body_case == PLY__MESSAGE__BODY_HEARTBEAT ||
                            GOLDEN[g].body_case == PLY__MESSAGE__BODY_STATUS ||
                            GOLDEN[g].body_case == PLY__MESSAGE__BODY_BYE;
        if (!needs_nothing && !miss) fail_msg("%s: no missing-field case", GOLDEN[g].file);
        if (GOLDEN[g].body_case != PLY__MESSAGE__BODY_HEARTBEAT &&
            GOLDEN[g].body_case != PLY__MESSAGE__BODY_STATUS && !bad)
            fail_msg("%s: no out-of-range case", GOLDEN[g].file);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validation),
        cmocka_unit_test(test_validation_covers_types),
    };
    return cmocka_run_group_tests_name("envelope_validate", tests, NULL, NULL);
}
