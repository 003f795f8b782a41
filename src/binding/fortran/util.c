/* Shared helpers of the Fortran entry points (fortran.h): the sentinels'
 * common blocks, Fortran strings, and array lengths that no argument gives. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "binding/fortran/fortran.h"
#include "mpi/abi.h"
#include "mpi/errors.h"
#include "mpi/handles.h"
#include "mpi/request_hook.h"

_Static_assert(SMAP_F_PREDEF_MAX == SMAP_HANDLE_INT_BASE,
               "fortran.h's SMAP_F2C fast path: predefined handles below the table's integers");

/* The common blocks of mpif.h / module mpi: defined here (initialised, so
 * the definition is ours; a program's Fortran objects only reference them).
 * Their addresses are the sentinels. */
/* gfortran aligns a common block to 16 bytes; so do we. */
#define BLOCK SMAP_F_API __attribute__((aligned(16)))
BLOCK MPI_Fint mpi_fortran_bottom_ = 0;
BLOCK MPI_Fint mpi_fortran_in_place_ = 0;
BLOCK MPI_Fint mpi_fortran_buffer_automatic_ = 0;
BLOCK MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE] = {0};
BLOCK MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE] = {0};
BLOCK MPI_Fint mpi_fortran_errcodes_ignore_[1] = {0};
BLOCK MPI_Fint mpi_fortran_unweighted_[1] = {0};
BLOCK MPI_Fint mpi_fortran_weights_empty_[1] = {0};
BLOCK char mpi_fortran_argv_null_[1] = {' '};
BLOCK char mpi_fortran_argvs_null_[1] = {' '};

char *smap_f_str_in(const char *f, size_t len)
{
    while (len > 0 && f[len - 1] == ' ')
        len--;
    char *c = malloc(len + 1);
    if (!c)
        return NULL;
    memcpy(c, f, len);
    c[len] = '\0';
    return c;
}

void smap_f_str_out(const char *c, char *f, size_t len)
{
    size_t n = strlen(c);
    if (n > len)
        n = len;
    memcpy(f, c, n);
    memset(f + n, ' ', len - n);
}

int smap_f_nomem(const char *func)
{
    return smap_err_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, func,
                          "out of memory converting the Fortran arguments");
}

int smap_f_raise(MPI_Comm comm, int cls, const char *func, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return smap_err_raise(comm, cls, func, "%s", msg);
}

int smap_f_request_hook(MPI_Request req, const struct smap_req_hook *hook, void *ctx)
{
    return smap_req_hook_set(req, hook, ctx);
}

/* Neighbours of a process topology: out (send) or in (recv) degree. */
static int degree(MPI_Comm comm, int send)
{
    int topo = MPI_UNDEFINED;
    if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS)
        return 0;
    if (topo == MPI_CART) {
        int nd = 0;
        PMPI_Cartdim_get(comm, &nd);
        return 2 * nd;
    }
    if (topo == MPI_GRAPH) {
        int me = 0, n = 0;
        PMPI_Comm_rank(comm, &me);
        PMPI_Graph_neighbors_count(comm, me, &n);
        return n;
    }
    if (topo == MPI_DIST_GRAPH) {
        int in = 0, out = 0, w = 0;
        PMPI_Dist_graph_neighbors_count(comm, &in, &out, &w);
        return send ? out : in;
    }
    return 0;
}

/* Group size the alltoallw arrays span: the remote group of an
 * intercommunicator, else the communicator. */
static int group_size(MPI_Comm comm)
{
    int inter = 0, n = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return 0;
    if (inter)
        PMPI_Comm_remote_size(comm, &n);
    else
        PMPI_Comm_size(comm, &n);
    return n;
}

int smap_f_comm_nsend(MPI_Comm comm, int neighbor)
{
    return neighbor ? degree(comm, 1) : group_size(comm);
}

int smap_f_comm_nrecv(MPI_Comm comm, int neighbor)
{
    return neighbor ? degree(comm, 0) : group_size(comm);
}

int smap_f_cartdim(MPI_Comm comm)
{
    int nd = 0;
    int topo = MPI_UNDEFINED;
    if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS || topo != MPI_CART)
        return 0;
    PMPI_Cartdim_get(comm, &nd);
    return nd;
}

/* MPI_F_sync_reg (MPI 5.0 §19.1.17): an external call the compiler must
 * assume reads and writes buf, which is all it is for. */
SMAP_F_API void pmpi_f_sync_reg_(void *buf)
{
    (void)buf;
}
SMAP_F_ALIASES(f_sync_reg, F_SYNC_REG, void, (void *))

/* The LOGICAL values this binding reads and writes (fortran.h), recorded
 * for MPI_Abi_get_fortran_booleans by the Fortran MPI_Init, MPI_Init_thread
 * and MPI_Session_init (gen_f77.c): a program that starts MPI from Fortran
 * uses these. */
void smap_f_record_booleans(void)
{
    MPI_Fint t = SMAP_F_TRUE, f = 0;
    smap_abi_set_fortran_booleans((int)sizeof t, &t, &f);
}
