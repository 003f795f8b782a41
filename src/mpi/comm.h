/* Communicators.  For now the two predefined ones, MPI_COMM_WORLD and
 * MPI_COMM_SELF; the object model issue adds the rest behind the same
 * lookup. */
#ifndef SMAP_MPI_COMM_H
#define SMAP_MPI_COMM_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define SMAP_COMM_MAGIC 0x434f4d4du  /* "COMM": tells our objects from garbage */

struct MPI_ABI_Group;
struct MPI_ABI_Info;
struct smap_attr;

struct MPI_ABI_Comm {
    uint32_t magic;
    int rank, size;
    int ctx;                     /* context id: matching keeps communicators apart (WORLD 0, SELF 1) */
    MPI_Errhandler errhandler;   /* predefined handle or user object */
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Comm handle;             /* what users hold: MPI_COMM_WORLD, or the object itself */
    struct MPI_ABI_Group *group; /* one reference (src/mpi/group.h) */
    struct smap_attr *attrs;     /* cached attributes, newest first (src/mpi/attr.h) */
    struct MPI_ABI_Info *hints;  /* info hints accepted by MPI_Comm_set_info, or NULL */
};

extern struct MPI_ABI_Comm smap_comm_world, smap_comm_self;

/* Whether a user handle may point to one of our objects, before its magic
 * is read: predefined handles and integers passed as handles are small
 * (nothing is mapped below vm.mmap_min_addr, 64 KiB on Linux), and our
 * objects are aligned.  A wild pointer beyond that is not detected. */
static inline int smap_plausible_object(const void *h, size_t align)
{
    return (uintptr_t)h >= 65536 && (uintptr_t)h % align == 0;
}

/* Sets up WORLD and SELF from the job's identity (after boot). */
void smap_comm_init(int rank, int size);
/* First step of MPI_Finalize: runs MPI_COMM_SELF's attribute callbacks. */
void smap_comm_finalize_begin(void);
/* Releases what the predefined communicators hold: their attributes (delete
 * callbacks run, MPI_COMM_SELF's first, as MPI_Finalize must), hints and
 * user error handlers. */
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
