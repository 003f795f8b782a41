#include "mpi/group.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "base/free_later.h"
#include "mpi/comm.h"
#include "mpi/session.h"

struct MPI_ABI_Group smap_group_world = { SMAP_GROUP_MAGIC, 1, 1, 0, MPI_UNDEFINED, 0, 1, NULL, NULL, NULL, 0 };
struct MPI_ABI_Group smap_group_self = { SMAP_GROUP_MAGIC, 1, 1, 0, MPI_UNDEFINED, 0, 1, NULL, NULL, NULL, 0 };
struct MPI_ABI_Group smap_group_empty = { SMAP_GROUP_MAGIC, 1, 1, 0, MPI_UNDEFINED, 0, 1, NULL, NULL, NULL, 0 };

static int my_world_rank;

void smap_group_init(int world_rank, int world_size)
{
    my_world_rank = world_rank;
    smap_group_world.size = world_size;
    smap_group_world.first = 0;
    smap_group_world.stride = 1;
    smap_group_world.my_rank = world_rank;
    smap_group_self.size = 1;
    smap_group_self.first = world_rank;
    smap_group_self.stride = 1;
    smap_group_self.my_rank = 0;
}

/* User groups are our own allocations: the magic tells a live one from a
 * freed or foreign pointer in the common mistakes, as for error handlers. */
struct MPI_ABI_Group *smap_group_get(MPI_Group h)
{
    if (h == MPI_GROUP_EMPTY)
        return &smap_group_empty;
    if (!smap_plausible_object(h, _Alignof(struct MPI_ABI_Group)))
        return NULL;
    struct MPI_ABI_Group *g = h;
    return g->magic == SMAP_GROUP_MAGIC ? g : NULL;
}

MPI_Group smap_group_handle(struct MPI_ABI_Group *g)
{
    if (g == &smap_group_empty)
        return MPI_GROUP_EMPTY;
    if (atomic_fetch_add_explicit((_Atomic int *)&g->handles, 1, memory_order_relaxed) == 0)
        g->magic = SMAP_GROUP_MAGIC;
    return g;
}

/* The program's handles are counted apart from the references, so that a
 * second MPI_Group_free through a copy of the handle is refused instead of
 * dropping the reference of the communicator the group belongs to.  A
 * static group (WORLD's, SELF's) keeps its magic: it is always valid. */
int smap_group_drop(MPI_Group h, struct MPI_ABI_Group *g)
{
    if (h != MPI_GROUP_EMPTY) {
        _Atomic int *n = (_Atomic int *)&g->handles;
        int have = atomic_load_explicit(n, memory_order_relaxed);
        do {
            if (have <= 0)
                return -1;
        } while (!atomic_compare_exchange_weak_explicit(n, &have, have - 1, memory_order_relaxed,
                                                        memory_order_relaxed));
        if (have == 1 && !g->is_static)
            g->magic = SMAP_GROUP_HIDDEN;
    }
    smap_group_release(g);
    return 0;
}

void smap_group_retain(struct MPI_ABI_Group *g)
{
    if (g && !g->is_static)
        atomic_fetch_add_explicit((_Atomic int *)&g->refs, 1, memory_order_relaxed);
}

void smap_group_release(struct MPI_ABI_Group *g)
{
    if (!g || g->is_static)
        return;
    if (atomic_fetch_sub_explicit((_Atomic int *)&g->refs, 1, memory_order_acq_rel) == 1) {
        g->magic = 0;
        smap_session_release(g->session);
        free(g->ranks);
        free(g->order);
        smap_free_later(g);   /* a stale handle reads the cleared magic for a while */
    }
}

int smap_group_find(const struct MPI_ABI_Group *g, int w)
{
    if (g->size == 0)
        return -1;
    if (!g->ranks) {
        long d = (long)w - g->first;
        if (d % g->stride != 0)
            return -1;
        long i = d / g->stride;
        return i >= 0 && i < g->size ? (int)i : -1;
    }
    int lo = 0, hi = g->size - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int v = g->ranks[g->order[mid]];
        if (v == w)
            return g->order[mid];
        if (v < w)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

struct pair {
    int world, index;
};

static int cmp_pair(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    return (x->world > y->world) - (x->world < y->world);
}

struct MPI_ABI_Group *smap_group_from_world(int n, int *world)
{
    if (n == 0) {
        free(world);
        return &smap_group_empty;
    }
    struct MPI_ABI_Group *g = calloc(1, sizeof *g);
    if (!g) {
        free(world);
        return NULL;
    }
    g->magic = SMAP_GROUP_MAGIC;
    g->refs = 1;
    g->size = n;
    /* An arithmetic progression needs no array (stride 0 cannot occur:
     * members are distinct). */
    long stride = n > 1 ? (long)world[1] - world[0] : 1;
    int progression = stride != 0 && stride >= -(long)INT32_MAX && stride <= INT32_MAX;
    for (int i = 2; progression && i < n; i++)
        progression = (long)world[i] - world[i - 1] == stride;
    if (progression) {
        g->first = world[0];
        g->stride = (int)stride;
        free(world);
    } else {
        struct pair *p = malloc((size_t)n * sizeof *p);
        g->order = malloc((size_t)n * sizeof *g->order);
        if (!p || !g->order) {
            free(p);
            free(g->order);
            free(g);
            free(world);
            return NULL;
        }
        for (int i = 0; i < n; i++)
            p[i] = (struct pair){ world[i], i };
        qsort(p, (size_t)n, sizeof *p, cmp_pair);
        for (int i = 0; i < n; i++)
            g->order[i] = p[i].index;
        free(p);
        g->ranks = world;
    }
    int me = smap_group_find(g, my_world_rank);
    g->my_rank = me >= 0 ? me : MPI_UNDEFINED;
    return g;
}

void smap_group_set_session(struct MPI_ABI_Group *g, struct MPI_ABI_Session *s)
{
    if (!g || g->is_static || !s || g->session)
        return;
    smap_session_retain(s);
    g->session = s;
}

struct MPI_ABI_Group *smap_group_derived(struct MPI_ABI_Group *g, const struct MPI_ABI_Group *a,
                                         const struct MPI_ABI_Group *b)
{
    smap_group_set_session(g, a && a->session ? a->session : b ? b->session : NULL);
    return g;
}

static int *world_array(size_t n)
{
    return malloc((n ? n : 1) * sizeof(int));
}

struct MPI_ABI_Group *smap_group_union(const struct MPI_ABI_Group *a, const struct MPI_ABI_Group *b)
{
    int *w = world_array((size_t)a->size + (size_t)b->size);
    if (!w)
        return NULL;
    int n = 0;
    for (int i = 0; i < a->size; i++)
        w[n++] = smap_group_world_rank(a, i);
    for (int i = 0; i < b->size; i++) {
        int r = smap_group_world_rank(b, i);
        if (smap_group_find(a, r) < 0)
            w[n++] = r;
    }
    return smap_group_derived(smap_group_from_world(n, w), a, b);
}

static struct MPI_ABI_Group *filter(const struct MPI_ABI_Group *a, const struct MPI_ABI_Group *b,
                                    int keep_members_of_b)
{
    int *w = world_array((size_t)a->size);
    if (!w)
        return NULL;
    int n = 0;
    for (int i = 0; i < a->size; i++) {
        int r = smap_group_world_rank(a, i);
        if ((smap_group_find(b, r) >= 0) == keep_members_of_b)
            w[n++] = r;
    }
    return smap_group_derived(smap_group_from_world(n, w), a, b);
}

struct MPI_ABI_Group *smap_group_intersection(const struct MPI_ABI_Group *a, const struct MPI_ABI_Group *b)
{
    return filter(a, b, 1);
}

struct MPI_ABI_Group *smap_group_difference(const struct MPI_ABI_Group *a, const struct MPI_ABI_Group *b)
{
    return filter(a, b, 0);
}

int smap_group_compare(const struct MPI_ABI_Group *a, const struct MPI_ABI_Group *b)
{
    if (a == b)
        return MPI_IDENT;
    if (a->size != b->size)
        return MPI_UNEQUAL;
    int same_order = 1;
    for (int i = 0; i < a->size && same_order; i++)
        same_order = smap_group_world_rank(a, i) == smap_group_world_rank(b, i);
    if (same_order)
        return MPI_IDENT;
    /* Members are distinct and the sizes equal: a within b means a == b. */
    for (int i = 0; i < a->size; i++)
        if (smap_group_find(b, smap_group_world_rank(a, i)) < 0)
            return MPI_UNEQUAL;
    return MPI_SIMILAR;
}
