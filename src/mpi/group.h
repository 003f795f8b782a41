/* Process groups: ordered sets of MPI_COMM_WORLD ranks, reference counted.
 *
 * Representation: a group whose members form an arithmetic progression of
 * world ranks (WORLD, SELF, any contiguous or strided slice: the common
 * case) is stored as (first, stride, size) with no array; any other group
 * keeps its world ranks in `ranks` plus `order`, its group ranks sorted by
 * world rank, so that "which group rank has world rank w" is a binary
 * search.  Every constructor normalises to the compact form when it can.
 *
 * MPI_GROUP_EMPTY is a predefined handle resolving to a static object;
 * the groups of WORLD and SELF are static objects too (their count of
 * references never frees them).  User groups are malloc'd; a communicator
 * holds one reference to its group, MPI_Comm_group hands out another. */
#ifndef SMAP_MPI_GROUP_H
#define SMAP_MPI_GROUP_H

#include <mpi.h>
#include <stdint.h>

#define SMAP_GROUP_MAGIC 0x47525550u  /* "GRUP" */
/* Alive (held by a communicator, a window...) but no handle of the
 * program names it any more: a freed copy of a handle is refused. */
#define SMAP_GROUP_HIDDEN 0x67727570u  /* "grup" */

struct MPI_ABI_Group {
    uint32_t magic;
    int refs;          /* atomic; ignored for static groups */
    int is_static;     /* WORLD's, SELF's and the empty group: never freed */
    int size;
    int my_rank;       /* rank of the calling process, or MPI_UNDEFINED */
    int first, stride; /* when ranks == NULL: member i is first + i * stride */
    int *ranks;        /* world rank of each member, or NULL */
    int *order;        /* group ranks sorted by world rank (with ranks) */
    /* The session the group comes from (MPI_Group_from_session_pset, or a
     * group made from such groups), one reference; NULL for the others and
     * for static groups.  Communicators made from the group inherit it. */
    struct MPI_ABI_Session *session;
    int handles;       /* atomic: the program's handles to it (not for the empty group) */
};

extern struct MPI_ABI_Group smap_group_world, smap_group_self, smap_group_empty;

/* Sets up the static groups once WORLD's size and our rank are known. */
void smap_group_init(int world_rank, int world_size);

/* The object behind a handle, or NULL for MPI_GROUP_NULL / garbage. */
struct MPI_ABI_Group *smap_group_get(MPI_Group h);
/* The handle of an object, handed to the program with the reference the
 * caller holds: MPI_GROUP_EMPTY for the empty group. */
MPI_Group smap_group_handle(struct MPI_ABI_Group *g);
/* MPI_Group_free of the program's handle h to g: its reference goes;
 * -1 (nothing done) when the program holds no handle to g any more. */
int smap_group_drop(MPI_Group h, struct MPI_ABI_Group *g);

void smap_group_retain(struct MPI_ABI_Group *g);
void smap_group_release(struct MPI_ABI_Group *g);

/* World rank of member i (0 <= i < size). */
static inline int smap_group_world_rank(const struct MPI_ABI_Group *g, int i)
{
    return g->ranks ? g->ranks[i] : g->first + i * g->stride;
}

/* Group rank of world rank w, or -1 when w is not a member. */
int smap_group_find(const struct MPI_ABI_Group *g, int w);

/* A new group (one reference) holding the n world ranks of `world` in that
 * order (they must be distinct); n == 0 gives the empty group.  Returns
 * NULL when out of memory.  Takes ownership of `world` (malloc'd or NULL). */
struct MPI_ABI_Group *smap_group_from_world(int n, int *world);

/* Gives g (non-static) session s (one reference), unless it has one or s
 * is NULL. */
void smap_group_set_session(struct MPI_ABI_Group *g, struct MPI_ABI_Session *s);
/* g, made from a (and b, may be NULL), given the session of the first of
 * them that has one.  g may be NULL (passed through). */
struct MPI_ABI_Group *smap_group_derived(struct MPI_ABI_Group *g, const struct MPI_ABI_Group *a,
                                         const struct MPI_ABI_Group *b);

/* Set operations of MPI_Group_union/intersection/difference and
 * MPI_Group_compare's result; NULL when out of memory. */
struct MPI_ABI_Group *smap_group_union(const struct MPI_ABI_Group *a, const struct MPI_ABI_Group *b);
struct MPI_ABI_Group *smap_group_intersection(const struct MPI_ABI_Group *a, const struct MPI_ABI_Group *b);
struct MPI_ABI_Group *smap_group_difference(const struct MPI_ABI_Group *a, const struct MPI_ABI_Group *b);
int smap_group_compare(const struct MPI_ABI_Group *a, const struct MPI_ABI_Group *b);

/* ---- The MPI_Group_* operations (group_api.c), called by the generated
 * entry points once the handles, counts and pointers are checked.  Those
 * that return int give MPI_SUCCESS or an error class, the reason recorded
 * (base/why.h): a rank outside the group, a duplicate, out of memory. ---- */
struct MPI_ABI_Comm;
typedef struct MPI_ABI_Group *smap_group_set_fn(const struct MPI_ABI_Group *,
                                                const struct MPI_ABI_Group *);
void smap_group_size_of(const struct MPI_ABI_Group *g, int *size);
void smap_group_rank_of(const struct MPI_ABI_Group *g, int *rank);
void smap_group_compare_into(const struct MPI_ABI_Group *a, const struct MPI_ABI_Group *b,
                             int *result);
/* MPI_Comm_group: a new reference to c's group. */
void smap_group_of_comm(struct MPI_ABI_Comm *c, MPI_Group *group);
int smap_group_translate(const struct MPI_ABI_Group *a, int n, const int ranks1[],
                         const struct MPI_ABI_Group *b, int ranks2[]);
/* Union, intersection or difference (op) of a and b into *newgroup. */
int smap_group_set_op(smap_group_set_fn *op, const struct MPI_ABI_Group *a,
                      const struct MPI_ABI_Group *b, MPI_Group *newgroup);
int smap_group_incl(const struct MPI_ABI_Group *g, int n, const int ranks[], MPI_Group *newgroup);
int smap_group_excl(const struct MPI_ABI_Group *g, int n, const int ranks[], MPI_Group *newgroup);
/* MPI_Group_range_incl (include) or _excl of the n triples. */
int smap_group_range(const struct MPI_ABI_Group *g, int n, int ranges[][3], int include,
                     MPI_Group *newgroup);
/* MPI_Group_free of the program's handle *group to g. */
int smap_group_free_handle(MPI_Group *group, struct MPI_ABI_Group *g);

#endif
