/* Requests served by the target: the path for window memory that its
 * peers can reach neither through a view nor with CMA (not exposed and
 * SMAP_COPY=bounce, or CMA forbidden by the system).
 *
 * Every control block holds a one-request mailbox.  An origin takes the
 * mailbox's lock, writes the request and its data (at most
 * SMAP_RMA_AM_BYTES: larger operations are cut into blocks of the target
 * layout and chunks of those), publishes it, and waits for the answer.
 * The owner serves it on its own memory from any progress it makes: every
 * one-sided wait, and point-to-point progress (blocking receives,
 * collectives' slow waits, MPI_Test ...), through smap_p2p_progress_rma.
 * An origin waiting for an answer serves its own mailboxes too, so two
 * ranks accessing each other never deadlock.  As with any MPI that needs
 * the target's progress, a passive target that never calls MPI delays its
 * origins.
 *
 * Accumulates and compare-and-swap run at the target under its
 * accumulate lock, like every other non-atomic accumulate there. */
#include "rma/internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dtype/engine.h"
#include "mpi/op.h"
#include "p2p/p2p.h"

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct MPI_ABI_Win **live;
static int nlive, cap;
static _Thread_local int serving;

void smap_rma_am_register(struct MPI_ABI_Win *w)
{
    pthread_mutex_lock(&live_lock);
    if (nlive == cap) {
        int c = cap ? 2 * cap : 16;
        struct MPI_ABI_Win **t = realloc(live, (size_t)c * sizeof *t);
        if (!t) {
            pthread_mutex_unlock(&live_lock);
            return;   /* served from one-sided waits only */
        }
        live = t;
        cap = c;
    }
    live[nlive++] = w;
    pthread_mutex_unlock(&live_lock);
    smap_rma_hook_refresh();
}

void smap_rma_am_unregister(struct MPI_ABI_Win *w)
{
    pthread_mutex_lock(&live_lock);
    for (int i = 0; i < nlive; i++)
        if (live[i] == w) {
            live[i] = live[--nlive];
            break;
        }
    pthread_mutex_unlock(&live_lock);
    smap_rma_hook_refresh();
}

void smap_rma_hook_refresh(void)
{
    pthread_mutex_lock(&live_lock);
    int need = nlive > 0 || atomic_load_explicit(&smap_rma_net_live, memory_order_relaxed) > 0;
    smap_p2p_progress_rma = need ? smap_rma_am_serve : NULL;
    pthread_mutex_unlock(&live_lock);
}

/* Get_accumulate served here: data receives the old target values and the
 * target gets op(data, old), a stack-sized piece of whole elements at a
 * time.  No thread-local copy of a whole mailbox: libmpi's static TLS must
 * stay tiny, or it cannot be dlopen'ed (its one initial-exec variable pins
 * all of its TLS into the static block). */
static int fetch_and_apply(MPI_Op op, unsigned char *data, char *p, size_t len, size_t esize,
                           MPI_Datatype type)
{
    unsigned char old[1024];
    size_t step = esize && esize <= sizeof old ? sizeof old / esize * esize : 0;
    if (!step)
        return MPI_ERR_TYPE;
    for (size_t off = 0; off < len; off += step) {
        size_t k = len - off < step ? len - off : step;
        memcpy(old, p + off, k);
        if (op != MPI_NO_OP) {
            int rc = smap_op_apply(op, data + off, p + off, (MPI_Count)(k / esize), type);
            if (rc)
                return rc;
        }
        memcpy(data + off, old, k);
    }
    return MPI_SUCCESS;
}

/* Runs the request in mailbox am on our own memory. */
static void execute(struct smap_rma_cb *cb, struct smap_rma_am *am)
{
    char *p = (char *)(uintptr_t)am->addr;
    size_t len = (size_t)am->len;
    int rc = MPI_SUCCESS;
    switch (am->kind) {
    case SMAP_AM_PUT: memcpy(p, am->data, len); break;
    case SMAP_AM_GET: memcpy(am->data, p, len); break;
    case SMAP_AM_ACC:
    case SMAP_AM_GACC: {
        MPI_Op op = (MPI_Op)(uintptr_t)am->op;
        smap_dtype_t *t = smap_op_acc_type(smap_dtype_stored((MPI_Datatype)(uintptr_t)am->type));
        MPI_Datatype type = smap_dtype_handle(t);
        rc = smap_rma_acc_lock(cb);
        if (rc)
            break;
        if (am->kind == SMAP_AM_GACC)
            rc = fetch_and_apply(op, am->data, p, len, t->size, type);
        else if (op != MPI_NO_OP)
            rc = smap_op_apply(op, am->data, p, (MPI_Count)len / t->size, type);
        smap_rma_acc_unlock(cb);
        break;
    }
    case SMAP_AM_CAS: {
        unsigned char old[64];   /* one element of a predefined type */
        if (len > sizeof old) {
            rc = MPI_ERR_TYPE;
            break;
        }
        rc = smap_rma_acc_lock(cb);
        if (rc)
            break;
        memcpy(old, p, len);
        if (memcmp(old, am->data + len, len) == 0)
            memcpy(p, am->data, len);
        memcpy(am->data, old, len);
        smap_rma_acc_unlock(cb);
        break;
    }
    }
    am->rc = rc;
}

void smap_rma_am_serve(void)
{
    if (serving || pthread_mutex_trylock(&live_lock) != 0)
        return;
    serving = 1;
    for (int i = 0; i < nlive; i++) {
        struct smap_rma_cb *cb = live[i]->cb;
        if (atomic_load_explicit(&cb->am.state, memory_order_acquire) == SMAP_AM_REQ) {
            execute(cb, &cb->am);
            atomic_store_explicit(&cb->am.state, SMAP_AM_DONE, memory_order_release);
        }
    }
    pthread_mutex_unlock(&live_lock);
    if (atomic_load_explicit(&smap_rma_net_queued, memory_order_acquire))
        smap_rma_net_serve();
    serving = 0;
}

int smap_rma_am_call(struct MPI_ABI_Win *w, int target, int kind, uintptr_t addr, size_t len,
                     MPI_Op op, MPI_Datatype type, const void *in, size_t inlen, void *out,
                     size_t outlen)
{
    if (w->t[target].remote)
        return smap_rma_net_call(w, target, kind, addr, len, op, type, in, inlen, out, outlen);
    struct smap_rma_am *am = &w->t[target].cb->am;
    struct smap_rma_backoff b;
    smap_rma_backoff_init(&b);
    for (;;) {
        uint32_t z = 0;
        if (atomic_load_explicit(&am->lock, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_weak_explicit(&am->lock, &z, 1, memory_order_acquire,
                                                  memory_order_relaxed))
            break;
        int rc = smap_rma_backoff(&b);
        if (rc)
            return rc;
    }
    am->kind = (uint32_t)kind;
    am->addr = addr;
    am->len = len;
    am->op = (uint64_t)(uintptr_t)op;
    am->type = (uint64_t)(uintptr_t)type;
    if (inlen)
        memcpy(am->data, in, inlen);
    atomic_store_explicit(&am->state, SMAP_AM_REQ, memory_order_release);
    smap_rma_backoff_init(&b);
    int rc = MPI_SUCCESS;
    while (atomic_load_explicit(&am->state, memory_order_acquire) != SMAP_AM_DONE)
        if ((rc = smap_rma_backoff(&b)) != MPI_SUCCESS)
            break;
    if (rc == MPI_SUCCESS) {
        rc = am->rc;
        if (outlen)
            memcpy(out, am->data, outlen);
        atomic_store_explicit(&am->state, SMAP_AM_FREE, memory_order_relaxed);
    }
    atomic_store_explicit(&am->lock, 0, memory_order_release);
    return rc ? smap_fail(rc, "the target failed to serve a one-sided request") : rc;
}
