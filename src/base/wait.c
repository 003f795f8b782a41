/* The out-of-line part of the waiting policy (wait.h). */
#include "base/wait.h"

#include <time.h>

unsigned smap_wait_nap_us, smap_wait_sleep_max_us;
int smap_wait_machine_ranks;
int smap_wait_cpu_shared;
void (*smap_wait_sleep_hook)(unsigned us);

/* The nth nap (0, 1, ...) of one wait. */
void smap_wait_nap(unsigned nth)
{
    void (*hook)(unsigned) = smap_wait_sleep_hook;
    if (hook) {
        unsigned us = smap_wait_nap_us, max = smap_wait_sleep_max_us;
        for (unsigned i = 0; i < nth && us < max; i++)
            us *= 2;
        hook(us < max ? us : max);
        return;
    }
    struct timespec t = { 0, (long)smap_wait_nap_us * 1000 };
    nanosleep(&t, NULL);
}
