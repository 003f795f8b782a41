/* Handles as integers (MPI_*_toint / _fromint, MPI_*_c2f / _f2c).
 *
 * Predefined handles are the standard ABI's small integers (all below
 * 0x400) and convert as themselves.  A user object gets an integer the first
 * time it is converted: an entry of a table that maps it back to the
 * pointer.  The integer is SMAP_HANDLE_INT_BASE + (generation << 23 | slot):
 * a slot freed and reused gets a new generation, so a stale integer finds
 * nothing instead of the slot's next object (for 127 reuses of a slot).
 *
 * An object's free path calls smap_handle_forget before the memory goes,
 * so that its integer no longer resolves to a dangling pointer (cheap when
 * the table is empty: one atomic load). */
#ifndef SMAP_MPI_HANDLES_H
#define SMAP_MPI_HANDLES_H

#define SMAP_HANDLE_INT_BASE 0x400

enum smap_handle_kind {
    SMAP_HK_COMM, SMAP_HK_ERRHANDLER, SMAP_HK_FILE, SMAP_HK_GROUP, SMAP_HK_INFO,
    SMAP_HK_MESSAGE, SMAP_HK_OP, SMAP_HK_REQUEST, SMAP_HK_SESSION, SMAP_HK_TYPE,
    SMAP_HK_WIN, SMAP_HK_N
};

/* The integer of user object obj of kind `kind` (the same one on every
 * call until forgotten), or -1 when out of memory or the table is full. */
int smap_handle_register(int kind, void *obj);
/* The object integer i stands for, or NULL when it names none of `kind`. */
void *smap_handle_lookup(int kind, int i);
/* Drops obj's entry, if any. */
void smap_handle_forget(void *obj);

/* MPI_<Kind>_toint / _c2f: the integer of handle h of kind k, the kind's
 * null handle's integer when h is not valid (handle_convert.c). */
int smap_handle_toint(int k, void *h);
/* MPI_<Kind>_fromint / _f2c: the handle integer i stands for, the kind's
 * null handle when none. */
void *smap_handle_fromint(int k, int i);

#endif
