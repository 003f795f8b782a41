/* The operations behind the MPI_Group_* entry points (their generated stubs
 * in src/binding/gen/group.c have checked the handles, the counts and the
 * pointers).  Each returns MPI_SUCCESS or an error class with the reason
 * recorded (base/why.h); the rank checks that need the group are here. */
#include <mpi.h>
#include <stdlib.h>

#include "base/why.h"
#include "mpi/comm.h"
#include "mpi/group.h"

#define NO_MEM() smap_fail(MPI_ERR_NO_MEM, "out of memory")

void smap_group_size_of(const struct MPI_ABI_Group *g, int *size)
{
    *size = g->size;
}

void smap_group_rank_of(const struct MPI_ABI_Group *g, int *rank)
{
    *rank = g->my_rank;
}

void smap_group_compare_into(const struct MPI_ABI_Group *a, const struct MPI_ABI_Group *b,
                             int *result)
{
    *result = smap_group_compare(a, b);
}

void smap_group_of_comm(struct MPI_ABI_Comm *c, MPI_Group *group)
{
    smap_group_retain(c->group);
    *group = smap_group_handle(c->group);
}

int smap_group_translate(const struct MPI_ABI_Group *a, int n, const int ranks1[],
                         const struct MPI_ABI_Group *b, int ranks2[])
{
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= a->size))
            return smap_failf(MPI_ERR_RANK, "ranks1[%d]=%d is not a rank of group1 (size %d)",
                              i, ranks1[i], a->size);
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        int r = smap_group_find(b, smap_group_world_rank(a, ranks1[i]));
        ranks2[i] = r >= 0 ? r : MPI_UNDEFINED;
    }
    return MPI_SUCCESS;
}

int smap_group_set_op(smap_group_set_fn *op, const struct MPI_ABI_Group *a,
                      const struct MPI_ABI_Group *b, MPI_Group *newgroup)
{
    struct MPI_ABI_Group *g = op(a, b);
    if (!g)
        return NO_MEM();
    *newgroup = smap_group_handle(g);
    return MPI_SUCCESS;
}

/* Checks the n ranks of an incl/excl list: valid ranks of g, no duplicate.
 * Marks them in `seen` (g->size bytes, zeroed). */
static int check_rank_list(const struct MPI_ABI_Group *g, int n, const int ranks[],
                           unsigned char *seen)
{
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (r < 0 || r >= g->size)
            return smap_failf(MPI_ERR_RANK, "ranks[%d]=%d is not a rank of the group (size %d)",
                              i, r, g->size);
        if (seen[r])
            return smap_failf(MPI_ERR_RANK, "ranks[%d]=%d appears more than once", i, r);
        seen[r] = 1;
    }
    return MPI_SUCCESS;
}

/* The new group: members of g where mark[i] == want, in group order. */
static int select_members(const struct MPI_ABI_Group *g, const unsigned char *mark,
                          unsigned char want, MPI_Group *newgroup)
{
    int *w = malloc((g->size ? (size_t)g->size : 1) * sizeof *w);
    if (!w)
        return NO_MEM();
    int n = 0;
    for (int i = 0; i < g->size; i++)
        if (mark[i] == want)
            w[n++] = smap_group_world_rank(g, i);
    struct MPI_ABI_Group *ng = smap_group_derived(smap_group_from_world(n, w), g, NULL);
    if (!ng)
        return NO_MEM();
    *newgroup = smap_group_handle(ng);
    return MPI_SUCCESS;
}

int smap_group_incl(const struct MPI_ABI_Group *g, int n, const int ranks[], MPI_Group *newgroup)
{
    unsigned char *seen = calloc(g->size ? (size_t)g->size : 1, 1);
    if (!seen)
        return NO_MEM();
    int rc = check_rank_list(g, n, ranks, seen);   /* so n <= g->size after it */
    free(seen);
    if (rc != MPI_SUCCESS)
        return rc;
    int *w = malloc((n ? (size_t)n : 1) * sizeof *w);
    if (!w)
        return NO_MEM();
    for (int i = 0; i < n; i++)
        w[i] = smap_group_world_rank(g, ranks[i]);
    struct MPI_ABI_Group *ng = smap_group_derived(smap_group_from_world(n, w), g, NULL);
    if (!ng)
        return NO_MEM();
    *newgroup = smap_group_handle(ng);
    return MPI_SUCCESS;
}

int smap_group_excl(const struct MPI_ABI_Group *g, int n, const int ranks[], MPI_Group *newgroup)
{
    unsigned char *seen = calloc(g->size ? (size_t)g->size : 1, 1);
    if (!seen)
        return NO_MEM();
    int rc = check_rank_list(g, n, ranks, seen);
    if (rc == MPI_SUCCESS)
        rc = select_members(g, seen, 0, newgroup);
    free(seen);
    return rc;
}

/* Expands the n (first, last, stride) triples into marks on `seen` and,
 * when `out` is not NULL, the ranks in order.  Every triple must stay inside
 * the group, have a non-zero stride that moves from first towards last, and
 * no rank may come twice (MPI-5.0 section 7.3.2). */
static int expand_ranges(const struct MPI_ABI_Group *g, int n, int ranges[][3],
                         unsigned char *seen, int *out, int *count)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (first < 0 || first >= g->size || last < 0 || last >= g->size)
            return smap_failf(MPI_ERR_RANK, "ranges[%d]={%d,%d,%d} leaves the group (size %d)",
                              i, first, last, stride, g->size);
        if (stride == 0)
            return smap_failf(MPI_ERR_ARG, "ranges[%d] has stride 0", i);
        if ((stride > 0 && first > last) || (stride < 0 && first < last))
            return smap_failf(MPI_ERR_ARG,
                              "ranges[%d]={%d,%d,%d}: the stride leads away from last", i,
                              first, last, stride);
        long steps = ((long)last - first) / stride;
        for (long s = 0; s <= steps; s++) {
            int r = (int)(first + s * stride);
            if (seen[r])
                return smap_failf(MPI_ERR_RANK,
                                  "rank %d appears more than once (in ranges[%d])", r, i);
            seen[r] = 1;
            if (out)
                out[k] = smap_group_world_rank(g, r);
            k++;
        }
    }
    *count = k;
    return MPI_SUCCESS;
}

int smap_group_range(const struct MPI_ABI_Group *g, int n, int ranges[][3], int include,
                     MPI_Group *newgroup)
{
    unsigned char *seen = calloc(g->size ? (size_t)g->size : 1, 1);
    int *w = include ? malloc((g->size ? (size_t)g->size : 1) * sizeof *w) : NULL;
    if (!seen || (include && !w)) {
        free(seen);
        free(w);
        return NO_MEM();
    }
    int count = 0;
    int rc = expand_ranges(g, n, ranges, seen, w, &count);
    if (rc == MPI_SUCCESS && include) {
        struct MPI_ABI_Group *ng = smap_group_derived(smap_group_from_world(count, w), g, NULL);
        w = NULL;
        if (!ng)
            rc = NO_MEM();
        else
            *newgroup = smap_group_handle(ng);
    } else if (rc == MPI_SUCCESS) {
        rc = select_members(g, seen, 0, newgroup);
    }
    free(w);
    free(seen);
    return rc;
}

/* Freeing MPI_GROUP_EMPTY is allowed: constructors return it for empty
 * results, and programs free what constructors return. */
int smap_group_free_handle(MPI_Group *group, struct MPI_ABI_Group *g)
{
    if (smap_group_drop(*group, g) != 0)
        return smap_fail(MPI_ERR_GROUP, "*group was freed already (a copy of the handle?)");
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
