/* Where spawned children go, and the job's name table, across hosts
 * (tests/netns/spawn_hosts.sh; DESIGN D17).
 *   spawn_hosts N [KEY=VALUE]
 * The parents (WORLD) spawn N copies of this program (info KEY=VALUE if
 * given: host, hostfile; a relative hostfile is read in the parents'
 * directory, SPAWN_HOSTS_CHDIR if set) from root 0; every child sends its host name to
 * parent 0, which prints "child C host NAME", and "universe U" (the
 * parents' MPI_UNIVERSE_SIZE).  With more than one parent, rank 0 publishes
 * a port under a name and the last rank (another host in the test) looks
 * it up: it must find rank 0's port; after rank 0 unpublishes it, the
 * lookup fails with MPI_ERR_NAME. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fails;
#define CHECK(c, ...)                                                   \
    do {                                                                \
        if (!(c)) {                                                     \
            fprintf(stderr, __VA_ARGS__);                               \
            fputc('\n', stderr);                                        \
            fails++;                                                    \
        }                                                               \
    } while (0)

static void names(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2)
        return;
    char port[MPI_MAX_PORT_NAME] = "", got[MPI_MAX_PORT_NAME] = "";
    if (rank == 0) {
        MPI_Open_port(MPI_INFO_NULL, port);
        CHECK(MPI_Publish_name("spawn-hosts", MPI_INFO_NULL, port) == MPI_SUCCESS, "publish");
        MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, size - 1, 1, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) {
        MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(MPI_Lookup_name("spawn-hosts", MPI_INFO_NULL, got) == MPI_SUCCESS,
              "lookup on the last rank failed");
        CHECK(!strcmp(got, port), "lookup gave '%s', not rank 0's '%s'", got, port);
        printf("lookup ok\n");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK(MPI_Unpublish_name("spawn-hosts", MPI_INFO_NULL, port) == MPI_SUCCESS, "unpublish");
        MPI_Close_port(port);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = MPI_Lookup_name("spawn-hosts", MPI_INFO_NULL, got), cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_NAME, "lookup after unpublish: class %d", cls);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    char host[MPI_MAX_PROCESSOR_NAME] = "";
    gethostname(host, sizeof host - 1);
    if (parent != MPI_COMM_NULL) {
        MPI_Send(host, (int)sizeof host, MPI_CHAR, 0, 2, parent);
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
    int rank, n = argc > 1 ? atoi(argv[1]) : 2;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Info info = MPI_INFO_NULL;
    if (argc > 2) {
        char key[64];
        const char *eq = strchr(argv[2], '=');
        snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - argv[2]) : 0, argv[2]);
        MPI_Info_create(&info);
        MPI_Info_set(info, key, eq ? eq + 1 : "");
    }
    /* SPAWN_HOSTS_CHDIR: the parents run elsewhere than the launcher, so
     * a relative hostfile names a file in their directory */
    const char *dir = getenv("SPAWN_HOSTS_CHDIR");
    CHECK(!dir || chdir(dir) == 0, "chdir %s", dir);
    int *u, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &u, &flag);
    if (rank == 0)
        printf("universe %d\n", flag ? *u : -1);
    char *args[] = { "child", NULL };
    MPI_Comm inter;
    int rc = MPI_Comm_spawn(argv[0], args, n, info, 0, MPI_COMM_WORLD, &inter,
                            MPI_ERRCODES_IGNORE);
    CHECK(rc == MPI_SUCCESS, "spawn returned %d", rc);
    if (rank == 0)
        for (int c = 0; c < n; c++) {
            char h[MPI_MAX_PROCESSOR_NAME];
            MPI_Recv(h, (int)sizeof h, MPI_CHAR, c, 2, inter, MPI_STATUS_IGNORE);
            printf("child %d host %s\n", c, h);
        }
    MPI_Comm_disconnect(&inter);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    names();
    MPI_Finalize();
    return fails ? 1 : 0;
}
