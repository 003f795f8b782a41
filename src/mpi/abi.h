/* The MPI 5.0 ABI functions' state (abi.c). */
#ifndef SMAP_MPI_ABI_H
#define SMAP_MPI_ABI_H

#include <mpi.h>

struct MPI_ABI_Info;
/* A new info object describing this library's ABI (type sizes, version),
 * or NULL when out of memory. */
struct MPI_ABI_Info *smap_abi_info(void);
/* A new info object: a copy of the Fortran details last set (empty when
 * none were).  MPI_ERR_NO_MEM possible. */
int smap_abi_fortran_info(struct MPI_ABI_Info **out);
int smap_abi_set_fortran_info(const struct MPI_ABI_Info *info);
/* size: 1..16 bytes (checked by the binding). */
void smap_abi_set_fortran_booleans(int size, const void *t, const void *f);
/* Whether booleans of that size were set (then copied out). */
int smap_abi_get_fortran_booleans(int size, void *t, void *f);

/* MPI_Get_hw_resource_info's object (hw_resource.c), or NULL when out of
 * memory. */
struct MPI_ABI_Info *smap_hw_resource_info(void);

/* ---- The entry points' operations (abi_api.c): MPI_SUCCESS or an error
 * class, the reason recorded (base/why.h). ---- */
int smap_abi_get_info_into(MPI_Info *info);
int smap_abi_get_fortran_info_into(MPI_Info *info);
int smap_abi_set_fortran_info_from(const struct MPI_ABI_Info *i);
int smap_hw_resource_info_into(MPI_Info *hw_info);
/* logical_size must be 1, 2, 4, 8 or 16 (else MPI_ERR_ARG). */
int smap_abi_set_booleans(int logical_size, const void *logical_true, const void *logical_false);
int smap_abi_get_booleans(int logical_size, void *logical_true, void *logical_false, int *is_set);

#endif
