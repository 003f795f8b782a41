/* Thread-local variables are not exposed (documented limitation): a
 * __thread variable of the main thread and of another thread lies in no
 * smartmap mapping, while an ordinary global does. */
#include "expose_util.h"

#include <pthread.h>

static __thread int tls_var = 3;
static int plain_global = 4;

static void *in_thread(void *arg)
{
    tls_var = 5;
    *(int *)arg = xmap_in_any(&tls_var);
    return NULL;
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK(xmap_contains("smartmap-data", &plain_global), "a plain global is not exposed");
    CHECK(!xmap_in_any(&tls_var), "main's __thread variable %p is in a smartmap mapping",
          (void *)&tls_var);
    int in_any = -1;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, in_thread, &in_any) == 0 && pthread_join(t, NULL) == 0, "thread");
    CHECK(in_any == 0, "a thread's __thread variable is in a smartmap mapping");
    CHECK(tls_var == 3 && plain_global == 4, "values changed");
    CHECK_RC(MPI_Finalize());
    return 0;
}
