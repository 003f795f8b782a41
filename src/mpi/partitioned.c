/* Partitioned point-to-point (MPI 4.0 §4.2): MPI_Psend_init /
 * MPI_Precv_init requests whose send buffer is handed over partition by
 * partition (MPI_Pready*) and whose receive side may look at partitions as
 * they arrive (MPI_Parrived).
 *
 * Protocol, over the ordinary point-to-point layer: one message per start
 * carrying every partition, posted by the MPI_Pready call that makes the
 * last partition ready (an atomic counter: partitions are often readied
 * by several threads); the receive side posts one receive at its start.
 * MPI_Parrived is therefore true for every partition at once, when the
 * whole message is in the buffer: never before its data is there.  The
 * sender's and the receiver's partitionings may differ (only the total
 * size must agree), which the one-message design gets for free.
 *
 * Matching: MPI matches partitioned sends and receives at
 * initialisation, in the order of the init calls per (communicator, peer,
 * tag).  Each init takes the next number k of its (context, peer, tag,
 * direction) counter, and the messages of that request travel in a
 * context of their own: 2^30 | (k mod 2^15) << 15 | the communicator's
 * context (< SMAP_CTX_MAX = 2^15), which no communicator and no other
 * internal protocol uses.  The k-th Psend_init from A to B with tag t thus
 * only ever matches the k-th Precv_init at B from A with tag t, whatever
 * order the requests are started or readied in (2^15 live pairs per
 * (peer, tag) at most). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "mpi/comm.h"
#include "mpi/request.h"

#define PART_CTX_BASE (1 << 30)
#define PART_SEQ_BITS 15
#define PART_CTX_BITS 15   /* SMAP_CTX_MAX == 2^15 */
_Static_assert(SMAP_CTX_MAX <= (1 << PART_CTX_BITS), "context ids must fit below the sequence");

struct smap_part {
    int send, partitions;
    MPI_Count per;
    atomic_int nready;                 /* partitions readied since the start */
    atomic_uchar ready[];              /* per partition: readied since the start */
};

/* ---- init-order matching ------------------------------------------------ */

struct seq_entry {
    struct seq_entry *next;
    int ctx, peer, tag, send;
    unsigned next_seq;
};
static struct seq_entry *seqs;
static pthread_mutex_t seq_lock = PTHREAD_MUTEX_INITIALIZER;

/* The next number of (ctx, peer, tag, send); ~0u when out of memory. */
static unsigned take_seq(int ctx, int peer, int tag, int send)
{
    pthread_mutex_lock(&seq_lock);
    struct seq_entry *e = seqs;
    while (e && !(e->ctx == ctx && e->peer == peer && e->tag == tag && e->send == send))
        e = e->next;
    if (!e && (e = calloc(1, sizeof *e))) {
        *e = (struct seq_entry){seqs, ctx, peer, tag, send, 0};
        seqs = e;
    }
    unsigned k = e ? e->next_seq++ : ~0u;
    pthread_mutex_unlock(&seq_lock);
    return k;
}

/* ---- requests ------------------------------------------------------------- */

int smap_part_init(struct MPI_ABI_Request *r, int send, const void *buf, int partitions,
                   MPI_Count per, int peer, int lr, int me, int tag, int ctx)
{
    struct smap_part *p = malloc(sizeof *p + (size_t)partitions);
    if (!p)
        return MPI_ERR_NO_MEM;
    p->send = send;
    p->partitions = partitions;
    p->per = per;
    atomic_init(&p->nready, 0);
    for (int i = 0; i < partitions; i++)
        atomic_init(&p->ready[i], 0);
    unsigned k = peer == MPI_PROC_NULL ? 0 : take_seq(ctx, peer, tag, send);
    if (k == ~0u) {
        free(p);
        return MPI_ERR_NO_MEM;
    }
    r->part = p;
    r->persist = SMAP_REQ_PART;
    smap_req_set_active(r, 0);
    r->proc_null = peer == MPI_PROC_NULL;
    r->pbuf = buf;
    r->pcount = (MPI_Count)partitions * per;
    r->prank = peer;
    r->plr = lr;
    r->pme = me;
    r->ptag = tag;
    r->pctx = PART_CTX_BASE | (int)((k & ((1u << PART_SEQ_BITS) - 1)) << PART_CTX_BITS) | ctx;
    r->p.kind = send ? SMAP_PREQ_SEND : SMAP_PREQ_RECV;
    return MPI_SUCCESS;
}

void smap_part_release(struct smap_part *p)
{
    free(p);
}

static int post_send(struct MPI_ABI_Request *r)
{
    return smap_p2p_isend(&r->p, r->pbuf, r->pcount, r->p.dt, r->prank, r->plr, r->pme, r->ptag,
                          r->pctx, SMAP_P2P_STANDARD);
}

int smap_part_start(struct MPI_ABI_Request *r)
{
    struct smap_part *p = r->part;
    atomic_store_explicit(&p->nready, 0, memory_order_relaxed);
    for (int i = 0; i < p->partitions; i++)
        atomic_store_explicit(&p->ready[i], 0, memory_order_relaxed);
    if (r->proc_null) {
        smap_p2p_null(&r->p, p->send ? SMAP_PREQ_SEND : SMAP_PREQ_RECV);
        return MPI_SUCCESS;
    }
    if (!p->send)
        return smap_p2p_irecv(&r->p, (void *)(uintptr_t)r->pbuf, r->pcount, r->p.dt, r->prank,
                              r->ptag, r->pctx);
    r->p.kind = SMAP_PREQ_SEND;
    r->p.err = MPI_SUCCESS;
    smap_preq_reset(&r->p);   /* incomplete until the last partition is ready */
    if (p->partitions == 0)
        return post_send(r);
    return MPI_SUCCESS;
}

int smap_part_ready(struct MPI_ABI_Request *r, int partition)
{
    struct smap_part *p = r->part;
    if (!p || !p->send || !r->active)
        return MPI_ERR_REQUEST;
    if (partition < 0 || partition >= p->partitions)
        return MPI_ERR_ARG;
    if (atomic_exchange_explicit(&p->ready[partition], 1, memory_order_relaxed))
        return MPI_ERR_REQUEST;
    /* acq_rel: the thread that readies the last partition sends data that
     * the other threads wrote before their MPI_Pready */
    if (atomic_fetch_add_explicit(&p->nready, 1, memory_order_acq_rel) + 1 < p->partitions)
        return MPI_SUCCESS;
    if (r->proc_null)
        return MPI_SUCCESS;
    return post_send(r);
}

int smap_part_arrived(struct MPI_ABI_Request *r, int partition, int *flag)
{
    struct smap_part *p = r->part;
    if (!p || p->send)
        return MPI_ERR_REQUEST;
    if (partition < 0 || partition >= p->partitions)
        return MPI_ERR_ARG;
    if (!r->active) {
        *flag = 1;   /* an inactive request's partitions are all there */
        return MPI_SUCCESS;
    }
    if (!smap_preq_done(&r->p))
        smap_p2p_progress();
    *flag = smap_preq_done(&r->p);
    return MPI_SUCCESS;
}
