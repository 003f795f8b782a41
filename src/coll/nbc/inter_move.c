/* Non-blocking collectives on intercommunicators, data movement: barrier,
 * bcast, gather(v), scatter(v), allgather(v), alltoall(v,w), with the
 * semantics of the blocking ones (src/coll/inter): rooted operations move
 * between the root (MPI_ROOT) and the remote group, MPI_PROC_NULL members
 * take no part.  Messages to the other group go through
 * smap_sched_send/recv_remote (a tag of their own); within a group the
 * local builders (nbc_add_bcast) work unchanged on c's local group. */
#include "coll/nbc/internal.h"
#include "mpi/group.h"

int smap_nbc_inter_none(smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s = nbc_new(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    return nbc_launch(s, req);   /* empty: still takes the sequence number */
}

/* Local gather of empty messages at rank 0, rank 0s swap one, local
 * broadcast: nobody leaves before every member of both groups entered. */
int smap_nbc_inter_barrier(smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s = nbc_new(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    smap_dtype_t *b = nbc_byte();
    if (c->rank != 0)
        smap_sched_send(s, NULL, 0, b, 0);
    for (int j = 1; c->rank == 0 && j < c->size; j++)
        smap_sched_recv(s, NULL, 0, b, j);
    smap_sched_barrier(s);
    if (c->rank == 0) {
        smap_sched_send_remote(s, NULL, 0, b, 0);
        smap_sched_recv_remote(s, NULL, 0, b, 0);
        smap_sched_barrier(s);
    }
    nbc_add_bcast(s, NULL, 0, b, 0);
    return nbc_launch(s, req);
}

/* Root → remote rank 0 → binomial tree in the receiving group. */
int smap_nbc_inter_bcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c,
                         MPI_Request *req)
{
    struct smap_sched *s = nbc_new(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    if (root == MPI_ROOT) {
        smap_sched_send_remote(s, buf, count, t, 0);
    } else if (root != MPI_PROC_NULL) {
        if (c->rank == 0) {
            smap_sched_recv_remote(s, buf, count, t, root);
            smap_sched_barrier(s);
        }
        nbc_add_bcast(s, buf, count, t, 0);
    }
    return nbc_launch(s, req);
}

int smap_nbc_inter_gather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                          MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                          smap_dtype_t *rt, int root, smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s = nbc_new(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    if (root == MPI_ROOT) {
        for (int j = 0; j < c->remote_group->size; j++) {
            struct nbc_blk b = nbc_block(rbuf, rcount, rcounts, displs, rt, NULL, j);
            smap_sched_recv_remote(s, b.p, b.n, b.t, j);
        }
    } else if (root != MPI_PROC_NULL) {
        smap_sched_send_remote(s, sbuf, scount, st, root);
    }
    return nbc_launch(s, req);
}

int smap_nbc_inter_scatter(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                           struct smap_cvec displs, smap_dtype_t *st, void *rbuf,
                           MPI_Count rcount, smap_dtype_t *rt, int root, smap_comm_t *c,
                           MPI_Request *req)
{
    struct smap_sched *s = nbc_new(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    if (root == MPI_ROOT) {
        for (int j = 0; j < c->remote_group->size; j++) {
            struct nbc_blk b = nbc_block(sbuf, scount, scounts, displs, st, NULL, j);
            smap_sched_send_remote(s, b.p, b.n, b.t, j);
        }
    } else if (root != MPI_PROC_NULL) {
        smap_sched_recv_remote(s, rbuf, rcount, rt, root);
    }
    return nbc_launch(s, req);
}

/* Every member sends its block to, and receives one from, every remote
 * member, in one round. */
int smap_nbc_inter_allgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                             MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                             smap_dtype_t *rt, smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s = nbc_new(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    for (int j = 0; j < c->remote_group->size; j++) {
        struct nbc_blk b = nbc_block(rbuf, rcount, rcounts, displs, rt, NULL, j);
        smap_sched_send_remote(s, sbuf, scount, st, j);
        smap_sched_recv_remote(s, b.p, b.n, b.t, j);
    }
    return nbc_launch(s, req);
}

/* Block j goes to and comes from remote rank j, all in one round. */
int smap_nbc_inter_alltoall(const struct smap_a2a *a, smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s = nbc_new(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    for (int j = 0; j < c->remote_group->size; j++) {
        struct nbc_blk sb =
            nbc_block(a->sbuf, a->scount, a->scounts, a->sdispls, a->st, a->stypes, j);
        struct nbc_blk rb =
            nbc_block(a->rbuf, a->rcount, a->rcounts, a->rdispls, a->rt, a->rtypes, j);
        smap_sched_send_remote(s, sb.p, sb.n, sb.t, j);
        smap_sched_recv_remote(s, rb.p, rb.n, rb.t, j);
    }
    return nbc_launch(s, req);
}
