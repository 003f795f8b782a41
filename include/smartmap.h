/* smartmap.h - smartmap's direct-access API for applications.
 *
 * The processes of a job that share a node can load and store each other's
 * memory directly: every rank's heap, the executable's globals and the main
 * thread's stack (and stacks of threads it created) are shared mappings that
 * all node peers map.  This header gives applications the SMARTMAP library
 * interfaces: who the node peers are, a pointer translation, a node barrier
 * and copies that fall back to the kernel when direct access is impossible.
 *
 * Call these after MPI_Init (or MPI_Init_thread) and before MPI_Finalize.
 * Local ranks number the job's ranks on this node 0 .. smap_local_size()-1
 * in MPI_COMM_WORLD order.  See docs/SMARTMAP.md and examples/remote_sum.c. */
#ifndef SMARTMAP_H
#define SMARTMAP_H

#include <stddef.h>
#include <mpi.h>

#define SMARTMAP_VERSION_MAJOR 0
#define SMARTMAP_VERSION_MINOR 2
#define SMARTMAP_VERSION_PATCH 0

#ifdef __cplusplus
extern "C" {
#endif

/* This process's rank among the job's ranks on its node, and their number.
 * -1 before MPI_Init. */
int smap_local_rank(void);
int smap_local_size(void);

/* The address at which this process can load and store the len bytes that
 * node peer `local_rank` has at its address ptr, or NULL when any part of
 * [ptr, ptr+len) is not exposed memory of that peer (thread-local
 * variables, memory from mmap, globals of shared libraries, or exposure
 * switched off by SMAP_EXPOSE).  Heap pointers translate to themselves.
 * For local_rank == smap_local_rank() it returns ptr.  Constant time, no
 * system call. */
void *smap_remote(int local_rank, const void *ptr, size_t len);

/* Copies len bytes from node peer local_rank's address src into dst
 * (smap_get) or from src into the peer's address dst (smap_put): directly
 * when the peer's memory is exposed, else through process_vm_readv/writev.
 * Returns 0 on success, -1 with errno set when neither works (EFAULT: the
 * peer's range is not mapped in it; EPERM: the kernel forbids
 * cross-process copies; EINVAL: bad local rank). */
int smap_get(int local_rank, void *dst, const void *src, size_t len);
int smap_put(int local_rank, void *dst, const void *src, size_t len);

/* Waits until every rank of the node has called it.  Returns 0, or -1
 * when the node's ranks are not attached (before MPI_Init). */
int smap_node_barrier(void);

/* MPI extension: for rank `rank` of comm, when it runs on this node, stores
 * in *local_view the local address of its [ptr, ptr+len), or NULL when that
 * memory is not directly reachable (also for ranks on other nodes).
 * Returns MPI_SUCCESS, or an error for a bad communicator, rank or
 * argument (through comm's error handler). */
int MPIX_Comm_remote_ptr(MPI_Comm comm, int rank, const void *ptr, MPI_Aint len,
                         void **local_view);

#ifdef __cplusplus
}
#endif

#endif
