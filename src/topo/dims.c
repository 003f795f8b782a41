/* MPI_Dims_create's arithmetic (its generated entry point is in
 * src/binding/gen/topo.c): the free entries of dims (the zeros) get the most
 * balanced factorisation of nnodes / (product of the fixed entries): among
 * all ways to write it as a product of that many factors, the one with the
 * smallest spread (largest - smallest), then the smallest largest factor;
 * stored in non-increasing order, as MPI requires.  The search is exhaustive
 * over non-increasing factor sequences, which stays small for any int: a
 * number below 2^31 has at most 1600 divisors and its factorisations prune
 * fast.  Every argument is checked here (the error classes are MPI_ERR_DIMS
 * and MPI_ERR_ARG, the reason recorded with base/why.h). */
#include <mpi.h>
#include <limits.h>
#include <stdlib.h>

#include "base/why.h"
#include "topo/topo.h"

struct search {
    const int *div;  /* divisors of the free product, ascending */
    int ndiv;
    int k;           /* number of free dimensions */
    int *cur, *best; /* k entries, non-increasing */
    int best_spread, best_max;
};

/* Whether d^k >= m (no overflow: stops as soon as it is). */
static int pow_reaches(int d, int k, long long m)
{
    long long p = 1;
    for (int j = 0; j < k && p < m; j++)
        p *= d;
    return p >= m;
}

/* The largest r with r^k <= m, for k >= 2 (binary search: r <= 46340). */
static int iroot(int m, int k)
{
    int lo = 1, hi = 46341;
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (pow_reaches(mid, k, (long long)m + 1))
            hi = mid;   /* mid^k > m */
        else
            lo = mid;
    }
    return lo;
}

static void keep_if_better(struct search *s)
{
    int spread = s->cur[0] - s->cur[s->k - 1];
    if (spread < s->best_spread || (spread == s->best_spread && s->cur[0] < s->best_max)) {
        s->best_spread = spread;
        s->best_max = s->cur[0];
        for (int i = 0; i < s->k; i++)
            s->best[i] = s->cur[i];
    }
}

/* Fills cur[pos..k) with non-increasing factors <= cap whose product is m
 * (cur[0..pos) chosen); keeps the best complete sequence.  Factors are
 * tried smallest first, so balanced candidates come early and prune the
 * rest: the smallest factor is at most the left-th root of m, so the
 * spread is at least cur[0] minus that root. */
static void search(struct search *s, int pos, int m, int cap)
{
    int left = s->k - pos;
    if (m == 1) {
        for (int i = pos; i < s->k; i++)
            s->cur[i] = 1;
        keep_if_better(s);
        return;
    }
    if (left == 1) {
        if (m <= cap) {
            s->cur[pos] = m;
            keep_if_better(s);
        }
        return;
    }
    int root = iroot(m, left);
    if (pos > 0 && s->cur[0] - root >= s->best_spread)
        return;
    for (int i = 0; i < s->ndiv && s->div[i] <= cap; i++) {
        int d = s->div[i];
        if (m % d || !pow_reaches(d, left, m))
            continue;
        if (pos == 0 && d - root >= s->best_spread)
            break;  /* every larger first factor spreads more */
        s->cur[pos] = d;
        search(s, pos + 1, m / d, d);
    }
}

/* The divisors of m in ascending order; NULL when out of memory. */
static int *divisors(int m, int *n)
{
    int small = 0, cap = 64;
    int *lo = malloc((size_t)cap * sizeof *lo), *hi = malloc((size_t)cap * sizeof *hi);
    if (!lo || !hi)
        goto oom;
    for (long long d = 1; d * d <= m; d++) {
        if (m % d)
            continue;
        if (small == cap) {
            cap *= 2;
            int *a = realloc(lo, (size_t)cap * sizeof *a), *b = a ? realloc(hi, (size_t)cap * sizeof *b) : NULL;
            if (a)
                lo = a;
            if (!a || !b)
                goto oom;
            hi = b;
        }
        lo[small] = (int)d;
        hi[small++] = (int)(m / d);
    }
    *n = 0;
    int *all = malloc((size_t)(2 * small) * sizeof *all);
    if (!all)
        goto oom;
    for (int i = 0; i < small; i++)
        all[(*n)++] = lo[i];
    for (int i = small - 1; i >= 0; i--)
        if (hi[i] != lo[i])
            all[(*n)++] = hi[i];
    free(lo);
    free(hi);
    return all;
oom:
    free(lo);
    free(hi);
    return NULL;
}

/* Balanced factors of m into k entries, non-increasing, into out. */
static int factor(int m, int k, int *out)
{
    struct search s = {.k = k, .best_spread = INT_MAX, .best_max = INT_MAX};
    s.div = divisors(m, &s.ndiv);
    s.cur = malloc((size_t)k * sizeof *s.cur);
    s.best = out;
    int rc = MPI_ERR_NO_MEM;
    if (s.div && s.cur) {
        search(&s, 0, m, m);
        rc = MPI_SUCCESS;
    }
    free((void *)s.div);
    free(s.cur);
    return rc;
}

int smap_topo_dims_create(int nnodes, int ndims, int dims[])
{
    if (nnodes <= 0)
        return smap_failf(MPI_ERR_ARG, "nnodes=%d must be positive", nnodes);
    if (ndims < 0)
        return smap_failf(MPI_ERR_DIMS, "ndims=%d is negative", ndims);
    if (ndims == 0)
        return MPI_SUCCESS;  /* nothing to set (as MPICH and Open MPI do) */
    if (!dims)
        return smap_fail(MPI_ERR_ARG, "dims is NULL");
    long long fixed = 1;
    int nfree = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return smap_failf(MPI_ERR_DIMS, "dims[%d]=%d is negative", i, dims[i]);
        if (dims[i] == 0)
            nfree++;
        else if ((fixed *= dims[i]) > nnodes)
            break;
    }
    if (fixed > nnodes || nnodes % fixed)
        return smap_failf(MPI_ERR_DIMS,
                          "nnodes=%d is not a multiple of the product of the nonzero "
                          "dims entries", nnodes);
    int m = (int)(nnodes / fixed);
    if (nfree == 0) {
        if (m != 1)
            return smap_failf(MPI_ERR_DIMS, "the dims entries multiply to %lld, not nnodes=%d",
                              fixed, nnodes);
        return MPI_SUCCESS;
    }
    int *f = malloc((size_t)nfree * sizeof *f);
    if (!f || factor(m, nfree, f) != MPI_SUCCESS) {
        free(f);
        return smap_fail(MPI_ERR_NO_MEM, "out of memory");
    }
    for (int i = 0, j = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = f[j++];
    free(f);
    return MPI_SUCCESS;
}
