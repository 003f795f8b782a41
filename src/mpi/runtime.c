#include "mpi/runtime.h"

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/lock.h"
#include "base/log.h"
#include "base/tunables.h"
#include "boot/boot.h"
#include "dtype/dtype.h"
#include "dtype/engine.h"
#include "mpi/attr.h"
#include "mpi/comm.h"
#include "mpi/request.h"
#include "p2p/p2p.h"
#include "smap/smap.h"

_Atomic int smap_state = SMAP_STATE_NEW;
int smap_thread_provided = MPI_THREAD_SINGLE;
static pthread_t main_thread;

static int thread_level_from_name(const char *s)
{
    static const struct { const char *name; int level; } levels[] = {
        { "single", MPI_THREAD_SINGLE }, { "funneled", MPI_THREAD_FUNNELED },
        { "serialized", MPI_THREAD_SERIALIZED }, { "multiple", MPI_THREAD_MULTIPLE },
    };
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
        if (strcmp(s, levels[i].name) == 0)
            return levels[i].level;
    return -1;
}

/* The standard's levels are ordered single < funneled < serialized <
 * multiple (their ABI values increase too); provide the required level
 * when we can, else the highest SMAP_THREAD_LEVEL allows. */
static int choose_thread_level(int required, int max)
{
    return required < max ? required : max;
}

/* MPI_THREAD_MULTIPLE: the locks (base/lock.h) go live, and the
 * point-to-point tables that are read without the lock are built now,
 * before any other thread can call MPI. */
static void enable_threads(void)
{
    smap_mt = 1;
    smap_p2p_init();
}

int smap_runtime_init(int required, int *provided)
{
    char err[512] = "";
    if (smap_tunables_load(err, sizeof err) != 0) {
        smap_log(SMAP_LOG_ERROR, "MPI_Init: %s", err);
        return MPI_ERR_ARG;
    }
    smap_log_set_level((int)smap_tun.verbose);
    smap_dtype_init();
    int max = thread_level_from_name(smap_tun.thread_level);
    if (max < 0) {
        smap_log(SMAP_LOG_ERROR, "MPI_Init: SMAP_THREAD_LEVEL='%s' is not one of "
                 "single|funneled|serialized|multiple", smap_tun.thread_level);
        return MPI_ERR_ARG;
    }
    if (smap_boot_init(err, sizeof err) != 0) {
        smap_log(SMAP_LOG_ERROR, "MPI_Init: %s", err);
        return MPI_ERR_OTHER;
    }
    char name[32];
    snprintf(name, sizeof name, "rank %d", smap_job.rank);
    smap_log_set_name(name);
    if (smap_init(err, sizeof err) != 0) {
        smap_log(SMAP_LOG_ERROR, "MPI_Init: cannot attach the node's ranks to each other: %s", err);
        return MPI_ERR_OTHER;
    }
    /* Peers on other nodes: the inter-node transport (collective over the
     * job, which every rank enters alike: nnodes is the same everywhere). */
    if (SMAP_UNLIKELY(smap_job.nnodes > 1) && smap_p2p_remote_open(err, sizeof err) != 0) {
        smap_log(SMAP_LOG_ERROR, "MPI_Init: cannot open the inter-node transport: %s", err);
        return MPI_ERR_OTHER;
    }
    smap_comm_init(smap_job.rank, smap_job.size);
    smap_thread_provided = choose_thread_level(required, max);
    if (smap_thread_provided == MPI_THREAD_MULTIPLE)
        enable_threads();
    if (provided)
        *provided = smap_thread_provided;
    main_thread = pthread_self();
    atomic_store_explicit(&smap_state, SMAP_STATE_RUNNING, memory_order_release);
    return MPI_SUCCESS;
}

/* Predefined datatypes live for the whole run, so attributes a program
 * left on them are deleted (their callbacks run) at MPI_Finalize. */
static void delete_predefined_type_attrs(void)
{
    for (size_t i = 0; i < SMAP_DTYPE_PREDEF_N; i++) {
        smap_dtype_t *t = &smap_dtype_predef[i];
        if (t->attrs)
            (void)smap_attr_list_delete(SMAP_OBJ_TYPE, (void *)smap_dtype_handle(t), &t->attrs);
    }
}

int smap_runtime_finalize(void)
{
    /* MPI_Finalize is collective: nobody leaves while a peer may still
     * need it (later layers read peers' memory until here). */
    /* Buffered sends must reach their receivers before we leave (MPI 4.1
     * section 3.6.1): the receivers are still in their own MPI calls. */
    smap_bsend_drain();
    smap_p2p_drain();
    smap_comm_finalize_begin();
    delete_predefined_type_attrs();
    smap_p2p_remote_drain();
    int rc = smap_boot_barrier();
    smap_p2p_remote_close();
    smap_comm_finalize();
    smap_finalize();
    smap_boot_finalize();
    atomic_store_explicit(&smap_state, SMAP_STATE_FINALIZED, memory_order_release);
    return rc == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
}

int smap_runtime_is_main_thread(void)
{
    return pthread_equal(pthread_self(), main_thread);
}
