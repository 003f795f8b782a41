/* The blocks MPI_Alloc_mem handed out, so that MPI_Free_mem can refuse a
 * pointer that is not one of them (a stack address, a malloc'ed block, the
 * middle of a block, a block already freed) instead of handing it to the
 * heap, which would crash on it. */
#ifndef SMAP_MPI_MEM_H
#define SMAP_MPI_MEM_H

#include <stddef.h>

/* A new block of size bytes (at least one, so every block is distinct), or
 * NULL when out of memory. */
void *smap_mem_alloc(size_t size);
/* Frees p and returns 0 when p is a live block of smap_mem_alloc; else
 * leaves everything as it is and returns -1. */
int smap_mem_free(void *p);

#endif
