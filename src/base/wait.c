/* The out-of-line part of the waiting policy (wait.h). */
#include "base/wait.h"

#include <time.h>

unsigned smap_wait_nap_us;

void smap_wait_nap(void)
{
    struct timespec t = { 0, (long)smap_wait_nap_us * 1000 };
    nanosleep(&t, NULL);
}
