/* MPI_Win_get_name (issue 36, MPICH's rma/winname): MPI 4.1 gives the
 * null handle a name, "MPI_WIN_NULL", as MPI_Comm_get_name does for
 * MPI_COMM_NULL; a live window keeps its own name (empty, then set). */
#include <string.h>

#include "smap_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK_RC(MPI_Win_get_name(MPI_WIN_NULL, name, &len));
    CHECK(strcmp(name, "MPI_WIN_NULL") == 0 && len == 12, "MPI_WIN_NULL is named '%s' (%d)",
          name, len);
    MPI_Win win;
    int x = 0;
    CHECK_RC(MPI_Win_create(&x, sizeof x, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    CHECK_RC(MPI_Win_get_name(win, name, &len));
    CHECK(len == 0 && name[0] == '\0', "a new window is named '%s'", name);
    CHECK_RC(MPI_Win_set_name(win, "my window"));
    CHECK_RC(MPI_Win_get_name(win, name, &len));
    CHECK(strcmp(name, "my window") == 0 && len == 9, "the window is named '%s'", name);
    EXPECT_CLASS(MPI_Win_get_name(win, NULL, &len), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Win_get_name(MPI_WIN_NULL, name, NULL), MPI_ERR_ARG);
    CHECK_RC(MPI_Win_free(&win));
    MPI_Finalize();
    return 0;
}
