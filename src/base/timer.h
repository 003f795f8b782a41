/* Monotonic wall clock for MPI_Wtime and internal timeouts. */
#ifndef SMAP_BASE_TIMER_H
#define SMAP_BASE_TIMER_H

#include <stdint.h>
#include <time.h>

static inline double smap_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline uint64_t smap_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Resolution of smap_now(), in seconds. */
double smap_tick(void);

#endif
