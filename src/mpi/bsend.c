/* Buffered sends (MPI_Buffer_attach, MPI_Bsend): the message is packed
 * into a segment of the attached buffer and sent from there as bytes by an
 * internal request; the segment is reused once that request completes.
 * Segments are kept in address order; allocation is first fit.  Under
 * MPI_THREAD_MULTIPLE the buffer and its segments are guarded by the
 * point-to-point lock (recursive: the internal sends take it again).
 * MPI_BUFFER_AUTOMATIC: each buffered message gets its own allocation. */
#include <stdlib.h>

#include "base/wait.h"
#include "dtype/engine.h"
#include "smap/smap.h"
#include "mpi/request.h"

struct seg {
    struct seg *next;
    size_t off, len;
    struct MPI_ABI_Request *req;
    void *own;   /* MPI_BUFFER_AUTOMATIC: the message's own allocation */
};

static char *bbuf;
static size_t bsize;
static int automatic;      /* MPI_BUFFER_AUTOMATIC attached: one allocation per message */
static struct seg *segs;   /* ascending off (any order when automatic) */

/* Under the lock: frees segments whose send has completed. */
static void reap(void)
{
    smap_p2p_progress();
    struct seg **pp = &segs;
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
static int find_gap(size_t need, size_t *off, struct seg ***where)
{
    size_t at = 0;
    struct seg **pp = &segs;
    for (;; pp = &(*pp)->next) {
        size_t end = *pp ? (*pp)->off : bsize;
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
static int bsend_automatic(MPI_Comm comm, const void *buf, MPI_Count count, smap_dtype_t *dt,
                           int rank, int lr, int me, int tag, int ctx, const char **why)
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
    *s = (struct seg){ .next = segs, .len = bytes, .req = r, .own = data };
    segs = s;
    return smap_p2p_isend(&r->p, data, (MPI_Count)bytes, smap_dtype_get(MPI_BYTE), rank, lr, me,
                          tag, ctx, SMAP_P2P_STANDARD);
}

static int bsend_locked(MPI_Comm comm, const void *buf, MPI_Count count, smap_dtype_t *dt,
                        int rank, int lr, int me, int tag, int ctx, const char **why)
{
    size_t bytes = (size_t)(count * smap_dtype_size(dt));
    /* exactly what the standard promises a message costs: a buffer of
     * n * (size + MPI_BSEND_OVERHEAD) bytes holds n such messages */
    size_t need = bytes + MPI_BSEND_OVERHEAD;
    size_t off;
    struct seg **where;
    reap();
    if (automatic)
        return bsend_automatic(comm, buf, count, dt, rank, lr, me, tag, ctx, why);
    if (!bbuf || !find_gap(need, &off, &where)) {
        *why = bbuf ? "the attached buffer has no room for this message (MPI_BSEND_OVERHEAD included)"
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
    char *data = bbuf + off + MPI_BSEND_OVERHEAD;
    if (bytes)
        smap_dtype_pack(buf, count, dt, data, 0, (MPI_Count)bytes);
    s->off = off;
    s->len = need;
    s->req = r;
    s->own = NULL;
    s->next = *where;
    *where = s;
    return smap_p2p_isend(&r->p, data, (MPI_Count)bytes, smap_dtype_get(MPI_BYTE), rank, lr, me,
                          tag, ctx, SMAP_P2P_STANDARD);
}

int smap_bsend(MPI_Comm comm, const void *buf, MPI_Count count, smap_dtype_t *dt, int rank,
               int lr, int me, int tag, int ctx, const char **why)
{
    smap_p2p_lock();
    int rc = bsend_locked(comm, buf, count, dt, rank, lr, me, tag, ctx, why);
    smap_p2p_unlock();
    return rc;
}

int smap_buffer_attach(void *buf, MPI_Count size, const char **why)
{
    int rc = MPI_SUCCESS;
    smap_p2p_lock();
    if (bbuf || automatic) {
        *why = "a buffer is already attached";
        rc = MPI_ERR_BUFFER;
    } else if (buf == MPI_BUFFER_AUTOMATIC) {
        automatic = 1;
    } else {
        bbuf = buf;
        bsize = (size_t)size;
    }
    smap_p2p_unlock();
    return rc;
}

/* Whether buffered sends are still in flight, after one reap. */
static int segs_left(void)
{
    smap_p2p_lock();
    if (segs)
        reap();
    int left = segs != NULL;
    smap_p2p_unlock();
    return left;
}

void smap_bsend_reap(void)
{
    (void)segs_left();
}

void smap_bsend_drain(void)
{
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    /* The lock is dropped between polls: other threads go on meanwhile. */
    while (segs_left())
        smap_wait_step(&w);
}

int smap_buffer_detach(void **addr, MPI_Count *size, const char **why)
{
    smap_p2p_lock();
    int attached = bbuf != NULL || automatic;
    smap_p2p_unlock();
    if (!attached) {
        *why = "no buffer is attached";
        return MPI_ERR_BUFFER;
    }
    /* Blocks until every buffered message has left the buffer.  (Another
     * thread may Bsend meanwhile: the standard makes attach and detach
     * the program's to order with its Bsends.) */
    smap_bsend_drain();
    smap_p2p_lock();
    *addr = automatic ? MPI_BUFFER_AUTOMATIC : bbuf;
    *size = (MPI_Count)bsize;
    bbuf = NULL;
    bsize = 0;
    automatic = 0;
    smap_p2p_unlock();
    return MPI_SUCCESS;
}
