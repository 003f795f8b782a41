/* MPI_Ialltoall(v,w): every pair exchanges its blocks in one round.  With
 * MPI_IN_PLACE the blocks to send are first packed out of the receive
 * buffer into scratch (one round), since their places are overwritten by
 * the blocks coming in. */
#include "coll/nbc/internal.h"

struct nbc_blk nbc_block(const void *buf, MPI_Count count, struct smap_cvec counts,
                         struct smap_cvec displs, smap_dtype_t *t, const MPI_Datatype *types,
                         int j)
{
    struct nbc_blk b;
    if (types) {
        b.t = smap_dtype_stored(types[j]);
        b.n = smap_cvec_at(counts, j);
        b.p = nbc_byte_at(buf, smap_cvec_at(displs, j));
    } else {
        b.t = t;
        b.n = counts.p ? smap_cvec_at(counts, j) : count;
        b.p = nbc_at(buf, displs.p ? smap_cvec_at(displs, j) : j * count, t);
    }
    return b;
}

int smap_nbc_alltoall(const struct smap_a2a *a, smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s = nbc_new(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    int n = c->size, r = c->rank, inplace = a->sbuf == MPI_IN_PLACE;
    struct nbc_blk *out = smap_sched_tmp(s, (size_t)n * sizeof *out);
    if (!out)
        return nbc_launch(s, req);   /* fails: out of memory */
    for (int d = 1; d < n; d++) {
        int j = (r + d) % n;
        struct nbc_blk rb = nbc_block(a->rbuf, a->rcount, a->rcounts, a->rdispls, a->rt,
                                   a->rtypes, j);
        if (!inplace) {
            out[j] = nbc_block(a->sbuf, a->scount, a->scounts, a->sdispls, a->st, a->stypes, j);
            continue;
        }
        MPI_Count bytes = rb.n * smap_dtype_size(rb.t);
        out[j] = (struct nbc_blk){ smap_sched_tmp(s, (size_t)bytes), bytes, nbc_byte() };
        smap_sched_copy(s, rb.p, rb.n, rb.t, out[j].p, bytes, nbc_byte());
    }
    smap_sched_barrier(s);
    if (!inplace) {
        struct nbc_blk sb = nbc_block(a->sbuf, a->scount, a->scounts, a->sdispls, a->st, a->stypes, r);
        struct nbc_blk rb = nbc_block(a->rbuf, a->rcount, a->rcounts, a->rdispls, a->rt,
                                   a->rtypes, r);
        smap_sched_copy(s, sb.p, sb.n, sb.t, rb.p, rb.n, rb.t);
    }
    for (int d = 1; d < n; d++) {
        int to = (r + d) % n, from = (r - d + n) % n;
        struct nbc_blk rb = nbc_block(a->rbuf, a->rcount, a->rcounts, a->rdispls, a->rt,
                                   a->rtypes, from);
        smap_sched_send(s, out[to].p, out[to].n, out[to].t, to);
        smap_sched_recv(s, rb.p, rb.n, rb.t, from);
    }
    return nbc_launch(s, req);
}
