/* Ops and error handlers bound to a context, for the other language
 * bindings (src/binding/fortran): the C callback types carry no user
 * pointer, so a Fortran procedure is stored as the object's context and
 * called through one trampoline per kind -- no table, no limit. */
#ifndef SMAP_BINDING_CTX_OBJECTS_H
#define SMAP_BINDING_CTX_OBJECTS_H

#include <mpi.h>

#include "mpi/op.h"

/* MPI_Op_create(_c) for `func`: an op calling fn(ctx, ...) (large: the
 * length is never split at INT_MAX). */
int smap_op_new_ctx(const char *func, smap_op_ctx_fn *fn, void *ctx, int large, int commute,
                    MPI_Op *op);
/* MPI_<Kind>_create_errhandler for `func`: a handler calling
 * fn(ctx, &handle, &code). */
int smap_errhandler_new_ctx(const char *func, void (*fn)(void *ctx, void *obj, int *code),
                            void *ctx, MPI_Errhandler *errhandler);

#endif
