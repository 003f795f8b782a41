/* Data-moving collectives on intercommunicators: the root talks to every
 * remote member directly (gather, scatter), the "all" forms have every
 * member exchange with every remote member (allgather, alltoall: n*m
 * messages, fine for the ranks of one node), bcast reaches remote rank 0
 * and then spreads in the remote group, barrier meets at the two rank 0s. */
#include <stdlib.h>

#include "coll/inter/internal.h"

int smap_inter_barrier(smap_comm_t *c)
{
    smap_dtype_t *b = smap_dtype_get(MPI_BYTE);
    char none = 0;
    /* everyone here arrived at rank 0; the two rank 0s swap that news;
     * rank 0 releases its group */
    int rc = smap_inter_lgather(c, 0, &none, 0, &none);
    if (rc == MPI_SUCCESS && c->rank == 0)
        rc = inter_sendrecv(c, 1, 0, &none, 0, b, &none, 0, b);
    if (rc == MPI_SUCCESS)
        rc = smap_inter_lbcast(c, 0, &none, 0, b);
    return rc;
}

int smap_inter_bcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c)
{
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (root == MPI_ROOT)
        return inter_send(c, 1, 0, buf, count, t);
    int rc = c->rank == 0 ? inter_recv(c, 1, root, buf, count, t) : MPI_SUCCESS;
    return rc == MPI_SUCCESS ? smap_inter_lbcast(c, 0, buf, count, t) : rc;
}

/* One receive (recv 1) or send per remote member, block j for member j. */
static int fan(smap_comm_t *c, int recv, const void *buf, MPI_Count count,
               struct smap_cvec counts, struct smap_cvec displs, smap_dtype_t *t)
{
    int n = c->remote_group->size, rc = MPI_SUCCESS;
    struct smap_preq *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    if (!r)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory");
    for (int j = 0; j < n; j++) {
        MPI_Count nj;
        char *p = inter_block(buf, j, count, counts, displs, t, &nj);
        if (recv) {
            smap_inter_irecv(&r[j], c, 1, j, p, nj, t);
        } else {
            int e = smap_inter_isend(&r[j], c, 1, j, p, nj, t);
            rc = rc != MPI_SUCCESS ? rc : e;
        }
    }
    int e = smap_inter_waitall(r, n);
    free(r);
    return rc != MPI_SUCCESS ? rc : e;
}

int smap_inter_gather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                      MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                      smap_dtype_t *rt, int root, smap_comm_t *c)
{
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (root == MPI_ROOT)
        return fan(c, 1, rbuf, rcount, rcounts, displs, rt);
    return inter_send(c, 1, root, sbuf, scount, st);
}

int smap_inter_scatter(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                       struct smap_cvec displs, smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                       smap_dtype_t *rt, int root, smap_comm_t *c)
{
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (root == MPI_ROOT)
        return fan(c, 0, sbuf, scount, scounts, displs, st);
    return inter_recv(c, 1, root, rbuf, rcount, rt);
}

int smap_inter_allgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                         MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                         smap_dtype_t *rt, smap_comm_t *c)
{
    struct smap_a2a a = { .sbuf = sbuf, .scount = scount, .st = st, .rbuf = rbuf,
                          .rcount = rcount, .rcounts = rcounts, .rdispls = displs, .rt = rt };
    int n = c->remote_group->size, rc = MPI_SUCCESS;
    struct smap_preq *r = malloc((size_t)(2 * n + 1) * sizeof *r);
    if (!r)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory");
    for (int j = 0; j < n; j++) {
        MPI_Count nj;
        char *p = inter_block(a.rbuf, j, a.rcount, a.rcounts, a.rdispls, rt, &nj);
        smap_inter_irecv(&r[j], c, 1, j, p, nj, rt);
    }
    for (int j = 0; j < n; j++) {
        int e = smap_inter_isend(&r[n + j], c, 1, j, sbuf, scount, st);
        rc = rc != MPI_SUCCESS ? rc : e;
    }
    int e = smap_inter_waitall(r, 2 * n);
    free(r);
    return rc != MPI_SUCCESS ? rc : e;
}

/* Block j of one side of an alltoall(v,w): where, how many, which type. */
static char *a2a_block(const void *buf, int j, MPI_Count count, struct smap_cvec counts,
                       struct smap_cvec displs, smap_dtype_t *t, const MPI_Datatype *types,
                       MPI_Count *n, smap_dtype_t **tj)
{
    if (types) {   /* Alltoallw: displacements in bytes */
        *tj = smap_dtype_stored(types[j]);
        *n = smap_cvec_at(counts, j);
        return (char *)buf + smap_cvec_at(displs, j);
    }
    *tj = t;
    return inter_block(buf, j, count, counts, displs, t, n);
}

int smap_inter_alltoall(const struct smap_a2a *a, smap_comm_t *c)
{
    int n = c->remote_group->size, rc = MPI_SUCCESS;
    struct smap_preq *r = malloc((size_t)(2 * n + 1) * sizeof *r);
    if (!r)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory");
    for (int j = 0; j < n; j++) {
        MPI_Count nj;
        smap_dtype_t *tj;
        char *p = a2a_block(a->rbuf, j, a->rcount, a->rcounts, a->rdispls, a->rt, a->rtypes,
                            &nj, &tj);
        smap_inter_irecv(&r[j], c, 1, j, p, nj, tj);
    }
    for (int j = 0; j < n; j++) {
        MPI_Count nj;
        smap_dtype_t *tj;
        char *p = a2a_block(a->sbuf, j, a->scount, a->scounts, a->sdispls, a->st, a->stypes,
                            &nj, &tj);
        int e = smap_inter_isend(&r[n + j], c, 1, j, p, nj, tj);
        rc = rc != MPI_SUCCESS ? rc : e;
    }
    int e = smap_inter_waitall(r, 2 * n);
    free(r);
    return rc != MPI_SUCCESS ? rc : e;
}
