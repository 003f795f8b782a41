/* smap_copy_mpix: MPIX_Comm_remote_ptr on MPI_COMM_WORLD and MPI_COMM_SELF,
 * its argument checks under MPI_ERRORS_RETURN, and (argv[1] == "offnode",
 * each rank alone on an emulated node) NULL views for ranks of other nodes. */
#include <stdio.h>
#include <sys/mman.h>

#include "copy_util.h"

static long global_value[64];

static int err_class(int code)
{
    int cls = -1;
    MPI_Error_class(code, &cls);
    return cls;
}

int main(int argc, char **argv)
{
    int offnode = argc > 1 && strcmp(argv[1], "offnode") == 0;
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs 2 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    for (int i = 0; i < 64; i++)
        global_value[i] = rank * 1000 + i;
    long *mapped = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(mapped != MAP_FAILED, "mmap");
    board.addr[0] = global_value;
    board.addr[1] = mapped;
    board_publish();
    MPI_Barrier(MPI_COMM_WORLD);

    void *view = (void *)1;
    /* Self, through both communicators: the pointer itself. */
    CHECK_RC(MPIX_Comm_remote_ptr(MPI_COMM_WORLD, rank, global_value, sizeof global_value, &view));
    CHECK(view == global_value, "WORLD self view %p, want %p", view, (void *)global_value);
    CHECK_RC(MPIX_Comm_remote_ptr(MPI_COMM_SELF, 0, mapped, 4096, &view));
    CHECK(view == mapped, "SELF view %p, want %p", view, (void *)mapped);
    CHECK_RC(MPIX_Comm_remote_ptr(MPI_COMM_WORLD, MPI_PROC_NULL, global_value, 8, &view));
    CHECK(view == NULL, "MPI_PROC_NULL gives a view");

    int peer = (rank + 1) % size;
    CHECK_RC(MPIX_Comm_remote_ptr(MPI_COMM_WORLD, peer, global_value, sizeof global_value, &view));
    if (offnode) {
        CHECK(smap_local_size() == 1, "offnode run: local size %d", smap_local_size());
        CHECK(view == NULL, "rank %d is on another node, yet the view is %p", peer, view);
    } else {
        /* Same node, non-PIE: the peer's global_value is at our address. */
        struct board pb;
        board_read(peer, &pb);
        CHECK(pb.addr[0] == (void *)global_value, "non-PIE globals differ");
        int peer_lr = pb.local_rank;
        CHECK(view == smap_remote(peer_lr, global_value, sizeof global_value),
              "MPIX view %p differs from smap_remote", view);
        CHECK(view != NULL, "the peer's globals are not reachable");
        const long *pv = view;
        for (int i = 0; i < 64; i++)
            CHECK(pv[i] == peer * 1000 + i, "peer value %d is %ld", i, pv[i]);
        /* The peer's private mapping is not exposed. */
        CHECK_RC(MPIX_Comm_remote_ptr(MPI_COMM_WORLD, peer, pb.addr[1], 8, &view));
        CHECK(view == NULL, "an mmap'd buffer of the peer gives a view");
        /* A range running past the end of the region. */
        CHECK_RC(MPIX_Comm_remote_ptr(MPI_COMM_WORLD, peer, global_value, (MPI_Aint)1 << 40, &view));
        CHECK(view == NULL, "a 1 TiB range gives a view");
    }

    /* Errors, returned through the communicator's handler. */
    int rc = MPIX_Comm_remote_ptr(MPI_COMM_WORLD, size, global_value, 8, &view);
    CHECK(err_class(rc) == MPI_ERR_RANK, "rank == size gave class %d", err_class(rc));
    rc = MPIX_Comm_remote_ptr(MPI_COMM_WORLD, -5, global_value, 8, &view);
    CHECK(err_class(rc) == MPI_ERR_RANK, "rank -5 gave class %d", err_class(rc));
    rc = MPIX_Comm_remote_ptr(MPI_COMM_SELF, 1, global_value, 8, &view);
    CHECK(err_class(rc) == MPI_ERR_RANK, "SELF rank 1 gave class %d", err_class(rc));
    rc = MPIX_Comm_remote_ptr(MPI_COMM_WORLD, peer, global_value, 8, NULL);
    CHECK(err_class(rc) == MPI_ERR_ARG, "NULL local_view gave class %d", err_class(rc));
    rc = MPIX_Comm_remote_ptr(MPI_COMM_WORLD, peer, global_value, -1, &view);
    CHECK(err_class(rc) == MPI_ERR_ARG, "len -1 gave class %d", err_class(rc));
    rc = MPIX_Comm_remote_ptr(MPI_COMM_NULL, 0, global_value, 8, &view);
    CHECK(err_class(rc) == MPI_ERR_COMM, "MPI_COMM_NULL gave class %d", err_class(rc));

    MPI_Barrier(MPI_COMM_WORLD);
    munmap(mapped, 4096);
    MPI_Finalize();
    if (rank == 0)
        printf("PASS smap_copy_mpix%s\n", offnode ? " offnode" : "");
    return 0;
}
