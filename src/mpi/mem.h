/* The blocks MPI_Alloc_mem handed out, so that MPI_Free_mem can refuse a
 * pointer that is not one of them (a stack address, a malloc'ed block, the
 * middle of a block, a block already freed) instead of handing it to the
 * heap, which would crash on it. */
#ifndef SMAP_MPI_MEM_H
#define SMAP_MPI_MEM_H

#include <stddef.h>

#include <mpi.h>

/* A new block of size bytes (at least one, so every block is distinct), or
 * NULL when out of memory. */
void *smap_mem_alloc(size_t size);
/* Frees p and returns 0 when p is a live block of smap_mem_alloc; else
 * leaves everything as it is and returns -1. */
int smap_mem_free(void *p);

/* MPI_Alloc_mem / MPI_Free_mem: MPI_SUCCESS or an error class, the
 * reason recorded (base/why.h). */
int smap_mem_alloc_into(MPI_Aint size, MPI_Info info, void *baseptr);
int smap_mem_free_checked(void *base);

#endif
