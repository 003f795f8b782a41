/* Entry points on process groups (src/mpi/group.h).  Errors on groups are
 * tied to no communicator: they go to MPI_COMM_SELF's handler. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "binding/check.h"
#include "mpi/group.h"

#define NOCOMM MPI_COMM_NULL

#define CHECK_GROUP(func, h, obj)                                                  \
    do {                                                                           \
        (obj) = smap_group_get(h);                                                 \
        if (SMAP_UNLIKELY(!(obj)))                                                 \
            return smap_err_raise(NOCOMM, MPI_ERR_GROUP, func, "%s %s", #h,        \
                                  (h) == MPI_GROUP_NULL ? "is MPI_GROUP_NULL"       \
                                                        : "is not a valid group"); \
    } while (0)

#define CHECK_NEW(func, g)                                                         \
    do {                                                                           \
        if (SMAP_UNLIKELY(!(g)))                                                   \
            return smap_err_raise(NOCOMM, MPI_ERR_NO_MEM, func, "out of memory");  \
    } while (0)

int PMPI_Group_size(MPI_Group group, int *size)
{
    struct MPI_ABI_Group *g;
    SMAP_CHECK_RUNNING("MPI_Group_size");
    CHECK_GROUP("MPI_Group_size", group, g);
    SMAP_CHECK_PTR("MPI_Group_size", NOCOMM, size);
    *size = g->size;
    return MPI_SUCCESS;
}

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    struct MPI_ABI_Group *g;
    SMAP_CHECK_RUNNING("MPI_Group_rank");
    CHECK_GROUP("MPI_Group_rank", group, g);
    SMAP_CHECK_PTR("MPI_Group_rank", NOCOMM, rank);
    *rank = g->my_rank;
    return MPI_SUCCESS;
}

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[])
{
    static const char F[] = "MPI_Group_translate_ranks";
    struct MPI_ABI_Group *a, *b;
    SMAP_CHECK_RUNNING(F);
    CHECK_GROUP(F, group1, a);
    CHECK_GROUP(F, group2, b);
    if (n < 0)
        return smap_err_raise(NOCOMM, MPI_ERR_ARG, F, "n=%d is negative", n);
    if (n > 0) {
        SMAP_CHECK_PTR(F, NOCOMM, ranks1);
        SMAP_CHECK_PTR(F, NOCOMM, ranks2);
    }
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= a->size))
            return smap_err_raise(NOCOMM, MPI_ERR_RANK, F,
                                  "ranks1[%d]=%d is not a rank of group1 (size %d)", i,
                                  ranks1[i], a->size);
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

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    struct MPI_ABI_Group *a, *b;
    SMAP_CHECK_RUNNING("MPI_Group_compare");
    CHECK_GROUP("MPI_Group_compare", group1, a);
    CHECK_GROUP("MPI_Group_compare", group2, b);
    SMAP_CHECK_PTR("MPI_Group_compare", NOCOMM, result);
    *result = smap_group_compare(a, b);
    return MPI_SUCCESS;
}

typedef struct MPI_ABI_Group *set_op(const struct MPI_ABI_Group *, const struct MPI_ABI_Group *);

static int binary_op(const char *func, set_op *op, MPI_Group group1, MPI_Group group2,
                     MPI_Group *newgroup)
{
    struct MPI_ABI_Group *a, *b;
    SMAP_CHECK_RUNNING(func);
    CHECK_GROUP(func, group1, a);
    CHECK_GROUP(func, group2, b);
    SMAP_CHECK_PTR(func, NOCOMM, newgroup);
    struct MPI_ABI_Group *g = op(a, b);
    CHECK_NEW(func, g);
    *newgroup = smap_group_handle(g);
    return MPI_SUCCESS;
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return binary_op("MPI_Group_union", smap_group_union, group1, group2, newgroup);
}

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return binary_op("MPI_Group_intersection", smap_group_intersection, group1, group2, newgroup);
}

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return binary_op("MPI_Group_difference", smap_group_difference, group1, group2, newgroup);
}

/* Checks the n ranks of an incl/excl list: valid ranks of g, no duplicate.
 * Marks them in `seen` (g->size bytes, zeroed).  Returns the error code or
 * MPI_SUCCESS. */
static int check_rank_list(const char *func, const struct MPI_ABI_Group *g, int n,
                           const int ranks[], unsigned char *seen)
{
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (r < 0 || r >= g->size)
            return smap_err_raise(NOCOMM, MPI_ERR_RANK, func,
                                  "ranks[%d]=%d is not a rank of the group (size %d)", i, r, g->size);
        if (seen[r])
            return smap_err_raise(NOCOMM, MPI_ERR_RANK, func,
                                  "ranks[%d]=%d appears more than once", i, r);
        seen[r] = 1;
    }
    return MPI_SUCCESS;
}

static int check_list_args(const char *func, const struct MPI_ABI_Group *g, int n, const void *list,
                           MPI_Group *newgroup)
{
    SMAP_CHECK_PTR(func, NOCOMM, newgroup);
    if (n < 0)
        return smap_err_raise(NOCOMM, MPI_ERR_ARG, func, "n=%d is negative", n);
    if (n > 0 && !list)
        return smap_err_raise(NOCOMM, MPI_ERR_ARG, func, "the rank list is NULL but n=%d", n);
    (void)g;
    return MPI_SUCCESS;
}

/* The new group: members of g where keep[i] == want, in group order. */
static int select_members(const char *func, const struct MPI_ABI_Group *g,
                          const unsigned char *mark, unsigned char want, MPI_Group *newgroup)
{
    int *w = malloc((g->size ? (size_t)g->size : 1) * sizeof *w);
    CHECK_NEW(func, w);
    int n = 0;
    for (int i = 0; i < g->size; i++)
        if (mark[i] == want)
            w[n++] = smap_group_world_rank(g, i);
    struct MPI_ABI_Group *ng = smap_group_derived(smap_group_from_world(n, w), g, NULL);
    CHECK_NEW(func, ng);
    *newgroup = smap_group_handle(ng);
    return MPI_SUCCESS;
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    static const char F[] = "MPI_Group_incl";
    struct MPI_ABI_Group *g;
    SMAP_CHECK_RUNNING(F);
    CHECK_GROUP(F, group, g);
    int rc = check_list_args(F, g, n, ranks, newgroup);
    if (rc != MPI_SUCCESS)
        return rc;
    unsigned char *seen = calloc(g->size ? (size_t)g->size : 1, 1);
    CHECK_NEW(F, seen);
    rc = check_rank_list(F, g, n, ranks, seen);   /* so n <= g->size after it */
    free(seen);
    if (rc != MPI_SUCCESS)
        return rc;
    int *w = malloc((n ? (size_t)n : 1) * sizeof *w);
    CHECK_NEW(F, w);
    for (int i = 0; i < n; i++)
        w[i] = smap_group_world_rank(g, ranks[i]);
    struct MPI_ABI_Group *ng = smap_group_derived(smap_group_from_world(n, w), g, NULL);
    CHECK_NEW(F, ng);
    *newgroup = smap_group_handle(ng);
    return MPI_SUCCESS;
}

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    static const char F[] = "MPI_Group_excl";
    struct MPI_ABI_Group *g;
    SMAP_CHECK_RUNNING(F);
    CHECK_GROUP(F, group, g);
    int rc = check_list_args(F, g, n, ranks, newgroup);
    if (rc != MPI_SUCCESS)
        return rc;
    unsigned char *seen = calloc(g->size ? (size_t)g->size : 1, 1);
    CHECK_NEW(F, seen);
    rc = check_rank_list(F, g, n, ranks, seen);
    if (rc == MPI_SUCCESS)
        rc = select_members(F, g, seen, 0, newgroup);
    free(seen);
    return rc;
}

/* Expands the n (first, last, stride) triples into marks on `seen` and,
 * when `out` is not NULL, the ranks in order.  Every triple must stay inside
 * the group, have a non-zero stride that moves from first towards last, and
 * no rank may come twice (MPI-5.0 section 7.3.2). */
static int expand_ranges(const char *func, const struct MPI_ABI_Group *g, int n, int ranges[][3],
                         unsigned char *seen, int *out, int *count)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (first < 0 || first >= g->size || last < 0 || last >= g->size)
            return smap_err_raise(NOCOMM, MPI_ERR_RANK, func,
                                  "ranges[%d]={%d,%d,%d} leaves the group (size %d)", i, first,
                                  last, stride, g->size);
        if (stride == 0)
            return smap_err_raise(NOCOMM, MPI_ERR_ARG, func, "ranges[%d] has stride 0", i);
        if ((stride > 0 && first > last) || (stride < 0 && first < last))
            return smap_err_raise(NOCOMM, MPI_ERR_ARG, func,
                                  "ranges[%d]={%d,%d,%d}: the stride leads away from last", i,
                                  first, last, stride);
        long steps = ((long)last - first) / stride;
        for (long s = 0; s <= steps; s++) {
            int r = (int)(first + s * stride);
            if (seen[r])
                return smap_err_raise(NOCOMM, MPI_ERR_RANK, func,
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

static int range_op(const char *func, MPI_Group group, int n, int ranges[][3],
                    MPI_Group *newgroup, int include)
{
    struct MPI_ABI_Group *g;
    SMAP_CHECK_RUNNING(func);
    CHECK_GROUP(func, group, g);
    int rc = check_list_args(func, g, n, ranges, newgroup);
    if (rc != MPI_SUCCESS)
        return rc;
    unsigned char *seen = calloc(g->size ? (size_t)g->size : 1, 1);
    int *w = include ? malloc((g->size ? (size_t)g->size : 1) * sizeof *w) : NULL;
    if (!seen || (include && !w)) {
        free(seen);
        free(w);
        return smap_err_raise(NOCOMM, MPI_ERR_NO_MEM, func, "out of memory");
    }
    int count = 0;
    rc = expand_ranges(func, g, n, ranges, seen, w, &count);
    if (rc == MPI_SUCCESS && include) {
        struct MPI_ABI_Group *ng = smap_group_derived(smap_group_from_world(count, w), g, NULL);
        w = NULL;
        if (!ng)
            rc = smap_err_raise(NOCOMM, MPI_ERR_NO_MEM, func, "out of memory");
        else
            *newgroup = smap_group_handle(ng);
    } else if (rc == MPI_SUCCESS) {
        rc = select_members(func, g, seen, 0, newgroup);
    }
    free(w);
    free(seen);
    return rc;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_op("MPI_Group_range_incl", group, n, ranges, newgroup, 1);
}

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_op("MPI_Group_range_excl", group, n, ranges, newgroup, 0);
}

/* Freeing MPI_GROUP_EMPTY is allowed: constructors return it for empty
 * results, and programs free what constructors return. */
int PMPI_Group_free(MPI_Group *group)
{
    struct MPI_ABI_Group *g;
    SMAP_CHECK_RUNNING("MPI_Group_free");
    SMAP_CHECK_PTR("MPI_Group_free", NOCOMM, group);
    CHECK_GROUP("MPI_Group_free", *group, g);
    if (smap_group_drop(*group, g) != 0)
        return smap_err_raise(NOCOMM, MPI_ERR_GROUP, "MPI_Group_free",
                              "*group was freed already (a copy of the handle?)");
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING("MPI_Comm_group");
    SMAP_CHECK_COMM("MPI_Comm_group", comm, c);
    SMAP_CHECK_PTR("MPI_Comm_group", comm, group);
    smap_group_retain(c->group);
    *group = smap_group_handle(c->group);
    return MPI_SUCCESS;
}
