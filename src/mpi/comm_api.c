/* The queries on communicators (MPI_Comm_compare, names), called by their
 * generated stubs in src/binding/gen/comm.c once the handles and pointers
 * are checked. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "base/why.h"
#include "mpi/comm.h"
#include "mpi/group.h"
#include "mpi/intercomm.h"

void smap_comm_compare(const struct MPI_ABI_Comm *a, const struct MPI_ABI_Comm *b, int *result)
{
    if (a == b) {
        *result = MPI_IDENT;
        return;
    }
    if (smap_comm_is_inter(a) || smap_comm_is_inter(b)) {
        *result = smap_inter_compare(a, b);
        return;
    }
    int g = smap_group_compare(a->group, b->group);
    *result = g == MPI_IDENT ? MPI_CONGRUENT : g;
}

void smap_comm_set_name(struct MPI_ABI_Comm *c, const char *comm_name)
{
    /* longer names are truncated, as the standard allows */
    snprintf(c->name, sizeof c->name, "%s", comm_name);
}

int smap_comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    /* MPI 4.1: the null handle has a name too */
    const char *name = "MPI_COMM_NULL";
    if (comm != MPI_COMM_NULL) {
        struct MPI_ABI_Comm *c = smap_comm_get(comm);
        if (!c)
            return smap_fail(MPI_ERR_COMM, "comm is not a valid communicator");
        name = c->name;
    }
    size_t n = strlen(name);
    memcpy(comm_name, name, n + 1);
    *resultlen = (int)n;
    return MPI_SUCCESS;
}

void smap_comm_remote_group(struct MPI_ABI_Comm *c, MPI_Group *group)
{
    smap_group_retain(c->remote_group);
    *group = smap_group_handle(c->remote_group);
}
