/* smartmap.h — smartmap's direct-access API for applications.
 * The SMARTMAP interfaces (local rank/size, smap_remote, node barrier,
 * MPIX_Comm_remote_ptr) arrive with the SMARTMAP layer; see docs/STATUS.md. */
#ifndef SMARTMAP_H
#define SMARTMAP_H

#define SMARTMAP_VERSION_MAJOR 0
#define SMARTMAP_VERSION_MINOR 1
#define SMARTMAP_VERSION_PATCH 0

#endif
