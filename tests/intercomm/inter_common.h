/* Shared by the intercommunicator tests: the ways WORLD is cut in two
 * groups A (color 0) and B (color 1), and the intercommunicator between
 * them built with MPI_Comm_split + MPI_Intercomm_create. */
#ifndef INTER_COMMON_H
#define INTER_COMMON_H

#include <mpi.h>

#include "smap_test.h"

enum { NSCHEMES = 3 };
static const char *const scheme_name[NSCHEMES] = { "even/odd", "first 1", "first 2/3" };

static int wsize, wrank;

/* Group (0: A, 1: B) of world rank w under scheme s. */
static int color_of(int s, int w)
{
    switch (s) {
    case 0: return w % 2;
    case 1: return w >= 1;
    default: {
        int k = 2 * wsize / 3;
        k = k < 1 ? 1 : k > wsize - 1 ? wsize - 1 : k;
        return w >= k;
    }
    }
}

/* The members of group `color`, as world ranks in group order. */
static int members(int s, int color, int *out)
{
    int n = 0;
    for (int w = 0; w < wsize; w++)
        if (color_of(s, w) == color)
            out[n++] = w;
    return n;
}

/* What a test needs to know about one intercommunicator. */
struct inter {
    MPI_Comm local, comm;
    int color, rank, size, rsize;   /* my group, my rank in it, sizes */
    int mine[64], theirs[64];       /* world ranks of the local / remote group */
};

static void inter_make(int s, struct inter *x)
{
    x->color = color_of(s, wrank);
    x->size = members(s, x->color, x->mine);
    x->rsize = members(s, !x->color, x->theirs);
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, x->color, wrank, &x->local));
    CHECK_RC(MPI_Comm_rank(x->local, &x->rank));
    /* leaders: each group's first member; the remote leader by world rank */
    CHECK_RC(MPI_Intercomm_create(x->local, 0, MPI_COMM_WORLD, x->theirs[0], 50 + s, &x->comm));
}

/* ---- for the collective tests (inter_coll, inter_nbc) ---- */

static inline void fill(int *p, int n, int v)
{
    for (int i = 0; i < n; i++)
        p[i] = v;
}

/* Affine maps x -> a x + b under composition: associative, not
 * commutative, so the fold order (rank order) shows. */
static inline void compose(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    int *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        int a = x[2 * i] * y[2 * i], b = x[2 * i] * y[2 * i + 1] + x[2 * i + 1];
        y[2 * i] = a, y[2 * i + 1] = b;
    }
}

static inline void map_of(int r, int *ab)
{
    ab[0] = r % 2 ? 3 : 2;
    ab[1] = r + 1;
}

/* f_0 o f_1 o ... o f_{n-1} over the ranks of a group of n. */
static inline void fold_maps(int n, int *ab)
{
    map_of(n - 1, ab);
    for (int i = n - 2; i >= 0; i--) {
        int x[2], len = 1;
        map_of(i, x);
        compose(x, ab, &len, NULL);
    }
}

static void inter_free(struct inter *x)
{
    CHECK_RC(MPI_Comm_free(&x->comm));
    CHECK_RC(MPI_Comm_free(&x->local));
}

#endif
