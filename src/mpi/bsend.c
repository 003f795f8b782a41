/* Buffered sends (MPI_Buffer_attach, MPI_Bsend): the message is packed
 * into a segment of the attached buffer and sent from there as bytes by an
 * internal request; the segment is reused once that request completes.
 * Segments are kept in address order; allocation is first fit. */
#include <stdlib.h>

#include "base/wait.h"
#include "dtype/engine.h"
#include "smap/smap.h"
#include "mpi/request.h"

struct seg {
    struct seg *next;
    size_t off, len;
    struct MPI_ABI_Request *req;
};

static char *bbuf;
static size_t bsize;
static struct seg *segs;   /* ascending off */

/* Frees segments whose send has completed. */
static void reap(void)
{
    smap_p2p_progress();
    struct seg **pp = &segs;
    while (*pp) {
        struct seg *s = *pp;
        if (s->req->p.done) {
            *pp = s->next;
            smap_req_free(s->req);
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

int smap_bsend(MPI_Comm comm, const void *buf, MPI_Count count, smap_dtype_t *dt, int rank,
               int lr, int me, int tag, int ctx, const char **why)
{
    size_t bytes = (size_t)(count * smap_dtype_size(dt));
    size_t need = (bytes + MPI_BSEND_OVERHEAD + 63) & ~(size_t)63;
    size_t off;
    struct seg **where;
    reap();
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
    /* Cache-line aligned data after the overhead bytes. */
    char *data = bbuf + off + MPI_BSEND_OVERHEAD;
    if (bytes)
        smap_dtype_pack(buf, count, dt, data, 0, (MPI_Count)bytes);
    s->off = off;
    s->len = need;
    s->req = r;
    s->next = *where;
    *where = s;
    return smap_p2p_isend(&r->p, data, (MPI_Count)bytes, smap_dtype_get(MPI_BYTE), rank, lr, me,
                          tag, ctx, SMAP_P2P_STANDARD);
}

int smap_buffer_attach(void *buf, MPI_Count size, const char **why)
{
    if (bbuf) {
        *why = "a buffer is already attached";
        return MPI_ERR_BUFFER;
    }
    bbuf = buf;
    bsize = (size_t)size;
    return MPI_SUCCESS;
}

void smap_bsend_drain(void)
{
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    while (segs) {
        reap();
        if (segs)
            smap_wait_step(&w);
    }
}

int smap_buffer_detach(void **addr, MPI_Count *size, const char **why)
{
    if (!bbuf) {
        *why = "no buffer is attached";
        return MPI_ERR_BUFFER;
    }
    /* Blocks until every buffered message has left the buffer. */
    smap_bsend_drain();
    *addr = bbuf;
    *size = (MPI_Count)bsize;
    bbuf = NULL;
    bsize = 0;
    return MPI_SUCCESS;
}
