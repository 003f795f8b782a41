/* Groups: every MPI_Group_* operation against a reference computed here on
 * random rank lists of MPI_COMM_WORLD (the same pseudo-random sequence on
 * every rank; groups are local objects). */
#include <string.h>

#include "smap_test.h"

#define MAXN 64

static int nprocs, me;
static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;

static int rnd(int n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (int)((rng_state >> 33) % (unsigned)n);
}

struct ref {
    int n, w[MAXN];   /* world ranks in group order */
};

static int ref_find(const struct ref *r, int w)
{
    for (int i = 0; i < r->n; i++)
        if (r->w[i] == w)
            return i;
    return -1;
}

/* A random ordered subset of WORLD. */
static struct ref random_ref(void)
{
    struct ref r = { 0, { 0 } };
    int perm[MAXN];
    for (int i = 0; i < nprocs; i++)
        perm[i] = i;
    for (int i = nprocs - 1; i > 0; i--) {
        int j = rnd(i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    r.n = rnd(nprocs + 1);
    if (rnd(4) == 0) {   /* often a sorted prefix: the compact representation */
        for (int i = 0; i < r.n; i++)
            r.w[i] = i;
    } else {
        memcpy(r.w, perm, sizeof(int) * (size_t)r.n);
    }
    return r;
}

static MPI_Group world_group;

static MPI_Group make(const struct ref *r)
{
    MPI_Group g;
    CHECK_RC(MPI_Group_incl(world_group, r->n, r->w, &g));
    if (r->n == 0)
        CHECK(g == MPI_GROUP_EMPTY, "empty incl did not give MPI_GROUP_EMPTY");
    return g;
}

/* Checks g's members (through translate_ranks to WORLD), size and rank. */
static void expect(MPI_Group g, const struct ref *r, const char *what)
{
    int size, rank, idx[MAXN], w[MAXN];
    CHECK_RC(MPI_Group_size(g, &size));
    CHECK(size == r->n, "%s: size %d, expected %d", what, size, r->n);
    for (int i = 0; i < size; i++)
        idx[i] = i;
    CHECK_RC(MPI_Group_translate_ranks(g, size, idx, world_group, w));
    for (int i = 0; i < size; i++)
        CHECK(w[i] == r->w[i], "%s: member %d is world rank %d, expected %d", what, i, w[i], r->w[i]);
    CHECK_RC(MPI_Group_rank(g, &rank));
    int mine = ref_find(r, me);
    CHECK(rank == (mine >= 0 ? mine : MPI_UNDEFINED), "%s: rank %d, expected %d", what, rank, mine);
}

static void free_group(MPI_Group *g)
{
    CHECK_RC(MPI_Group_free(g));
    CHECK(*g == MPI_GROUP_NULL, "free did not set MPI_GROUP_NULL");
}

static int ref_compare(const struct ref *a, const struct ref *b)
{
    if (a->n != b->n)
        return MPI_UNEQUAL;
    if (memcmp(a->w, b->w, sizeof(int) * (size_t)a->n) == 0)
        return MPI_IDENT;
    for (int i = 0; i < a->n; i++)
        if (ref_find(b, a->w[i]) < 0)
            return MPI_UNEQUAL;
    return MPI_SIMILAR;
}

static void check_set_ops(const struct ref *a, const struct ref *b, MPI_Group ga, MPI_Group gb)
{
    struct ref u = *a, in = { 0, { 0 } }, d = { 0, { 0 } };
    for (int i = 0; i < b->n; i++)
        if (ref_find(a, b->w[i]) < 0)
            u.w[u.n++] = b->w[i];
    for (int i = 0; i < a->n; i++) {
        if (ref_find(b, a->w[i]) >= 0)
            in.w[in.n++] = a->w[i];
        else
            d.w[d.n++] = a->w[i];
    }
    MPI_Group g;
    CHECK_RC(MPI_Group_union(ga, gb, &g));
    expect(g, &u, "union");
    free_group(&g);
    CHECK_RC(MPI_Group_intersection(ga, gb, &g));
    expect(g, &in, "intersection");
    free_group(&g);
    CHECK_RC(MPI_Group_difference(ga, gb, &g));
    expect(g, &d, "difference");
    free_group(&g);

    int res;
    CHECK_RC(MPI_Group_compare(ga, gb, &res));
    CHECK(res == ref_compare(a, b), "compare gave %d, expected %d", res, ref_compare(a, b));

    /* translate a -> b, with MPI_PROC_NULL mixed in */
    int r1[MAXN + 1], r2[MAXN + 1];
    for (int i = 0; i < a->n; i++)
        r1[i] = i;
    r1[a->n] = MPI_PROC_NULL;
    CHECK_RC(MPI_Group_translate_ranks(ga, a->n + 1, r1, gb, r2));
    for (int i = 0; i < a->n; i++) {
        int e = ref_find(b, a->w[i]);
        CHECK(r2[i] == (e >= 0 ? e : MPI_UNDEFINED), "translate %d gave %d, expected %d", i, r2[i], e);
    }
    CHECK(r2[a->n] == MPI_PROC_NULL, "MPI_PROC_NULL translated to %d", r2[a->n]);
}

static void check_incl_excl(const struct ref *a, MPI_Group ga)
{
    /* excl: a random subset of a's ranks */
    int ex[MAXN], nex = 0, mark[MAXN] = { 0 };
    for (int i = 0; i < a->n; i++)
        if (rnd(2)) {
            ex[nex++] = i;
            mark[i] = 1;
        }
    struct ref e = { 0, { 0 } };
    for (int i = 0; i < a->n; i++)
        if (!mark[i])
            e.w[e.n++] = a->w[i];
    MPI_Group g;
    CHECK_RC(MPI_Group_excl(ga, nex, ex, &g));
    expect(g, &e, "excl");
    free_group(&g);

    /* incl of a reversed a: SIMILAR (or IDENT when n <= 1) */
    struct ref rev = { a->n, { 0 } };
    int idx[MAXN];
    for (int i = 0; i < a->n; i++) {
        idx[i] = a->n - 1 - i;
        rev.w[i] = a->w[a->n - 1 - i];
    }
    CHECK_RC(MPI_Group_incl(ga, a->n, idx, &g));
    expect(g, &rev, "incl reversed");
    int res;
    CHECK_RC(MPI_Group_compare(ga, g, &res));
    CHECK(res == ref_compare(a, &rev), "compare with reversed: %d", res);
    free_group(&g);
}

/* Random (first, last, stride) triples; the reference says whether the
 * library must accept them, and what they give. */
static void check_ranges(const struct ref *a, MPI_Group ga)
{
    int n = 1 + rnd(3), ranges[3][3], mark[MAXN] = { 0 }, valid = 1;
    struct ref inc = { 0, { 0 } }, exc = { 0, { 0 } };
    int size = a->n ? a->n : 1;
    for (int i = 0; i < n; i++) {
        int first = rnd(size), last = rnd(size), stride = rnd(5) - 2;
        if (rnd(8) == 0)
            last = size;   /* out of range now and then */
        ranges[i][0] = first;
        ranges[i][1] = last;
        ranges[i][2] = stride;
        if (a->n == 0 || last >= a->n || stride == 0 || (stride > 0 && first > last) ||
            (stride < 0 && first < last)) {
            valid = 0;
            continue;
        }
        for (int r = first; stride > 0 ? r <= last : r >= last; r += stride) {
            if (mark[r])
                valid = 0;
            mark[r] = 1;
            if (inc.n < MAXN)
                inc.w[inc.n++] = a->w[r];
        }
    }
    for (int i = 0; i < a->n; i++)
        if (!mark[i])
            exc.w[exc.n++] = a->w[i];
    MPI_Group g = MPI_GROUP_NULL;
    int rc = MPI_Group_range_incl(ga, n, ranges, &g);
    if (valid) {
        CHECK(rc == MPI_SUCCESS, "range_incl refused valid ranges (rc %d)", rc);
        expect(g, &inc, "range_incl");
        free_group(&g);
        CHECK_RC(MPI_Group_range_excl(ga, n, ranges, &g));
        expect(g, &exc, "range_excl");
        free_group(&g);
    } else {
        CHECK(rc != MPI_SUCCESS && g == MPI_GROUP_NULL, "range_incl accepted invalid ranges");
        int cls;
        CHECK_RC(MPI_Error_class(rc, &cls));
        CHECK(cls == MPI_ERR_RANK || cls == MPI_ERR_ARG, "range_incl: class %d", cls);
        rc = MPI_Group_range_excl(ga, n, ranges, &g);
        CHECK(rc != MPI_SUCCESS && g == MPI_GROUP_NULL, "range_excl accepted invalid ranges");
    }
}

static void check_predefined(void)
{
    MPI_Group self;
    int size, rank, res;
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    CHECK_RC(MPI_Group_size(world_group, &size));
    CHECK_RC(MPI_Group_rank(world_group, &rank));
    CHECK(size == nprocs && rank == me, "world group size %d rank %d", size, rank);
    CHECK_RC(MPI_Comm_group(MPI_COMM_SELF, &self));
    CHECK_RC(MPI_Group_size(self, &size));
    CHECK_RC(MPI_Group_rank(self, &rank));
    CHECK(size == 1 && rank == 0, "self group size %d rank %d", size, rank);
    int zero = 0, w;
    CHECK_RC(MPI_Group_translate_ranks(self, 1, &zero, world_group, &w));
    CHECK(w == me, "self's rank 0 is world rank %d", w);
    CHECK_RC(MPI_Group_compare(self, world_group, &res));
    CHECK(res == (nprocs == 1 ? MPI_IDENT : MPI_UNEQUAL), "self vs world: %d", res);
    CHECK_RC(MPI_Group_compare(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY, &res));
    CHECK(res == MPI_IDENT, "empty vs empty: %d", res);
    CHECK_RC(MPI_Group_size(MPI_GROUP_EMPTY, &size));
    CHECK_RC(MPI_Group_rank(MPI_GROUP_EMPTY, &rank));
    CHECK(size == 0 && rank == MPI_UNDEFINED, "empty group size %d rank %d", size, rank);
    MPI_Group g;
    CHECK_RC(MPI_Group_intersection(self, MPI_GROUP_EMPTY, &g));
    CHECK(g == MPI_GROUP_EMPTY, "self & empty is not MPI_GROUP_EMPTY");
    CHECK_RC(MPI_Group_free(&g));   /* freeing MPI_GROUP_EMPTY is allowed */
    /* A second MPI_Comm_group reference is independent of the first. */
    MPI_Group again;
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &again));
    CHECK_RC(MPI_Group_compare(again, world_group, &res));
    CHECK(res == MPI_IDENT, "world group twice: %d", res);
    free_group(&again);
    free_group(&self);
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &nprocs));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    CHECK(nprocs <= MAXN, "at most %d ranks", MAXN);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    check_predefined();
    int trials = 400;
    for (int t = 0; t < trials; t++) {
        struct ref a = random_ref(), b = random_ref();
        MPI_Group ga = make(&a), gb = make(&b);
        expect(ga, &a, "incl");
        check_set_ops(&a, &b, ga, gb);
        check_set_ops(&b, &a, gb, ga);
        check_set_ops(&a, &a, ga, ga);
        check_incl_excl(&a, ga);
        check_ranges(&a, ga);
        free_group(&ga);
        free_group(&gb);
    }
    free_group(&world_group);
    CHECK_RC(MPI_Finalize());
    if (me == 0)
        printf("groups: %d trials on %d ranks passed\n", trials, nprocs);
    return 0;
}
