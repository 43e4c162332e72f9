/*
 * The running job and the cancel list (daemon.h): what the network actor and the compute
 * side each do, under the cancel lock, to start, stop and end a job.
 */
#include <stdatomic.h>

#include "daemon.h"
#include "util/error.h"
#include "util/log.h"

/* Stops the running job: a job that polls sees the flag, another is told (the lock held). */
static void stop_running_locked(ply__daemon_t *sh)
{
    atomic_store(&sh->job_cancel, 1);
    if (sh->stopper.stop) sh->stopper.stop(sh->stopper.arg);
}

void ply__stop_running(ply__daemon_t *sh)
{
    pthread_mutex_lock(&sh->cancel_lock);
    stop_running_locked(sh);
    pthread_mutex_unlock(&sh->cancel_lock);
}

void ply__cancel_all(ply__daemon_t *sh)
{
    atomic_store(&sh->cancel, 1);
    ply__stop_running(sh);
}

void ply__job_cancel(ply__daemon_t *sh, uint64_t job_id, uint32_t attempt)
{
    pthread_mutex_lock(&sh->cancel_lock);
    unsigned i = sh->next_canceled++ % PLY__CANCELED_KEEP;
    sh->canceled[i].job_id = job_id;
    sh->canceled[i].attempt = attempt;
    int running = atomic_load(&sh->job_id) == job_id && atomic_load(&sh->attempt) == attempt;
    if (running) stop_running_locked(sh);
    pthread_mutex_unlock(&sh->cancel_lock);
    ply_info("job %llu attempt %u canceled by the coordinator%s", (unsigned long long)job_id,
             (unsigned)attempt, running ? ": stopping it" : "");
}

int ply__job_begin(ply__daemon_t *sh, const Ply__Job *job, const ply__job_stop_t *how)
{
    int rc = 0;
    pthread_mutex_lock(&sh->cancel_lock);
    for (unsigned i = 0; i < PLY__CANCELED_KEEP; i++)
        if (sh->canceled[i].job_id == job->job_id && sh->canceled[i].attempt == job->attempt)
            rc = PLY_ECANCELED;
    if (!rc) {
        atomic_store(&sh->job_cancel, 0);
        atomic_store(&sh->attempt, job->attempt);
        atomic_store(&sh->job_id, job->job_id);
        sh->stopper = how ? *how : (ply__job_stop_t){0};
    }
    pthread_mutex_unlock(&sh->cancel_lock);
    return rc;
}

void ply__job_end(ply__daemon_t *sh)
{
    pthread_mutex_lock(&sh->cancel_lock);
    if (sh->stopper.clear) sh->stopper.clear(sh->stopper.arg);
    sh->stopper = (ply__job_stop_t){0};
    atomic_store(&sh->job_id, 0);
    pthread_mutex_unlock(&sh->cancel_lock);
}
