/* MPI_Publish_name / MPI_Unpublish_name / MPI_Lookup_name through the
 * launcher's name service (PMI-1 publish_name, unpublish_name,
 * lookup_name: smrun's table, shared across jobs when they use the same
 * `smrun --name-server`; hydra's nameserver; under Open MPI's mpirun
 * its data server, through PMIx: src/boot/README.md). */
#include "spawn/internal.h"

#include <string.h>

#include "boot/boot.h"
#include "boot/pmi.h"
#include "mpi/errors.h"
#include "boot/pmi_wire.h"

static int usable(const char *s)
{
    return smap_pmi_valid_value(s);
}

int smap_name_publish(const char *service, const char *port, const char *func)
{
    if (!usable(service))
        return smap_err_raise(MPI_COMM_WORLD, MPI_ERR_SERVICE, func,
                              "service_name must be non-empty printable text without spaces");
    if (!usable(port))
        return smap_err_raise(MPI_COMM_WORLD, MPI_ERR_PORT, func,
                              "port_name must be non-empty printable text without spaces");
    if (smap_pmi_publish(service, port) != 0)
        return smap_err_raise(MPI_COMM_WORLD, MPI_ERR_SERVICE, func,
                              "the launcher's name service did not publish \"%.64s\" (already "
                              "published, or no name service: run under smrun)", service);
    return MPI_SUCCESS;
}

int smap_name_unpublish(const char *service, const char *port, const char *func)
{
    (void)port;
    if (!usable(service) || smap_pmi_unpublish(service) != 0)
        return smap_err_raise(MPI_COMM_WORLD, MPI_ERR_SERVICE, func,
                              "service_name \"%.64s\" is not published", service);
    return MPI_SUCCESS;
}

int smap_name_lookup(const char *service, char *port, const char *func)
{
    if (!usable(service) || smap_pmi_lookup(service, port, MPI_MAX_PORT_NAME) != 0)
        return smap_err_raise(MPI_COMM_WORLD, MPI_ERR_NAME, func,
                              "service_name \"%.64s\" is not published", service);
    return MPI_SUCCESS;
}
