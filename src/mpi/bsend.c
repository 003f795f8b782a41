/* Buffered sends (MPI_Buffer_attach, MPI_Bsend): the message is packed
 * into a segment of the attached buffer and sent from there as bytes by an
 * internal request; the segment is reused once that request completes.
 * Segments are kept in address order; allocation is first fit.  Under
 * MPI_THREAD_MULTIPLE the buffer and its segments are guarded by the
 * point-to-point lock (recursive: the internal sends take it again).
 * MPI_BUFFER_AUTOMATIC: each buffered message gets its own allocation.
 *
 * MPI 4.1 buffers: a communicator may have a buffer of its own
 * (MPI_Comm_attach_buffer), used by buffered sends on it instead of the
 * process's (MPI_Buffer_attach).  Each buffer is a pool (struct
 * smap_bpool): the process's is static, a communicator's is allocated at
 * its first attach and freed with the communicator (MPI_Comm_free flushes
 * it first), a session's likewise (MPI_Session_attach_buffer; freed by
 * MPI_Session_finalize).  Every pool is on one list so that MPI_Finalize flushes them
 * all.  Flushes (MPI_Buffer_flush, MPI_Comm_flush_buffer and their
 * non-blocking twins) wait for the messages in a pool at the time of the
 * call: each message has a serial number. */
#include <stdint.h>
#include <stdlib.h>

#include "base/wait.h"
#include "dtype/engine.h"
#include "smap/smap.h"
#include "mpi/comm.h"
#include "mpi/request.h"
#include "mpi/session.h"

struct seg {
    struct seg *next;
    size_t off, len;
    struct MPI_ABI_Request *req;
    void *own;   /* MPI_BUFFER_AUTOMATIC: the message's own allocation */
    uint64_t serial;
};

struct smap_bpool {
    struct smap_bpool *next_pool;   /* every pool, for MPI_Finalize */
    char *bbuf;
    size_t bsize;
    int automatic;      /* MPI_BUFFER_AUTOMATIC attached: one allocation per message */
    struct seg *segs;   /* ascending off (any order when automatic) */
    uint64_t serial;    /* messages posted so far */
    int refs;           /* the owner, pending non-blocking flushes */
};

static struct smap_bpool proc_pool = {.refs = 1};
static struct smap_bpool *pools = &proc_pool;

static inline int attached(const struct smap_bpool *P)
{
    return P && (P->bbuf || P->automatic);
}

/* The pool that buffered sends on comm use (MPI 4.1 section 3.6): its own
 * when it has one attached, else its session's when that has one, else
 * the process's. */
static struct smap_bpool *pool_of(MPI_Comm comm)
{
    struct MPI_ABI_Comm *c = smap_comm_get(comm);
    if (!c)
        return &proc_pool;
    if (attached(c->bpool))
        return c->bpool;
    if (c->session && attached(c->session->bpool))
        return c->session->bpool;
    return &proc_pool;
}

/* Under the lock: frees segments whose send has completed. */
static void reap(struct smap_bpool *P)
{
    smap_p2p_progress();
    struct seg **pp = &P->segs;
    while (*pp) {
        struct seg *s = *pp;
        if (smap_preq_done(&s->req->p)) {
            *pp = s->next;
            smap_req_free(s->req);
            free(s->own);
            free(s);
        } else {
            pp = &s->next;
        }
    }
}

/* First gap of `need` bytes: its offset and where to link the segment. */
static int find_gap(struct smap_bpool *P, size_t need, size_t *off, struct seg ***where)
{
    size_t at = 0;
    struct seg **pp = &P->segs;
    for (;; pp = &(*pp)->next) {
        size_t end = *pp ? (*pp)->off : P->bsize;
        if (end >= at && end - at >= need) {
            *off = at;
            *where = pp;
            return 1;
        }
        if (!*pp)
            return 0;
        at = (*pp)->off + (*pp)->len;
    }
}

/* MPI_BUFFER_AUTOMATIC: the packed copy gets its own allocation, freed
 * when the send completes. */
static int bsend_automatic(struct smap_bpool *P, MPI_Comm comm, const void *buf,
                           MPI_Count count, smap_dtype_t *dt, int rank, int lr, int me, int tag,
                           int ctx, const char **why)
{
    size_t bytes = (size_t)(count * smap_dtype_size(dt));
    struct seg *s = malloc(sizeof *s);
    void *data = s ? aligned_alloc(64, bytes ? (bytes + 63) & ~(size_t)63 : 64) : NULL;
    struct MPI_ABI_Request *r = data ? smap_req_new(comm) : NULL;
    if (!r) {
        free(data);
        free(s);
        *why = "out of memory for the automatic buffer";
        return MPI_ERR_NO_MEM;
    }
    if (bytes)
        smap_dtype_pack(buf, count, dt, data, 0, (MPI_Count)bytes);
    *s = (struct seg){ .next = P->segs, .len = bytes, .req = r, .own = data,
                       .serial = P->serial++ };
    P->segs = s;
    return smap_p2p_isend(&r->p, data, (MPI_Count)bytes, smap_dtype_get(MPI_BYTE), rank, lr, me,
                          tag, ctx, SMAP_P2P_STANDARD);
}

static int bsend_locked(struct smap_bpool *P, MPI_Comm comm, const void *buf, MPI_Count count,
                        smap_dtype_t *dt, int rank, int lr, int me, int tag, int ctx,
                        const char **why)
{
    size_t bytes = (size_t)(count * smap_dtype_size(dt));
    /* exactly what the standard promises a message costs: a buffer of
     * n * (size + MPI_BSEND_OVERHEAD) bytes holds n such messages */
    size_t need = bytes + MPI_BSEND_OVERHEAD;
    size_t off;
    struct seg **where;
    reap(P);
    if (P->automatic)
        return bsend_automatic(P, comm, buf, count, dt, rank, lr, me, tag, ctx, why);
    if (!P->bbuf || !find_gap(P, need, &off, &where)) {
        *why = P->bbuf ? "the attached buffer has no room for this message (MPI_BSEND_OVERHEAD included)"
                    : "no buffer is attached (MPI_Buffer_attach)";
        return MPI_ERR_BUFFER;
    }
    struct seg *s = malloc(sizeof *s);
    struct MPI_ABI_Request *r = s ? smap_req_new(comm) : NULL;
    if (!r) {
        free(s);
        *why = "out of memory";
        return MPI_ERR_NO_MEM;
    }
    /* The data after the overhead bytes (not aligned: it is sent as bytes). */
    char *data = P->bbuf + off + MPI_BSEND_OVERHEAD;
    if (bytes)
        smap_dtype_pack(buf, count, dt, data, 0, (MPI_Count)bytes);
    s->off = off;
    s->len = need;
    s->req = r;
    s->own = NULL;
    s->serial = P->serial++;
    s->next = *where;
    *where = s;
    return smap_p2p_isend(&r->p, data, (MPI_Count)bytes, smap_dtype_get(MPI_BYTE), rank, lr, me,
                          tag, ctx, SMAP_P2P_STANDARD);
}

int smap_bsend(MPI_Comm comm, const void *buf, MPI_Count count, smap_dtype_t *dt, int rank,
               int lr, int me, int tag, int ctx, const char **why)
{
    smap_p2p_lock();
    int rc = bsend_locked(pool_of(comm), comm, buf, count, dt, rank, lr, me, tag, ctx, why);
    smap_p2p_unlock();
    return rc;
}

/* The pool in *slot (a communicator's or a session's), made on first use
 * (under the lock); NULL: out of memory. */
static struct smap_bpool *pool_in(struct smap_bpool **slot)
{
    if (!*slot && (*slot = calloc(1, sizeof **slot))) {
        (*slot)->refs = 1;
        (*slot)->next_pool = pools->next_pool;
        pools->next_pool = *slot;   /* after the process's, which never goes */
    }
    return *slot;
}

static void pool_unref(struct smap_bpool *P)
{
    if (--P->refs > 0 || P == &proc_pool)
        return;
    for (struct smap_bpool **pp = &pools; *pp; pp = &(*pp)->next_pool)
        if (*pp == P) {
            *pp = P->next_pool;
            break;
        }
    free(P);
}

static int attach(struct smap_bpool *P, void *buf, MPI_Count size, const char **why)
{
    if (P->bbuf || P->automatic) {
        *why = "a buffer is already attached";
        return MPI_ERR_BUFFER;
    }
    if (buf == MPI_BUFFER_AUTOMATIC) {
        P->automatic = 1;
    } else {
        P->bbuf = buf;
        P->bsize = (size_t)size;
    }
    return MPI_SUCCESS;
}

int smap_buffer_attach(void *buf, MPI_Count size, const char **why)
{
    smap_p2p_lock();
    int rc = attach(&proc_pool, buf, size, why);
    smap_p2p_unlock();
    return rc;
}

static int attach_in(struct smap_bpool **slot, void *buf, MPI_Count size, const char **why)
{
    smap_p2p_lock();
    struct smap_bpool *P = pool_in(slot);
    int rc = P ? attach(P, buf, size, why) : MPI_ERR_NO_MEM;
    if (!P)
        *why = "out of memory";
    smap_p2p_unlock();
    return rc;
}

int smap_comm_buffer_attach(struct MPI_ABI_Comm *c, void *buf, MPI_Count size, const char **why)
{
    return attach_in(&c->bpool, buf, size, why);
}

int smap_session_buffer_attach(struct MPI_ABI_Session *s, void *buf, MPI_Count size,
                               const char **why)
{
    return attach_in(&s->bpool, buf, size, why);
}

/* Whether messages of P with a serial below `upto` are still in flight,
 * after one reap. */
static int left_below(struct smap_bpool *P, uint64_t upto)
{
    smap_p2p_lock();
    int left = 0;
    if (P->segs) {
        reap(P);
        for (struct seg *s = P->segs; s && !left; s = s->next)
            left = s->serial < upto;
    }
    smap_p2p_unlock();
    return left;
}

void smap_bsend_reap(void)
{
    smap_p2p_lock();
    for (struct smap_bpool *P = pools; P; P = P->next_pool)
        reap(P);
    smap_p2p_unlock();
}

static uint64_t serial_now(struct smap_bpool *P)
{
    smap_p2p_lock();
    uint64_t n = P->serial;
    smap_p2p_unlock();
    return n;
}

/* Waits until the messages P holds now have left it.  The lock is dropped
 * between polls: other threads go on meanwhile. */
static void flush(struct smap_bpool *P)
{
    uint64_t upto = serial_now(P);
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    while (left_below(P, upto))
        smap_wait_step(&w);
}

void smap_bsend_drain(void)
{
    smap_p2p_lock();
    int n = 0;
    for (struct smap_bpool *P = pools; P; P = P->next_pool)
        n++;
    struct smap_bpool **all = malloc((size_t)n * sizeof *all);
    n = 0;
    for (struct smap_bpool *P = pools; all && P; P = P->next_pool) {
        P->refs++;   /* a flush of one may not free another under us */
        all[n++] = P;
    }
    smap_p2p_unlock();
    if (!all) {   /* out of memory: at least the process's */
        flush(&proc_pool);
        return;
    }
    for (int i = 0; i < n; i++)
        flush(all[i]);
    smap_p2p_lock();
    for (int i = 0; i < n; i++)
        pool_unref(all[i]);
    smap_p2p_unlock();
    free(all);
}

static int detach(struct smap_bpool *P, void **addr, MPI_Count *size, const char **why)
{
    smap_p2p_lock();
    int attached = P && (P->bbuf != NULL || P->automatic);
    smap_p2p_unlock();
    if (!attached) {
        *why = "no buffer is attached";
        return MPI_ERR_BUFFER;
    }
    /* Blocks until every buffered message has left the buffer.  (Another
     * thread may Bsend meanwhile: the standard makes attach and detach
     * the program's to order with its Bsends.) */
    flush(P);
    smap_p2p_lock();
    *addr = P->automatic ? MPI_BUFFER_AUTOMATIC : P->bbuf;
    *size = (MPI_Count)P->bsize;
    P->bbuf = NULL;
    P->bsize = 0;
    P->automatic = 0;
    smap_p2p_unlock();
    return MPI_SUCCESS;
}

int smap_buffer_detach(void **addr, MPI_Count *size, const char **why)
{
    return detach(&proc_pool, addr, size, why);
}

int smap_comm_buffer_detach(struct MPI_ABI_Comm *c, void **addr, MPI_Count *size,
                            const char **why)
{
    return detach(c->bpool, addr, size, why);
}

int smap_session_buffer_detach(struct MPI_ABI_Session *s, void **addr, MPI_Count *size,
                               const char **why)
{
    return detach(s->bpool, addr, size, why);
}

void smap_buffer_flush(struct MPI_ABI_Comm *c)
{
    struct smap_bpool *P = c ? c->bpool : &proc_pool;
    if (P)
        flush(P);
}

void smap_session_buffer_flush(struct MPI_ABI_Session *s)
{
    if (s->bpool)
        flush(s->bpool);
}

/* Flushes and frees the pool in *slot, if any. */
static void pool_free(struct smap_bpool **slot)
{
    struct smap_bpool *P = *slot;
    if (!P)
        return;
    flush(P);   /* its messages' requests hold their communicators: they must go first */
    smap_p2p_lock();
    *slot = NULL;
    pool_unref(P);
    smap_p2p_unlock();
}

void smap_comm_buffer_free(struct MPI_ABI_Comm *c)
{
    pool_free(&c->bpool);
}

void smap_session_buffer_free(struct MPI_ABI_Session *s)
{
    pool_free(&s->bpool);
}

/* ---- non-blocking flush: a generalized request polled for completion --- */

struct iflush {
    struct smap_bpool *P;
    uint64_t upto;
};

static int iflush_poll(void *arg)
{
    struct iflush *f = arg;
    return !left_below(f->P, f->upto);
}

static int iflush_free(void *arg)
{
    struct iflush *f = arg;
    smap_p2p_lock();
    pool_unref(f->P);
    smap_p2p_unlock();
    free(f);
    return MPI_SUCCESS;
}

/* A request completed once the messages in P (NULL: a communicator or
 * session that never had a buffer) at the time of the call have left it. */
static int iflush(struct smap_bpool *P, MPI_Request *req)
{
    struct iflush *f = malloc(sizeof *f);
    if (!f)
        return MPI_ERR_NO_MEM;
    smap_p2p_lock();
    f->P = P;
    if (P) {
        P->refs++;
        f->upto = P->serial;
    }
    smap_p2p_unlock();
    if (!P) {   /* nothing to wait for */
        free(f);
        f = NULL;
    }
    int rc = smap_greq_start_polled(f ? iflush_poll : NULL, f ? iflush_free : NULL, f, req);
    if (rc != MPI_SUCCESS && f)
        iflush_free(f);
    return rc;
}

int smap_buffer_iflush(struct MPI_ABI_Comm *c, MPI_Request *req)
{
    smap_p2p_lock();   /* c's pool is made under the lock */
    struct smap_bpool *P = c ? c->bpool : &proc_pool;
    smap_p2p_unlock();
    return iflush(P, req);
}

int smap_session_buffer_iflush(struct MPI_ABI_Session *s, MPI_Request *req)
{
    smap_p2p_lock();
    struct smap_bpool *P = s->bpool;
    smap_p2p_unlock();
    return iflush(P, req);
}
