/* Deferred freeing of MPI objects whose handles are their addresses.
 *
 * A freed object keeps its memory, with its magic word cleared, until
 * SMAP_FREE_LATER_N later objects have been freed: a stale copy of its
 * handle (a second MPI_Type_free, an op used after MPI_Op_free) then reads
 * a dead magic and gets the object's error class, instead of reading
 * memory the heap gave to someone else (or that a sanitizer poisoned).
 * Past that depth a stale handle is undetected again, as in other MPIs. */
#ifndef SMAP_BASE_FREE_LATER_H
#define SMAP_BASE_FREE_LATER_H

#define SMAP_FREE_LATER_N 256

/* Frees p (from malloc) after SMAP_FREE_LATER_N more calls; thread-safe.
 * p NULL: nothing. */
void smap_free_later(void *p);

#endif
