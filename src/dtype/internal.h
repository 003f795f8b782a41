/* Shared between the files of src/dtype only. */
#ifndef SMAP_DTYPE_INTERNAL_H
#define SMAP_DTYPE_INTERNAL_H

#include "dtype/dtype.h"

/* Native and external32 bytes of one unit of an elementary kind. */
int smap_dtype_kind_native(int kind);
int smap_dtype_kind_ext(int kind);

/* Builds the compiled form of t (typed: runs keep their elementary kind and
 * never merge across kinds).  NULL when out of memory. */
struct smap_dtype_flat *smap_dtype_flatten(smap_dtype_t *t, int typed);
void smap_dtype_flat_free(struct smap_dtype_flat *f);

#endif
