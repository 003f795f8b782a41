/* Ports, names and join within one job, and between two jobs.
 *   dynproc                 WORLD cut in two halves: the first half's rank 0
 *                           opens a port and publishes it (MPI_Publish_name,
 *                           smrun's name service); the second half looks it
 *                           up and connects, the first accepts; p2p both ways
 *                           and an allreduce over the intercommunicator;
 *                           then MPI_Comm_join of WORLD ranks 0 and 1 over a
 *                           TCP connection on loopback; errors of the name
 *                           service and of a bad port.
 *   dynproc server FILE     opens a port, writes it to FILE, accepts
 *   dynproc client FILE     reads FILE, connects (two jobs: tests/spawn/two_jobs.sh)
 *   dynproc nsserver NAME   opens a port, publishes it as NAME, accepts
 *   dynproc nsclient NAME   looks NAME up (until it is published), connects
 *                           (two jobs and smrun --name-server: name_server.sh) */
#include <arpa/inet.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

/* Both sides of an intercommunicator: rank r of each side sends r+base to
 * every remote rank and checks what comes back; an allreduce. */
static void exercise(MPI_Comm inter, int side)
{
    int r, ls, rs;
    MPI_Comm_rank(inter, &r);
    MPI_Comm_size(inter, &ls);
    MPI_Comm_remote_size(inter, &rs);
    for (int p = 0; p < rs; p++) {
        int out = side * 1000 + r * 10 + p, in = -1;
        MPI_Sendrecv(&out, 1, MPI_INT, p, 3, &in, 1, MPI_INT, p, 3, inter, MPI_STATUS_IGNORE);
        CHECK(in == (1 - side) * 1000 + p * 10 + r, "side %d rank %d: got %d from %d", side, r,
              in, p);
    }
    /* a large message (rendezvous through the transport) */
    int n = 1 << 18, *big = malloc((size_t)n * sizeof *big);
    if (r == 0) {
        for (int i = 0; i < n; i++)
            big[i] = side ? i : -1;
        if (side)
            MPI_Send(big, n, MPI_INT, 0, 4, inter);
        else {
            MPI_Recv(big, n, MPI_INT, 0, 4, inter, MPI_STATUS_IGNORE);
            for (int i = 0; i < n; i++)
                if (big[i] != i) {
                    CHECK(0, "big message: element %d is %d", i, big[i]);
                    break;
                }
        }
    }
    free(big);
    int one = side + 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter);
    CHECK(sum == rs * (2 - side), "side %d: allreduce gave %d", side, sum);
}

/* Mappings of control regions (ours and our node peers'): with
 * DYNPROC_EXPECT_SHM set, the other job's processes (on this node) are
 * mapped as node peers while connected and unmapped at disconnect
 * (src/spawn/README.md). */
static int ctl_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, "smartmap-ctl") != NULL;
    if (f)
        fclose(f);
    return n;
}

static void check_route(MPI_Comm inter, int before)
{
    int rs, now = ctl_mappings();
    MPI_Comm_remote_size(inter, &rs);
    if (getenv("DYNPROC_EXPECT_SHM"))
        CHECK(now == before + rs, "%d control regions mapped while connected to %d processes, "
              "%d before: the other job is not a node peer", now, rs, before);
}

static int two_jobs(const char *role, const char *file)
{
    int before = ctl_mappings();
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm inter;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int ns = !strncmp(role, "ns", 2);
    if (!strcmp(role, "server") || !strcmp(role, "nsserver")) {
        if (rank == 0 && ns) {
            MPI_Open_port(MPI_INFO_NULL, port);
            CHECK(MPI_Publish_name(file, MPI_INFO_NULL, port) == MPI_SUCCESS, "publish failed");
        } else if (rank == 0) {
            MPI_Open_port(MPI_INFO_NULL, port);
            char tmp[4096];
            snprintf(tmp, sizeof tmp, "%s.tmp", file);
            FILE *f = fopen(tmp, "w");
            fprintf(f, "%s\n", port);
            fclose(f);
            rename(tmp, file);
        }
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        check_route(inter, before);
        exercise(inter, 0);
        if (rank == 0 && ns)
            CHECK(MPI_Unpublish_name(file, MPI_INFO_NULL, port) == MPI_SUCCESS, "unpublish");
        if (rank == 0)
            MPI_Close_port(port);
    } else {
        if (rank == 0 && ns) {
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            int rc = MPI_ERR_NAME;
            for (int i = 0; i < 3000 && rc != MPI_SUCCESS; i++)
                if ((rc = MPI_Lookup_name(file, MPI_INFO_NULL, port)) != MPI_SUCCESS)
                    usleep(10000);
            CHECK(rc == MPI_SUCCESS, "%s was never published", file);
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        } else if (rank == 0) {
            FILE *f = NULL;
            for (int i = 0; i < 3000 && !(f = fopen(file, "r")); i++)
                usleep(10000);
            CHECK(f && fgets(port, sizeof port, f), "no port in %s", file);
            if (f)
                fclose(f);
            port[strcspn(port, "\n")] = '\0';
        }
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        check_route(inter, before);
        exercise(inter, 1);
    }
    MPI_Comm_disconnect(&inter);
    int after = ctl_mappings();
    CHECK(after == before, "%d control regions mapped after disconnect, %d before", after, before);
    return 0;
}

static void halves(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int side = rank >= size / 2;
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, side, rank, &half);
    char port[MPI_MAX_PORT_NAME] = "";
    if (rank == 0) {
        MPI_Open_port(MPI_INFO_NULL, port);
        CHECK(MPI_Publish_name("dynproc-test", MPI_INFO_NULL, port) == MPI_SUCCESS,
              "publish failed");
        /* a second publish of the same name is refused */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = MPI_Publish_name("dynproc-test", MPI_INFO_NULL, port), cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_SERVICE, "second publish: class %d", cls);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (side == 1) {
        int hr;
        MPI_Comm_rank(half, &hr);
        if (hr == 0) {
            CHECK(MPI_Lookup_name("dynproc-test", MPI_INFO_NULL, port) == MPI_SUCCESS,
                  "lookup failed");
        }
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter);
    } else {
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter);
    }
    int flag;
    MPI_Comm_test_inter(inter, &flag);
    CHECK(flag, "not an intercommunicator");
    exercise(inter, side);
    MPI_Comm_disconnect(&inter);
    MPI_Comm_free(&half);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Unpublish_name("dynproc-test", MPI_INFO_NULL, port);
        MPI_Close_port(port);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = MPI_Lookup_name("dynproc-test", MPI_INFO_NULL, port), cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_NAME, "lookup after unpublish: class %d", cls);
        MPI_Comm c2;
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        rc = MPI_Comm_connect("smap-port:127.0.0.1:1:0000000000000000", MPI_INFO_NULL, 0,
                              MPI_COMM_SELF, &c2);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_PORT, "connect to nobody: class %d", cls);
        rc = MPI_Close_port("not-a-port");
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_PORT, "close of a bad port: class %d", cls);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
}

/* MPI_Comm_join of WORLD ranks 0 and 1 over a loopback TCP connection. */
static void join(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank > 1)
        return;
    int fd = -1, port = 0;
    if (rank == 0) {
        int l = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t al = sizeof a;
        bind(l, (struct sockaddr *)&a, sizeof a);
        listen(l, 1);
        getsockname(l, (struct sockaddr *)&a, &al);
        port = ntohs(a.sin_port);
        MPI_Send(&port, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
        fd = accept(l, NULL, NULL);
        close(l);
    } else {
        MPI_Recv(&port, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        CHECK(connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "join: connect failed");
    }
    MPI_Comm inter;
    CHECK(MPI_Comm_join(fd, &inter) == MPI_SUCCESS, "join failed");
    int rs;
    MPI_Comm_remote_size(inter, &rs);
    CHECK(rs == 1, "join: remote size %d", rs);
    exercise(inter, rank);
    MPI_Comm_disconnect(&inter);
    close(fd);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc == 3) {
        two_jobs(argv[1], argv[2]);
    } else {
        int size;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        if (size >= 2) {
            halves();
            join();
        }
    }
    MPI_Finalize();
    return fails ? 1 : 0;
}
