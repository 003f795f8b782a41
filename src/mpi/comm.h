/* Communicators.  For now the two predefined ones, MPI_COMM_WORLD and
 * MPI_COMM_SELF; the object model issue adds the rest behind the same
 * lookup. */
#ifndef SMAP_MPI_COMM_H
#define SMAP_MPI_COMM_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define SMAP_COMM_MAGIC 0x434f4d4du  /* "COMM": tells our objects from garbage */

struct MPI_ABI_Comm {
    uint32_t magic;
    int rank, size;
    MPI_Errhandler errhandler;   /* predefined handle or user object */
    char name[MPI_MAX_OBJECT_NAME];
};

extern struct MPI_ABI_Comm smap_comm_world, smap_comm_self;

/* Sets up WORLD and SELF from the job's identity (after boot). */
void smap_comm_init(int rank, int size);
/* Releases what the predefined communicators hold (user error handlers). */
void smap_comm_finalize(void);

/* The object behind a handle, or NULL for MPI_COMM_NULL and anything that is
 * not a live communicator. */
static inline struct MPI_ABI_Comm *smap_comm_get(MPI_Comm h)
{
    if (h == MPI_COMM_WORLD)
        return &smap_comm_world;
    if (h == MPI_COMM_SELF)
        return &smap_comm_self;
    return NULL;
}

#endif
