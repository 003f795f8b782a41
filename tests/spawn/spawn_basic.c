/* MPI_Comm_spawn through smrun: the parents (every rank of WORLD) spawn
 * NCHILD (argv[1], default 3) copies of this program with argv; parent <-> child point-to-point
 * both ways, collectives over the intercommunicator (bcast, allreduce,
 * barrier), MPI_Intercomm_merge and an allreduce on the merged
 * communicator, MPI_UNIVERSE_SIZE, errcodes, disconnect.  With
 * SPAWN_TEST_DIE set, child 1 kills itself (spawn_kill.sh).  With argv[1]
 * "missing", the parents spawn a program that does not exist and each
 * checks that the spawn failed with MPI_ERR_SPAWN (error code, every
 * errcode, no intercommunicator); argv[2], if given, is an info host
 * instead (a host the launcher cannot place children on). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int NCHILD = 3;   /* argv[1] of the parents: how many children */

static int fails;
#define CHECK(c, ...)                                                   \
    do {                                                                \
        if (!(c)) {                                                     \
            fprintf(stderr, __VA_ARGS__);                               \
            fputc('\n', stderr);                                        \
            fails++;                                                    \
        }                                                               \
    } while (0)

static void common(MPI_Comm inter, int is_child)
{
    int rank, lsize, rsize;
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    /* p2p: parent 0 <-> every child */
    if (!is_child && rank == 0) {
        for (int c = 0; c < rsize; c++) {
            int v = 100 + c, back = -1;
            MPI_Send(&v, 1, MPI_INT, c, 7, inter);
            MPI_Recv(&back, 1, MPI_INT, c, 8, inter, MPI_STATUS_IGNORE);
            CHECK(back == 2 * v, "parent: child %d answered %d, not %d", c, back, 2 * v);
        }
    } else if (is_child) {
        int v = -1;
        MPI_Status st;
        MPI_Recv(&v, 1, MPI_INT, 0, 7, inter, &st);
        CHECK(v == 100 + rank && st.MPI_SOURCE == 0, "child %d: got %d from %d", rank, v,
              st.MPI_SOURCE);
        v *= 2;
        MPI_Send(&v, 1, MPI_INT, 0, 8, inter);
    }
    /* bcast from parent 0 to the children */
    int b = is_child ? 0 : 4242;
    if (is_child)
        MPI_Bcast(&b, 1, MPI_INT, 0, inter);
    else
        MPI_Bcast(&b, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    CHECK(b == 4242, "bcast gave %d", b);
    /* allreduce: each side gets the other side's sum */
    int mine = is_child ? 1000 + rank : rank + 1, sum = -1;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter);
    int want = 0;
    for (int i = 0; i < rsize; i++)
        want += is_child ? i + 1 : 1000 + i;
    CHECK(sum == want, "intercomm allreduce gave %d, not %d", sum, want);
    MPI_Barrier(inter);
    /* merge: parents first */
    MPI_Comm merged;
    MPI_Intercomm_merge(inter, is_child, &merged);
    int mr, ms, one = 1, tot = 0;
    MPI_Comm_rank(merged, &mr);
    MPI_Comm_size(merged, &ms);
    CHECK(ms == lsize + rsize, "merged size %d", ms);
    CHECK(is_child ? mr >= rsize : mr < lsize, "merged rank %d on the wrong side", mr);
    MPI_Allreduce(&one, &tot, 1, MPI_INT, MPI_SUM, merged);
    CHECK(tot == ms, "merged allreduce gave %d", tot);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
}

/* A spawn that cannot start: an MPI error, not success, not a hang. */
static void spawn_missing(int argc, char **argv)
{
    int rank, cls = -1, err[2] = { -1, -1 };
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Info info = MPI_INFO_NULL;
    const char *prog = "/nonexistent/smap-no-such-program";
    if (argc > 2) {   /* a program that exists, on a host that does not */
        prog = argv[0];
        MPI_Info_create(&info);
        MPI_Info_set(info, "host", argv[2]);
    }
    MPI_Comm inter = MPI_COMM_WORLD;
    int rc = MPI_Comm_spawn(prog, MPI_ARGV_NULL, 2, info, 0, MPI_COMM_WORLD, &inter, err);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_SPAWN, "rank %d: spawn of %s gave %d (class %d)",
          rank, prog, rc, cls);
    CHECK(inter == MPI_COMM_NULL, "rank %d: an intercommunicator after a failed spawn", rank);
    for (int i = 0; i < 2; i++) {
        MPI_Error_class(err[i], &cls);
        CHECK(cls == MPI_ERR_SPAWN, "rank %d: errcode %d is %d", rank, i, err[i]);
    }
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    printf("rank %d: spawn failed as it should: %s\n", rank, msg);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc > 1 && !strcmp(argv[1], "missing")) {
        spawn_missing(argc, argv);
        MPI_Finalize();
        return fails ? 1 : 0;
    }
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent == MPI_COMM_NULL) {
        if (argc > 1)
            NCHILD = atoi(argv[1]);
        int *u, flag, *err = malloc((size_t)NCHILD * sizeof *err);
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &u, &flag);
        CHECK(flag && *u >= 1, "no MPI_UNIVERSE_SIZE");
        char *args[] = { "child", "two words", NULL };
        MPI_Comm inter;
        int rc = MPI_Comm_spawn(argv[0], args, NCHILD, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                                err);
        CHECK(rc == MPI_SUCCESS, "spawn returned %d", rc);
        for (int i = 0; i < NCHILD; i++)
            CHECK(err[i] == MPI_SUCCESS, "errcode %d is %d", i, err[i]);
        int rs;
        MPI_Comm_remote_size(inter, &rs);
        CHECK(rs == NCHILD, "remote size %d", rs);
        common(inter, 0);
        free(err);
    } else {
        CHECK(argc == 3 && !strcmp(argv[1], "child") && !strcmp(argv[2], "two words"),
              "child argv wrong (argc %d)", argc);
        int n, me;
        MPI_Comm_size(MPI_COMM_WORLD, &n);
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
        if (getenv("SPAWN_TEST_DIE") && me == 1)
            raise(SIGKILL);   /* spawn_kill.sh: the whole job must stop */
        CHECK(n >= 1 && n <= 5, "children's WORLD has %d", n);
        common(parent, 1);
        MPI_Comm p2;
        MPI_Comm_get_parent(&p2);
        CHECK(p2 == MPI_COMM_NULL, "parent still set after disconnect");
    }
    MPI_Finalize();
    if (fails)
        return 1;
    return 0;
}
