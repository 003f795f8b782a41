/* MPI_Type_create_f90_integer/real/complex (MPI 5.0 §19.1.9): the
 * predefined type of the Fortran kind that SELECTED_INT_KIND(r) /
 * SELECTED_REAL_KIND(p, r) would give, for the kinds of the usual Fortran
 * compilers on x86-64 and aarch64 (gfortran, flang): integers of 1, 2, 4,
 * 8, 16 bytes (decimal ranges 2, 4, 9, 18, 38), reals of 4, 8, 16 bytes
 * (precision 6, 15, 33; range 37, 307, 4931).  The smallest kind that
 * satisfies every given requirement is chosen.
 *
 * The handle returned is not the kind's predefined one but a type of its
 * own per distinct arguments (MPI 5.0 §5.1.13: its envelope says
 * MPI_COMBINER_F90_INTEGER/REAL/COMPLEX and its contents are r, or p and
 * r, as given), the same handle every time for the same arguments, made on
 * first request and never freed: the program must treat it as predefined. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dtype/dtype.h"

MPI_Datatype smap_dtype_f90_integer(int r)
{
    static const struct {
        int r;
        MPI_Datatype t;
    } k[] = {{2, MPI_INTEGER1}, {4, MPI_INTEGER2}, {9, MPI_INTEGER4}, {18, MPI_INTEGER8},
             {38, MPI_INTEGER16}};
    for (unsigned i = 0; i < sizeof k / sizeof k[0]; i++)
        if (r <= k[i].r)
            return k[i].t;
    return MPI_DATATYPE_NULL;
}

MPI_Datatype smap_dtype_f90_real(int p, int r, int complex)
{
    static const struct {
        int p, r;
        MPI_Datatype real, cplx;
    } k[] = {{6, 37, MPI_REAL4, MPI_COMPLEX8},
             {15, 307, MPI_REAL8, MPI_COMPLEX16},
             {33, 4931, MPI_REAL16, MPI_COMPLEX32}};
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        return MPI_DATATYPE_NULL;
    for (unsigned i = 0; i < sizeof k / sizeof k[0]; i++)
        if ((p == MPI_UNDEFINED || p <= k[i].p) && (r == MPI_UNDEFINED || r <= k[i].r))
            return complex ? k[i].cplx : k[i].real;
    return MPI_DATATYPE_NULL;
}

struct f90_type {
    int combiner, p, r;
    smap_dtype_t *t;
    struct f90_type *next;
};

static pthread_mutex_t f90_lock = PTHREAD_MUTEX_INITIALIZER;
static struct f90_type *f90_types;

static smap_dtype_t *f90_make(int combiner, int p, int r, MPI_Datatype base)
{
    smap_dtype_t *b = smap_dtype_get(base), *t;
    if (!b || smap_dtype_dup(b, &t) != MPI_SUCCESS)
        return NULL;
    const int ints[2] = { p, r };
    int ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
    if (smap_dtype_set_contents(t, combiner, 0, ni, ni == 1 ? &r : ints, 0, NULL, 0, NULL, 0,
                                NULL) != MPI_SUCCESS) {
        smap_dtype_release(t);
        return NULL;
    }
    memcpy(t->name, b->name, sizeof t->name);
    t->flags |= SMAP_DT_F90;
    return t;
}

smap_dtype_t *smap_dtype_f90_type(int combiner, int p, int r, MPI_Datatype base)
{
    pthread_mutex_lock(&f90_lock);
    struct f90_type *e = f90_types;
    while (e && !(e->combiner == combiner && e->p == p && e->r == r))
        e = e->next;
    if (!e && (e = malloc(sizeof *e)) != NULL) {
        *e = (struct f90_type){ combiner, p, r, f90_make(combiner, p, r, base), f90_types };
        if (e->t) {
            f90_types = e;
        } else {
            free(e);
            e = NULL;
        }
    }
    pthread_mutex_unlock(&f90_lock);
    return e ? e->t : NULL;
}
