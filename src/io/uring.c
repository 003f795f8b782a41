/* Nonblocking independent access through io_uring (D15), when smartmap
 * was built with Debian's liburing and the kernel lets the process set up
 * a ring: MPI_File_iread/iwrite(_at)(_c) submit one read or write per
 * file piece of the view and return a request that completes when the
 * kernel has done them, so the access overlaps the program's computation.
 * The request is an internal generalized request completed by polling
 * (mpi/grequest.c): every wait and test reaps the ring's completions.
 *
 * The ring is the process's, set up on first use (128 entries), guarded
 * by a mutex (threads).  An access takes the ring only when it fits: the
 * native representation, no atomic mode, no write sieving, at most 64
 * pieces of at most 1 GiB each, and room in the ring; otherwise (and
 * without liburing) the access is done at once and the request returned
 * complete, as before.  A non-contiguous memory type goes through a
 * buffer: packed at the start (writes), unpacked at completion (reads).
 * A read that meets the end of file counts the bytes of the stream up to
 * the first short piece; a short write is MPI_ERR_IO. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype/engine.h"
#include "io/io.h"
#include "mpi/request.h"
#include "mpi/status.h"

#ifdef SMAP_HAVE_LIBURING
#include <liburing.h>
#include <pthread.h>

#define RING_ENTRIES 128
#define MAX_PIECES 64
#define MAX_PIECE ((MPI_Offset)1 << 30)

struct upiece {
    MPI_Offset fo, len, so;
    long long res;
    int done;
};

struct uop {
    int write;
    MPI_Count npc, ndone;
    struct upiece pc[MAX_PIECES];
    char *mem;               /* the stream: the user's contiguous memory or tmp */
    char *tmp;               /* non-contiguous memory type: the buffer */
    void *buf;
    MPI_Count count;
    smap_dtype_t *mt;        /* one reference while tmp is used */
    MPI_Count bytes;
    int err;
    char why[160];
    int complete;
};

static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static struct io_uring ring;
static int state;            /* 0 untried, 1 ready, -1 unavailable */
static int inflight;         /* pieces submitted, not reaped */

static int ring_ready(void)
{
    if (!state)
        state = io_uring_queue_init(RING_ENTRIES, &ring, 0) == 0 ? 1 : -1;
    return state > 0;
}

/* The access's outcome once every piece is back (lock held). */
static void finish(struct uop *u)
{
    MPI_Count got = 0;
    for (MPI_Count i = 0; i < u->npc; i++) {
        struct upiece *p = &u->pc[i];
        if (p->res < 0) {
            if (!u->err) {
                u->err = smap_io_errno_class((int)-p->res);
                snprintf(u->why, sizeof u->why, "%s at offset %lld: %s",
                         u->write ? "writing" : "reading", (long long)p->fo,
                         strerror((int)-p->res));
            }
            break;
        }
        got += p->res;
        if (p->res < p->len) {
            if (u->write && !u->err) {
                u->err = MPI_ERR_IO;
                snprintf(u->why, sizeof u->why, "short write at offset %lld",
                         (long long)(p->fo + p->res));
            }
            break;   /* a read: the end of file */
        }
    }
    u->bytes = got;
    if (!u->write && u->tmp && got)
        smap_dtype_unpack(u->tmp, got, u->buf, u->count, u->mt, 0);
    u->complete = 1;
}

/* Reaps every completion the ring has (lock held). */
static void reap(void)
{
    struct io_uring_cqe *cqe;
    while (io_uring_peek_cqe(&ring, &cqe) == 0) {
        struct upiece *p = io_uring_cqe_get_data(cqe);   /* a piece of some uop */
        p->res = cqe->res;
        p->done = 1;
        io_uring_cqe_seen(&ring, cqe);
        inflight--;
    }
}

/* Whether u is complete, reaping what the ring has first. */
static int poll_fn(void *arg)
{
    struct uop *u = arg;
    pthread_mutex_lock(&lk);
    if (!u->complete) {
        reap();
        MPI_Count n = 0;
        for (MPI_Count i = 0; i < u->npc; i++)
            n += u->pc[i].done;
        if (n == u->npc)
            finish(u);
    }
    int c = u->complete;
    pthread_mutex_unlock(&lk);
    return c;
}

static int query_fn(void *arg, MPI_Status *st)
{
    struct uop *u = arg;
    smap_status_fill(st, MPI_ANY_SOURCE, MPI_ANY_TAG, (size_t)u->bytes);
    return u->err;
}

static int free_fn(void *arg)
{
    struct uop *u = arg;
    if (u->mt)
        smap_dtype_release(u->mt);
    free(u->tmp);
    free(u);
    return MPI_SUCCESS;
}

/* 1: submitted (*req set), 0: does not fit (nothing done), or -class. */
static int try_ring(struct MPI_ABI_File *f, int write, MPI_Offset s0, void *buf,
                    MPI_Count count, smap_dtype_t *mt, MPI_Count total, MPI_Request *req)
{
    struct uop *u = calloc(1, sizeof *u);
    if (!u)
        return 0;
    u->write = write;
    for (MPI_Offset q = 0; q < total;) {
        MPI_Offset av, fo = smap_io_view_map(&f->v, s0 + q, total - q, &av);
        if (av > MAX_PIECE)
            av = MAX_PIECE;
        if (u->npc == MAX_PIECES) {
            free(u);
            return 0;
        }
        u->pc[u->npc++] = (struct upiece){fo, av, q, 0, 0};
        q += av;
    }
    if (smap_dtype_is_contiguous(mt)) {
        u->mem = (char *)buf + smap_dtype_data_offset(mt);
    } else {
        if (!(u->tmp = malloc((size_t)total))) {
            free(u);
            return 0;
        }
        u->mem = u->tmp;
        u->buf = buf;
        u->count = count;
        u->mt = mt;
        smap_dtype_retain(mt);
        if (write)
            smap_dtype_pack(buf, count, mt, u->tmp, 0, total);
    }
    pthread_mutex_lock(&lk);
    if (!ring_ready() || inflight + u->npc > RING_ENTRIES ||
        io_uring_sq_space_left(&ring) < (unsigned)u->npc) {
        pthread_mutex_unlock(&lk);
        free_fn(u);
        return 0;
    }
    for (MPI_Count i = 0; i < u->npc; i++) {
        struct upiece *p = &u->pc[i];
        struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
        if (write)
            io_uring_prep_write(sqe, f->fd, u->mem + p->so, (unsigned)p->len, (__u64)p->fo);
        else
            io_uring_prep_read(sqe, f->fd, u->mem + p->so, (unsigned)p->len, (__u64)p->fo);
        io_uring_sqe_set_data(sqe, p);
    }
    int s = io_uring_submit(&ring);
    if (s < (int)u->npc) {
        /* what was taken completes later; the rest never started */
        pthread_mutex_unlock(&lk);
        return -smap_failf(MPI_ERR_IO, "io_uring_submit: %s", s < 0 ? strerror(-s)
                                                                      : "short submission");
    }
    inflight += (int)u->npc;
    pthread_mutex_unlock(&lk);
    int rc = smap_greq_start_polled_query(poll_fn, query_fn, free_fn, u, req);
    if (!rc)   /* its errors at completion go to the file's handler */
        ((struct MPI_ABI_Request *)*req)->file = (MPI_File)f;
    if (rc) {   /* cannot be waited for: wait here */
        while (!poll_fn(u))
            ;
        free_fn(u);
        return -smap_failf(rc, "out of memory for the request");
    }
    return 1;
}
#endif

/* ---- one write of a collective buffer (twophase.c's double buffering) ---- */

#ifdef SMAP_HAVE_LIBURING
struct uwrite {
    struct upiece p;
};
#endif

void *smap_io_uring_write(int fd, const void *buf, MPI_Offset len, MPI_Offset off)
{
#ifdef SMAP_HAVE_LIBURING
    if (len <= 0 || len > MAX_PIECE)
        return NULL;
    struct uwrite *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->p = (struct upiece){off, len, 0, 0, 0};
    pthread_mutex_lock(&lk);
    struct io_uring_sqe *sqe = NULL;
    if (ring_ready() && inflight < RING_ENTRIES)
        sqe = io_uring_get_sqe(&ring);
    if (!sqe) {
        pthread_mutex_unlock(&lk);
        free(w);
        return NULL;
    }
    io_uring_prep_write(sqe, fd, buf, (unsigned)len, (__u64)off);
    io_uring_sqe_set_data(sqe, &w->p);
    if (io_uring_submit(&ring) != 1) {
        /* not taken: the caller writes it itself */
        pthread_mutex_unlock(&lk);
        free(w);
        return NULL;
    }
    inflight++;
    pthread_mutex_unlock(&lk);
    return w;
#else
    (void)fd, (void)buf, (void)len, (void)off;
    return NULL;
#endif
}

long long smap_io_uring_wait(void *h)
{
#ifdef SMAP_HAVE_LIBURING
    struct uwrite *w = h;
    for (;;) {
        pthread_mutex_lock(&lk);
        reap();
        int done = w->p.done;
        if (!done) {
            /* sleep until some completion comes (ours or another's) */
            struct io_uring_cqe *cqe;
            (void)io_uring_wait_cqe(&ring, &cqe);
        }
        pthread_mutex_unlock(&lk);
        if (done)
            break;
    }
    long long res = w->p.res;
    free(w);
    return res;
#else
    (void)h;
    return -1;
#endif
}

int smap_io_irw(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf, MPI_Count count,
                smap_dtype_t *mt, MPI_Request *req)
{
#ifdef SMAP_HAVE_LIBURING
    int rc = smap_io_access_check(f, write, 0);
    MPI_Count total;
    MPI_Offset s0;
    int indiv = off < 0;
    if (!rc && !f->v.rep && !f->atomic && !__builtin_mul_overflow(count, smap_dtype_size(mt), &total) &&
        total > 0 && total % f->v.esize == 0 &&
        !__builtin_mul_overflow(indiv ? f->fp : off, f->v.esize, &s0) &&
        !(write && smap_io_write_sieving(f))) {
        int r = try_ring(f, write, s0, buf, count, mt, total, req);
        if (r < 0)
            return -r;
        if (r > 0) {
            if (indiv)   /* the pointer moves at the start, by the whole access */
                f->fp += total / f->v.esize;
            return MPI_SUCCESS;
        }
    }
#endif
    MPI_Count bytes = 0;
    int rc2 = smap_io_rw(f, write, off, buf, count, mt, &bytes);
    return rc2 ? rc2 : smap_io_request(bytes, req);
}
