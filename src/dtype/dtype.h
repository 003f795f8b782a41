/* Datatypes: the object behind an MPI_Datatype handle, the predefined
 * table, and the constructors (src/dtype/README.md).
 *
 * Predefined datatypes are the standard ABI's small integers
 * (0x200..0x2ff); they index a static table.  User datatypes are pointers to
 * a heap struct MPI_ABI_Datatype, told from garbage by a magic word. */
#ifndef SMAP_DTYPE_DTYPE_H
#define SMAP_DTYPE_DTYPE_H

#include <mpi.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct smap_attr;   /* src/mpi/attr.h */

#define SMAP_DTYPE_MAGIC 0x44545950u /* "DTYP" */
/* Alive (inside another type, or held by an operation in flight) but no
 * handle of the program names it any more: a freed copy of the handle is
 * refused (MPI_ERR_TYPE) instead of dropping the holder's reference. */
#define SMAP_DTYPE_HIDDEN 0x64747970u /* "dtyp" */

#define SMAP_DTYPE_PREDEF_BASE 0x200
#define SMAP_DTYPE_PREDEF_N    0x100

/* flags */
#define SMAP_DT_PREDEF    0x01u /* entry of the predefined table */
#define SMAP_DT_COMMITTED 0x02u
#define SMAP_DT_EXPLICIT  0x04u /* bounds set by create_resized somewhere inside */
#define SMAP_DT_LARGE     0x08u /* built by a _c constructor: contents in large counts */
#define SMAP_DT_CONTIG    0x10u /* count elements of it are one dense block */
#define SMAP_DT_PAIR      0x20u /* predefined value-index pair (MPI_DOUBLE_INT...) */
#define SMAP_DT_F90       0x40u /* MPI_Type_create_f90_*'s: predefined for the user, never freed */

/* The elementary kinds: how one basic element converts to external32. */
enum smap_dtype_kind {
    SMAP_K_NONE = 0, /* derived */
    SMAP_K_BYTE,     /* 1-byte units, no conversion */
    SMAP_K_SWAP2, SMAP_K_SWAP4, SMAP_K_SWAP8, SMAP_K_SWAP16, /* byte swap by unit */
    SMAP_K_LONG,     /* native long: external32 4 bytes, signed */
    SMAP_K_ULONG,    /* native unsigned long: external32 4 bytes */
    SMAP_K_WCHAR,    /* native wchar_t: external32 2 bytes */
    SMAP_K_LDOUBLE,  /* native long double: external32 IEEE binary128 */
    SMAP_K_COUNT_
};

/* One run of the compiled type map: n blocks of len bytes, the k-th at
 * off + k*stride from the start of the element; pre = packed bytes of all
 * runs before this one (for seeking). */
struct smap_dtype_block {
    MPI_Aint off, len, stride;
    MPI_Count n, pre;
    int kind;   /* typed lists: elementary kind (conversion unit) */
    int esize;  /* typed lists: bytes of one predefined element */
};

struct smap_dtype_flat {
    MPI_Count nblk;
    struct smap_dtype_block *blk;
    MPI_Count size;   /* packed bytes of one element (sum of len*n) */
    MPI_Count xsize;  /* external32 bytes of one element (typed lists) */
    MPI_Count nelem;  /* basic elements of one element (typed lists) */
};

/* What a constructor did, for the engine (flatten.c). */
enum smap_dtype_layout {
    SMAP_L_PREDEF, SMAP_L_CONTIG, SMAP_L_HVECTOR, SMAP_L_BLOCKS, SMAP_L_RESIZED, SMAP_L_ALIAS
};

struct MPI_ABI_Datatype {
    uint32_t magic;
    unsigned flags;
    _Atomic int refs;     /* user types: handles + parents referencing it */
    _Atomic int handles;  /* user types: the program's handles to it */
    int combiner;         /* MPI_COMBINER_* */
    int kind;             /* predefined: smap_dtype_kind; derived: SMAP_K_NONE */
    int align;            /* largest alignment inside (struct padding) */
    MPI_Count size, lb, extent, true_lb, true_extent;

    /* layout (derived): see flatten.c */
    int layout;
    MPI_Count count, bl;          /* CONTIG: count; HVECTOR: count, bl */
    MPI_Aint stride;              /* HVECTOR: bytes */
    MPI_Count *bls;               /* BLOCKS: count block lengths */
    MPI_Aint *disps;              /* BLOCKS: byte displacements */
    struct MPI_ABI_Datatype **types; /* BLOCKS: NULL = all child */
    struct MPI_ABI_Datatype *child;  /* CONTIG, HVECTOR, BLOCKS, RESIZED, ALIAS */

    /* contents (MPI_Type_get_contents) */
    int ni, na, nc, nt;
    int *ints;
    MPI_Aint *addrs;
    MPI_Count *counts;
    MPI_Datatype *ctypes;

    /* compiled forms, built at commit (flat) or on first need (typed) */
    struct smap_dtype_flat *_Atomic flat;
    struct smap_dtype_flat *_Atomic typed;

    char name[MPI_MAX_OBJECT_NAME];

    /* cached attributes (src/mpi/attr.h), NULL when none; predefined
     * entries have one too.  Owned by binding/: MPI_Type_free empties it
     * (delete callbacks) before the handle's reference goes, MPI_Type_dup
     * fills the duplicate's through the copy callbacks.  src/dtype/ never
     * touches it (it may not call src/mpi/). */
    struct smap_attr *attrs;
};

typedef struct MPI_ABI_Datatype smap_dtype_t;

extern smap_dtype_t smap_dtype_predef[SMAP_DTYPE_PREDEF_N];

/* The object behind a handle, or NULL for MPI_DATATYPE_NULL, a predefined
 * value the library does not know, or anything that is not a live datatype. */
static inline smap_dtype_t *smap_dtype_get(MPI_Datatype h)
{
    uintptr_t v = (uintptr_t)h;
    if (v - SMAP_DTYPE_PREDEF_BASE < SMAP_DTYPE_PREDEF_N) {
        smap_dtype_t *t = &smap_dtype_predef[v - SMAP_DTYPE_PREDEF_BASE];
        return t->magic == SMAP_DTYPE_MAGIC ? t : NULL;
    }
    if (v < 0x10000 || (v & (_Alignof(smap_dtype_t) - 1)))
        return NULL;
    smap_dtype_t *t = (smap_dtype_t *)h;
    return t->magic == SMAP_DTYPE_MAGIC ? t : NULL;
}

/* The same, also for a type the program no longer holds a handle to: for
 * the handles the library stored itself (contents of a derived type). */
static inline smap_dtype_t *smap_dtype_stored(MPI_Datatype h)
{
    uintptr_t v = (uintptr_t)h;
    if (v - SMAP_DTYPE_PREDEF_BASE < SMAP_DTYPE_PREDEF_N || v < 0x10000)
        return smap_dtype_get(h);
    smap_dtype_t *t = (smap_dtype_t *)h;
    return t->magic == SMAP_DTYPE_MAGIC || t->magic == SMAP_DTYPE_HIDDEN ? t : NULL;
}

static inline MPI_Datatype smap_dtype_handle(smap_dtype_t *t)
{
    if (t->flags & SMAP_DT_PREDEF)
        return (MPI_Datatype)(uintptr_t)(SMAP_DTYPE_PREDEF_BASE + (t - smap_dtype_predef));
    return (MPI_Datatype)t;
}

static inline int smap_dtype_committed(const smap_dtype_t *t)
{
    return (t->flags & SMAP_DT_COMMITTED) != 0;
}

/* ---- constructors: return MPI_SUCCESS or an error class (nothing raised).
 * Byte displacements/strides; the caller stores the contents afterwards
 * with smap_dtype_set_contents.  Children gain a reference. ---- */
int smap_dtype_contiguous(MPI_Count count, smap_dtype_t *old, smap_dtype_t **out);
int smap_dtype_hvector(MPI_Count count, MPI_Count bl, MPI_Aint stride, smap_dtype_t *old,
                       smap_dtype_t **out);
/* bls == NULL: every block has bl_all elements; types == NULL: all `old`. */
int smap_dtype_blocks(MPI_Count count, const MPI_Count *bls, MPI_Count bl_all,
                      const MPI_Aint *disps, smap_dtype_t *const *types, smap_dtype_t *old,
                      int is_struct, smap_dtype_t **out);
int smap_dtype_resized(smap_dtype_t *old, MPI_Aint lb, MPI_Aint extent, smap_dtype_t **out);
int smap_dtype_dup(smap_dtype_t *old, smap_dtype_t **out);
/* order: MPI_ORDER_C / MPI_ORDER_FORTRAN; arguments already checked. */
int smap_dtype_subarray(int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                        const MPI_Count *starts, int order, smap_dtype_t *old,
                        smap_dtype_t **out);
int smap_dtype_darray(int size, int rank, int ndims, const MPI_Count *gsizes,
                      const int *distribs, const int *dargs, const int *psizes, int order,
                      smap_dtype_t *old, smap_dtype_t **out);

/* Records what MPI_Type_get_contents returns; takes references on the
 * non-predefined types.  large: the _c constructor was used. */
int smap_dtype_set_contents(smap_dtype_t *t, int combiner, int large, int ni, const int *ints,
                            int na, const MPI_Aint *addrs, int nc, const MPI_Count *counts,
                            int nt, const MPI_Datatype *types);

int smap_dtype_commit(smap_dtype_t *t);       /* compiles the type map */
void smap_dtype_retain(smap_dtype_t *t);
void smap_dtype_release(smap_dtype_t *t);     /* frees at zero; predefined: no-op */
/* A user type's reference handed to the program as a handle (contents). */
void smap_dtype_give(smap_dtype_t *t);
/* MPI_Type_free of a user type the program holds a handle to: the handle
 * and its reference go. */
void smap_dtype_drop(smap_dtype_t *t);

/* The compiled forms (built on demand, cached; NULL when out of memory). */
const struct smap_dtype_flat *smap_dtype_flat(smap_dtype_t *t);
const struct smap_dtype_flat *smap_dtype_typed(smap_dtype_t *t);

/* The predefined type of a Fortran type class (MPI_TYPECLASS_*) and size. */
MPI_Datatype smap_dtype_match_size(int typeclass, int size);

/* MPI_Type_create_f90_* (f90.c): the predefined type of the Fortran kind
 * with decimal range r / precision p (MPI_UNDEFINED: no requirement), or
 * MPI_DATATYPE_NULL when no supported kind has them. */
MPI_Datatype smap_dtype_f90_integer(int r);
MPI_Datatype smap_dtype_f90_real(int p, int r, int complex);
/* The type MPI_Type_create_f90_* hands out for these arguments (combiner
 * MPI_COMBINER_F90_*), a duplicate of the predefined base: the same object
 * for the same arguments, kept to the end; NULL when out of memory. */
smap_dtype_t *smap_dtype_f90_type(int combiner, int p, int r, MPI_Datatype base);

/* ---- The entry points' queries and decoding (query.c), called once the
 * handles and pointers are checked: those returning int give MPI_SUCCESS
 * or an error class, the reason recorded (base/why.h). ---- */
/* The engine's return code rc, recorded with its reason ("out of memory",
 * "the type's size does not fit MPI_Count", "cannot build the datatype"). */
int smap_dtype_fail(int rc);
int smap_dtype_commit_checked(smap_dtype_t *t);
void smap_dtype_size_int(const smap_dtype_t *t, int *size);
/* lb and extent, or the true ones (true_ext). */
void smap_dtype_extent_of(const smap_dtype_t *t, int true_ext, MPI_Count *lb, MPI_Count *extent);
void smap_dtype_extent_aint(const smap_dtype_t *t, int true_ext, MPI_Aint *lb, MPI_Aint *extent);
int smap_dtype_envelope(const smap_dtype_t *t, MPI_Count *ni, MPI_Count *na, MPI_Count *nc,
                        MPI_Count *nt, int *combiner);
/* The int forms refuse a type built with large counts (MPI_ERR_TYPE). */
int smap_dtype_envelope_int(const smap_dtype_t *t, int *ni, int *na, int *nt, int *combiner);
int smap_dtype_contents(const smap_dtype_t *t, MPI_Count max_i, MPI_Count max_a, MPI_Count max_c,
                        MPI_Count max_t, int *ints, MPI_Aint *addrs, MPI_Count *counts,
                        MPI_Datatype *types);
int smap_dtype_contents_int(const smap_dtype_t *t, int max_i, int max_a, int max_t, int *ints,
                            MPI_Aint *addrs, MPI_Datatype *types);
void smap_dtype_set_name(smap_dtype_t *t, const char *type_name);
/* MPI_DATATYPE_NULL has a name too (MPI 4.1). */
int smap_dtype_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);
int smap_dtype_match_size_into(int typeclass, int size, MPI_Datatype *datatype);
void smap_dtype_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                            MPI_Datatype *pair_type);
/* MPI_Type_create_f90_*: combiner MPI_COMBINER_F90_INTEGER (p MPI_UNDEFINED),
 * _REAL or _COMPLEX; MPI_ERR_ARG when no kind matches. */
int smap_dtype_f90_create(int combiner, int p, int r, MPI_Datatype *newtype);

#endif
