/* MPI 4.1 details (issue 15): the names of null handles
 * (MPI_Comm_get_name(MPI_COMM_NULL) is "MPI_COMM_NULL", likewise
 * MPI_DATATYPE_NULL), and MPI_Comm_split_type with
 * MPI_COMM_TYPE_RESOURCE_GUIDED: a known mpi_hw_resource_type gives the
 * node, an invalid one (or none) MPI_COMM_NULL. */
#include <string.h>

#include "smap_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, len = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    char name[MPI_MAX_OBJECT_NAME];
    CHECK_RC(MPI_Comm_get_name(MPI_COMM_NULL, name, &len));
    CHECK(!strcmp(name, "MPI_COMM_NULL") && len == 13, "comm null name '%s' %d", name, len);
    len = -1;
    CHECK_RC(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len));
    CHECK(!strcmp(name, "MPI_DATATYPE_NULL") && len == 17, "type null name '%s' %d", name, len);

    MPI_Info info;
    MPI_Comm c;
    CHECK_RC(MPI_Info_create(&info));
    CHECK_RC(MPI_Info_set(info, "mpi_hw_resource_type", "no_such_resource"));
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, rank, info, &c));
    CHECK(c == MPI_COMM_NULL, "RESOURCE_GUIDED with an invalid resource type gave a comm");
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, rank,
                                 MPI_INFO_NULL, &c));
    CHECK(c == MPI_COMM_NULL, "RESOURCE_GUIDED without a resource type gave a comm");
    CHECK_RC(MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory"));
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, rank, info, &c));
    CHECK(c != MPI_COMM_NULL, "RESOURCE_GUIDED mpi_shared_memory gave MPI_COMM_NULL");
    int n;
    CHECK_RC(MPI_Comm_size(c, &n));
    CHECK(n == size, "node comm of %d", n);
    CHECK_RC(MPI_Comm_free(&c));
    CHECK_RC(MPI_Info_free(&info));
    if (rank == 0)
        printf("comm_null_guided: ok\n");
    MPI_Finalize();
    return 0;
}
