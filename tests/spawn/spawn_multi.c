/* MPI_Comm_spawn_multiple with two commands (this program twice, with
 * different argv, maxprocs 2 and 1, info wdir and path), MPI_APPNUM in the
 * children, and a nested spawn: the children spawn one grandchild, which
 * talks to them; each level reports to the one above. */
#include <limits.h>
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

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parent == MPI_COMM_NULL) {
        /* the parents */
        char self[PATH_MAX], dir[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        self[n > 0 ? n : 0] = '\0';
        snprintf(dir, sizeof dir, "%s", self);
        *strrchr(dir, '/') = '\0';
        char *cmds[2] = { self, strrchr(self, '/') + 1 };
        char *a0[] = { "child", "A", NULL }, *a1[] = { "child", "B", NULL };
        char **argvs[2] = { a0, a1 };
        int maxprocs[2] = { 2, 1 }, err[3] = { -1, -1, -1 };
        MPI_Info info[2];
        MPI_Info_create(&info[0]);
        MPI_Info_set(info[0], "wdir", "/");
        MPI_Info_set(info[0], "arch", "ignored");
        MPI_Info_create(&info[1]);
        MPI_Info_set(info[1], "path", dir);
        MPI_Info_set(info[1], "soft", "1:1");
        MPI_Comm inter;
        MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, info, 0, MPI_COMM_WORLD, &inter, err);
        MPI_Info_free(&info[0]);
        MPI_Info_free(&info[1]);
        for (int i = 0; i < 3; i++)
            CHECK(err[i] == MPI_SUCCESS, "errcode %d: %d", i, err[i]);
        int rs;
        MPI_Comm_remote_size(inter, &rs);
        CHECK(rs == 3, "remote size %d", rs);
        if (rank == 0)
            for (int c = 0; c < rs; c++) {
                int ok = 0;
                MPI_Recv(&ok, 1, MPI_INT, c, 1, inter, MPI_STATUS_IGNORE);
                CHECK(ok == 1, "child %d reported %d", c, ok);
            }
        MPI_Comm_disconnect(&inter);
    } else if (argc == 3) {
        /* the children: argv, appnum, wdir; then a grandchild */
        int *app, flag;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &app, &flag);
        int ok = flag && size == 3 && !strcmp(argv[1], "child");
        char cwd[PATH_MAX];
        if (flag && *app == 0)
            ok = ok && !strcmp(argv[2], "A") && getcwd(cwd, sizeof cwd) && !strcmp(cwd, "/");
        else
            ok = ok && flag && *app == 1 && !strcmp(argv[2], "B");
        CHECK(ok, "child %d: appnum %d argv %s", rank, flag ? *app : -1, argv[2]);
        char *ga[] = { "grandchild", "x", "y", NULL };
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        self[n > 0 ? n : 0] = '\0';
        MPI_Comm g;
        MPI_Comm_spawn(self, ga, 1, MPI_INFO_NULL, 1, MPI_COMM_WORLD, &g, MPI_ERRCODES_IGNORE);
        int v = -1;
        if (rank == 1)
            MPI_Recv(&v, 1, MPI_INT, 0, 2, g, MPI_STATUS_IGNORE);
        MPI_Bcast(&v, 1, MPI_INT, 1, MPI_COMM_WORLD);
        CHECK(v == 77, "grandchild said %d", v);
        MPI_Comm_disconnect(&g);
        ok = ok && v == 77;
        MPI_Send(&ok, 1, MPI_INT, 0, 1, parent);
        MPI_Comm_disconnect(&parent);
    } else {
        /* the grandchild */
        int rs;
        MPI_Comm_remote_size(parent, &rs);
        CHECK(argc == 4 && rs == 3, "grandchild: argc %d, %d parents", argc, rs);
        int v = 77;
        MPI_Send(&v, 1, MPI_INT, 1, 2, parent);   /* to the children's spawn root */
        MPI_Comm_disconnect(&parent);
    }
    MPI_Finalize();
    return fails ? 1 : 0;
}
