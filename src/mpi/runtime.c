#include "mpi/runtime.h"

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
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

static int runtime_start(int required, int *provided)
{
    char err[512] = "";
    if (smap_tunables_ensure(err, sizeof err) != 0) {
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

/* The world model's part of MPI_Finalize (whether or not sessions keep
 * the runtime up). */
static void world_finalize(void)
{
    /* Buffered sends must reach their receivers before we leave (MPI 4.1
     * section 3.6.1): the receivers are still in their own MPI calls. */
    smap_bsend_drain();
    smap_comm_finalize_begin();
    delete_predefined_type_attrs();
}

static void (*_Atomic leave_collectives)(void);

void smap_runtime_on_leave(void (*leave)(void))
{
    atomic_store_explicit(&leave_collectives, leave, memory_order_release);
}

/* The last user leaves: collective over the job, like MPI_Finalize always
 * was (later layers read peers' memory until here). */
static int runtime_teardown(void)
{
    smap_p2p_drain();
    smap_p2p_remote_drain();
    void (*leave)(void) = atomic_load_explicit(&leave_collectives, memory_order_acquire);
    if (leave)
        leave();
    int rc = smap_boot_barrier();
    smap_p2p_remote_close();
    smap_comm_finalize();
    smap_finalize();
    smap_boot_finalize();
    atomic_store_explicit(&smap_state, SMAP_STATE_FINALIZED, memory_order_release);
    return rc == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
}

/* ---- users of the runtime: the world model and sessions ----------------
 * The runtime (boot, SMARTMAP, the communicators WORLD and SELF underneath)
 * starts with the first of MPI_Init and MPI_Session_init and ends with the
 * last finalize.  When only sessions have used it, the last
 * MPI_Session_finalize leaves it up (idle) so that a later MPI_Init or
 * MPI_Session_init finds it ready: it is torn down at process exit then.
 * Once MPI_Finalize has run, the runtime ends with its last user and cannot
 * start again (smartmap does not re-initialise: documented in
 * src/mpi/README.md). */
static pthread_mutex_t life_lock = PTHREAD_MUTEX_INITIALIZER;
static int users;                       /* world (while initialised) + live sessions */
_Atomic int smap_world_state = SMAP_STATE_NEW;

static void teardown_at_exit(void)
{
    pthread_mutex_lock(&life_lock);
    if (users == 0 && atomic_load(&smap_state) == SMAP_STATE_RUNNING)
        (void)runtime_teardown();
    pthread_mutex_unlock(&life_lock);
}

/* A later user may ask for a higher thread level than the runtime was
 * started with: granted up to SMAP_THREAD_LEVEL. */
static void raise_thread_level(int required, int *provided)
{
    int max = thread_level_from_name(smap_tun.thread_level);
    int level = choose_thread_level(required, max < 0 ? MPI_THREAD_SINGLE : max);
    if (level > smap_thread_provided) {
        if (level == MPI_THREAD_MULTIPLE)
            enable_threads();
        smap_thread_provided = level;
    }
    if (provided)
        *provided = level;
}

int smap_runtime_acquire(int required, int *provided, int world)
{
    static int atexit_done;
    pthread_mutex_lock(&life_lock);
    int rc = MPI_SUCCESS, state = atomic_load(&smap_state);
    if (state == SMAP_STATE_FINALIZED) {
        rc = MPI_ERR_OTHER;
    } else if (state == SMAP_STATE_NEW) {
        rc = runtime_start(required, provided);
        if (rc == MPI_SUCCESS && !atexit_done)
            atexit_done = atexit(teardown_at_exit) == 0;
    } else {
        raise_thread_level(required, provided);
    }
    if (rc == MPI_SUCCESS) {
        users++;
        if (world)
            atomic_store(&smap_world_state, SMAP_STATE_RUNNING);
    }
    pthread_mutex_unlock(&life_lock);
    return rc;
}

int smap_runtime_release(int world)
{
    pthread_mutex_lock(&life_lock);
    int rc = MPI_SUCCESS;
    if (world) {
        world_finalize();
        atomic_store(&smap_world_state, SMAP_STATE_FINALIZED);
    }
    if (--users == 0 && atomic_load(&smap_world_state) != SMAP_STATE_NEW)
        rc = runtime_teardown();
    pthread_mutex_unlock(&life_lock);
    return rc;
}

int smap_runtime_sole_user(void)
{
    pthread_mutex_lock(&life_lock);
    int sole = users == 1;
    pthread_mutex_unlock(&life_lock);
    return sole;
}

int smap_runtime_is_main_thread(void)
{
    return pthread_equal(pthread_self(), main_thread);
}
