/* MPI_Comm_split and MPI_Comm_split_type: every member publishes (color,
 * key) with an allgather on the parent, builds its color's group ordered by
 * (key, parent rank), and all agree on one context id and one control block
 * for all the new communicators (they are disjoint, so sharing is safe:
 * no message or block is ever shared between two of them).  Of an
 * intercommunicator: inter_create.c. */
#include <mpi.h>
#include <stdlib.h>

#include "comm/comm_create.h"
#include "mpi/errors.h"
#include "mpi/intercomm.h"

struct member {
    int key, rank, world;
};

static int by_key(const void *a, const void *b)
{
    const struct member *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

struct MPI_ABI_Group *smap_comm_color_group(const struct MPI_ABI_Group *g, const int *ck,
                                            int color)
{
    struct member *m = malloc((size_t)g->size * sizeof *m + 1);
    int *w = malloc((size_t)g->size * sizeof *w + 1);
    if (!m || !w) {
        free(m);
        free(w);
        return NULL;
    }
    int n = 0;
    for (int i = 0; i < g->size; i++)
        if (ck[2 * i] == color)
            m[n++] = (struct member){ ck[2 * i + 1], i, smap_group_world_rank(g, i) };
    qsort(m, (size_t)n, sizeof *m, by_key);
    for (int i = 0; i < n; i++)
        w[i] = m[i].world;
    free(m);
    return smap_group_from_world(n, w);
}

int smap_comm_split(struct MPI_ABI_Comm *c, int color, int key, MPI_Comm *newcomm,
                    const char *func)
{
    if (smap_comm_is_inter(c))
        return smap_inter_split(c, color, key, newcomm, func);
    int *ck = malloc((size_t)c->size * 2 * sizeof *ck);
    if (!ck)
        return smap_err_raise(c->handle, MPI_ERR_NO_MEM, func, "out of memory");
    int mine[2] = { color, key };
    smap_dtype_t *t = smap_dtype_get(MPI_INT);
    struct smap_cvec none = { NULL, 0 };
    smap_coll_func = func;
    int rc = smap_coll_allgather(mine, 2, t, ck, 2, none, none, t, c);
    if (rc != MPI_SUCCESS)
        rc = smap_err_raise(c->handle, rc, func, "%s", smap_why());
    struct smap_comm_ids ids;
    if (rc == MPI_SUCCESS)
        rc = smap_comm_agree(c, &ids, func);
    *newcomm = MPI_COMM_NULL;
    if (rc != MPI_SUCCESS || color == MPI_UNDEFINED) {
        if (rc == MPI_SUCCESS)
            smap_comm_ctx_release_mine();   /* not a member: nothing to reserve for */
        free(ck);
        return rc;
    }
    struct MPI_ABI_Group *g = smap_comm_color_group(c->group, ck, color);
    free(ck);
    if (!g)
        return smap_err_raise(c->handle, MPI_ERR_NO_MEM, func, "out of memory");
    return smap_comm_make(c, g, &ids, newcomm, func);
}
