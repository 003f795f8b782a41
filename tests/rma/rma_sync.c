/* Put and get in every window flavour and synchronisation mode, with
 * contiguous and derived datatypes on both sides, at any rank count.
 *
 * Each round, rank r writes a pattern into rank (r+1)%n (contiguous, then
 * through a vector target type and a vector origin type) and reads rank
 * (r+2)%n's window back; after the epoch every rank checks its own
 * window and what it read.  SMAP_COPY=bounce leaves windows over the
 * program's own memory unreachable for peers (no CMA, no load/store): the
 * targets then serve the operations themselves (src/rma/am.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

#define N 64

enum { F_CREATE_HEAP, F_CREATE_STACK, F_ALLOCATE, F_SHARED, F_DYNAMIC, F_N };
enum { S_FENCE, S_PSCW, S_LOCK, S_LOCK_SHARED, S_LOCK_ALL, S_N };
static const char *fname[] = { "create-heap", "create-stack", "allocate", "shared", "dynamic" };
static const char *sname[] = { "fence", "pscw", "lock", "lock-shared", "lock_all" };

static int me, np;
static int spans_nodes;   /* the job runs on several nodes */
static MPI_Group world_group;

static int val(int rank, int round, int i)
{
    return rank * 100000 + round * 1000 + i;
}

/* Opens an access/exposure epoch to everybody. */
static void open_epoch(int s, MPI_Win win, int target)
{
    switch (s) {
    case S_FENCE: CHECK_RC(MPI_Win_fence(0, win)); break;
    case S_PSCW:
        CHECK_RC(MPI_Win_post(world_group, 0, win));
        CHECK_RC(MPI_Win_start(world_group, 0, win));
        break;
    case S_LOCK: CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win)); break;
    case S_LOCK_SHARED: CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win)); break;
    case S_LOCK_ALL: CHECK_RC(MPI_Win_lock_all(0, win)); break;
    }
}

static void close_epoch(int s, MPI_Win win, int target)
{
    switch (s) {
    case S_FENCE: CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win)); break;
    case S_PSCW:
        CHECK_RC(MPI_Win_complete(win));
        CHECK_RC(MPI_Win_wait(win));
        break;
    case S_LOCK:
    case S_LOCK_SHARED:
        CHECK_RC(MPI_Win_flush(target, win));
        CHECK_RC(MPI_Win_unlock(target, win));
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_RC(MPI_Win_sync(win));
        break;
    case S_LOCK_ALL:
        CHECK_RC(MPI_Win_flush_all(win));
        CHECK_RC(MPI_Win_unlock_all(win));
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_RC(MPI_Win_sync(win));
        break;
    }
}

/* One epoch of each pattern; mem is this rank's window memory. */
static void rounds(int f, int s, MPI_Win win, int *mem, const MPI_Aint *tbase)
{
    int to = (me + 1) % np, from = (me + np - 1) % np, rd = (me + 2) % np;
    int src[N], got[N], strided[2 * N];
    MPI_Datatype vec4, vec2;
    MPI_Type_vector(N / 4, 1, 4, MPI_INT, &vec4);   /* every 4th int */
    MPI_Type_vector(N / 4, 1, 2, MPI_INT, &vec2);   /* every 2nd int */
    MPI_Type_commit(&vec4);
    MPI_Type_commit(&vec2);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++) {
            mem[i] = -1;
            src[i] = val(me, round, i);
            got[i] = -7;
        }
        for (int i = 0; i < 2 * N; i++)
            strided[i] = val(me, round, i);
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        MPI_Aint d0 = tbase[to];
        open_epoch(s, win, to);
        if (round == 0) {
            CHECK_RC(MPI_Put(src, N, MPI_INT, to, d0, N, MPI_INT, win));
        } else if (round == 1) {
            /* contiguous origin, strided target */
            CHECK_RC(MPI_Put(src, N / 4, MPI_INT, to, d0, 1, vec4, win));
        } else {
            /* strided origin, contiguous target, large-count binding */
            MPI_Aint two = f == F_DYNAMIC ? 2 * (MPI_Aint)sizeof(int) : 2;
            CHECK_RC(MPI_Put_c(strided, 1, vec2, to, d0 + two, N / 4, MPI_INT, win));
        }
        close_epoch(s, win, to);
        for (int i = 0; i < N; i++) {
            int want = -1;
            if (round == 0)
                want = val(from, 0, i);
            else if (round == 1 && i % 4 == 0)
                want = val(from, 1, i / 4);
            else if (round == 2 && i >= 2 && i < 2 + N / 4)
                want = val(from, 2, 2 * (i - 2));
            CHECK(mem[i] == want, "%s/%s round %d: mem[%d] = %d, want %d", fname[f], sname[s],
                  round, i, mem[i], want);
        }
        /* read back the next-but-one rank's window, also strided */
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        open_epoch(s, win, rd);
        if (round == 1)
            CHECK_RC(MPI_Get(got, 1, vec4, rd, tbase[rd], N / 4, MPI_INT, win));
        else
            CHECK_RC(MPI_Get_c(got, N, MPI_INT, rd, tbase[rd], N, MPI_INT, win));
        close_epoch(s, win, rd);
        int rdfrom = (rd + np - 1) % np;
        for (int i = 0; i < N; i++) {
            int want;
            if (round == 1) {
                int j = i / 4;   /* rd's window element j lands at got[4j] */
                want = i % 4 ? -7 : j % 4 == 0 ? val(rdfrom, 1, j / 4) : -1;
            }
            else if (round == 0)
                want = val(rdfrom, 0, i);
            else
                want = i >= 2 && i < 2 + N / 4 ? val(rdfrom, 2, 2 * (i - 2)) : -1;
            CHECK(got[i] == want, "%s/%s round %d: got[%d] = %d, want %d", fname[f], sname[s],
                  round, i, got[i], want);
        }
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    }
    MPI_Type_free(&vec4);
    MPI_Type_free(&vec2);
}

/* Request-based put/get in a lock_all epoch. */
static void requests(MPI_Win win, int *mem, const MPI_Aint *tbase)
{
    int to = (me + 1) % np, from = (me + np - 1) % np;
    int src[N], got[N];
    for (int i = 0; i < N; i++)
        src[i] = val(me, 9, i), mem[i] = 0, got[i] = 0;
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_lock_all(0, win));
    MPI_Request r[2];
    CHECK_RC(MPI_Rput(src, N, MPI_INT, to, tbase[to], N, MPI_INT, win, &r[0]));
    CHECK_RC(MPI_Waitall(1, r, MPI_STATUSES_IGNORE));
    CHECK_RC(MPI_Win_flush(to, win));
    CHECK_RC(MPI_Rget(got, N, MPI_INT, to, tbase[to], N, MPI_INT, win, &r[1]));
    int flag = 0;
    while (!flag)
        CHECK_RC(MPI_Test(&r[1], &flag, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Win_unlock_all(win));
    for (int i = 0; i < N; i++)
        CHECK(got[i] == val(me, 9, i), "Rget got[%d] = %d", i, got[i]);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        CHECK(mem[i] == val(from, 9, i), "Rput mem[%d] = %d", i, mem[i]);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
}

static void attrs(MPI_Win win, int f, void *base, MPI_Aint size)
{
    void *v;
    int flag;
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_BASE, &v, &flag));
    CHECK(flag && v == base, "MPI_WIN_BASE %p, want %p", v, base);
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_SIZE, &v, &flag));
    CHECK(flag && *(MPI_Aint *)v == size, "MPI_WIN_SIZE %ld", (long)*(MPI_Aint *)v);
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &v, &flag));
    CHECK(flag && *(int *)v == (f == F_DYNAMIC ? 1 : (int)sizeof(int)), "disp unit %d",
          *(int *)v);
    static const int flav[] = { MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_CREATE,
                                MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_SHARED,
                                MPI_WIN_FLAVOR_DYNAMIC };
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &v, &flag));
    CHECK(flag && *(int *)v == flav[f], "flavor %d", *(int *)v);
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_MODEL, &v, &flag));
    CHECK(flag && *(int *)v == MPI_WIN_UNIFIED, "model %d", *(int *)v);
    MPI_Group g;
    int res;
    CHECK_RC(MPI_Win_get_group(win, &g));
    CHECK_RC(MPI_Group_compare(g, world_group, &res));
    CHECK(res == MPI_IDENT, "window group differs from the communicator's");
    MPI_Group_free(&g);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK_RC(MPI_Win_get_name(win, name, &len));
    CHECK(len == 0, "fresh window named '%s'", name);
    CHECK_RC(MPI_Win_set_name(win, fname[f]));
    CHECK_RC(MPI_Win_get_name(win, name, &len));
    CHECK(!strcmp(name, fname[f]) && len == (int)strlen(fname[f]), "name '%s'", name);
}

static void one_flavor(int f)
{
    int stackmem[N];
    int *heap = malloc(N * sizeof(int)), *mem = NULL;
    MPI_Win win = MPI_WIN_NULL;
    MPI_Aint *tbase = calloc((size_t)np, sizeof *tbase);
    int rc = MPI_SUCCESS;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "same_size", "true");
    switch (f) {
    case F_CREATE_HEAP:
    case F_CREATE_STACK:
        mem = f == F_CREATE_HEAP ? heap : stackmem;
        rc = MPI_Win_create(mem, N * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &win);
        break;
    case F_ALLOCATE:
        rc = MPI_Win_allocate(N * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &mem, &win);
        break;
    case F_SHARED:
        rc = MPI_Win_allocate_shared(N * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &mem,
                                     &win);
        break;
    case F_DYNAMIC:
        mem = heap;
        CHECK_RC(MPI_Win_create_dynamic(info, MPI_COMM_WORLD, &win));
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        rc = MPI_Win_attach(win, mem, N * sizeof(int));
        break;
    }
    MPI_Info_free(&info);
    if (f == F_SHARED && spans_nodes) {
        /* across nodes: the standard's error, and no window */
        int c = rc;
        MPI_Error_class(rc, &c);
        CHECK(c == MPI_ERR_RMA_SHARED && win == MPI_WIN_NULL,
              "a shared window across nodes gave class %d", c);
        free(heap);
        free(tbase);
        return;
    }
    CHECK(rc == MPI_SUCCESS, "creating the %s window failed: %d", fname[f], rc);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (f == F_DYNAMIC) {
        MPI_Aint a;
        MPI_Get_address(mem, &a);
        CHECK_RC(MPI_Allgather(&a, 1, MPI_AINT, tbase, 1, MPI_AINT, MPI_COMM_WORLD));
    }
    attrs(win, f, f == F_DYNAMIC ? MPI_BOTTOM : mem, f == F_DYNAMIC ? 0 : N * sizeof(int));
    for (int s = 0; s < S_N; s++)
        rounds(f, s, win, mem, tbase);
    requests(win, mem, tbase);
    if (f == F_DYNAMIC)
        CHECK_RC(MPI_Win_detach(win, mem));
    CHECK_RC(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "MPI_Win_free left the handle");
    free(heap);
    free(tbase);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm node;
    int nn;
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Comm_size(node, &nn);
    MPI_Comm_free(&node);
    spans_nodes = nn < np;
    for (int f = 0; f < F_N; f++)
        one_flavor(f);
    /* many windows created and freed: control blocks and memory recycle */
    for (int i = 0; i < 50; i++) {
        int *m;
        MPI_Win w;
        CHECK_RC(MPI_Win_allocate(4096 * (i % 3 + 1), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &m, &w));
        CHECK_RC(MPI_Win_fence(0, w));
        int one = i;
        CHECK_RC(MPI_Put(&one, 1, MPI_INT, (me + 1) % np, 0, 1, MPI_INT, w));
        CHECK_RC(MPI_Win_fence(0, w));
        CHECK(m[0] == i, "recycled window %d holds %d", i, m[0]);
        CHECK_RC(MPI_Win_free(&w));
    }
    MPI_Group_free(&world_group);
    MPI_Finalize();
    return 0;
}
