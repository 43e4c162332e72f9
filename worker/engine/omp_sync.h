/*
 * OpenMP regions as ThreadSanitizer sees them. GCC's libgomp (Debian's
 * package) is not instrumented, so TSan sees neither the start nor the end of
 * a parallel region as synchronisation (the thread pool is reused from region
 * to region), and reports every hand-over of data into or out of a region as
 * a race, hiding the real ones. These four calls state the hand-over the
 * OpenMP specification guarantees; in any other build they are empty.
 *
 * Use, with one sync object per region:
 *   ply__omp_fork(&s);           before the region, on the calling thread
 *   #pragma omp parallel
 *   { ply__omp_enter(&s); ... ply__omp_leave(&s); }   first and last in each thread
 *   ply__omp_join(&s);           after the region
 * Everything a thread hands back must be written before ply__omp_leave, so a
 * region that is annotated has no reduction clause (its combining runs after
 * the block): each thread writes its own slot instead.
 */
#ifndef PLY_WORKER_OMP_SYNC_H
#define PLY_WORKER_OMP_SYNC_H

#if defined(__SANITIZE_THREAD__)
#define PLY__TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PLY__TSAN 1
#endif
#endif

#ifdef PLY__TSAN
#include <sanitizer/tsan_interface.h>
static inline void ply__omp_fork(void *sync) { __tsan_release(sync); }
static inline void ply__omp_enter(void *sync) { __tsan_acquire(sync); }
static inline void ply__omp_leave(void *sync) { __tsan_release(sync); }
static inline void ply__omp_join(void *sync) { __tsan_acquire(sync); }
#else
static inline void ply__omp_fork(void *sync) { (void)sync; }
static inline void ply__omp_enter(void *sync) { (void)sync; }
static inline void ply__omp_leave(void *sync) { (void)sync; }
static inline void ply__omp_join(void *sync) { (void)sync; }
#endif

#endif
