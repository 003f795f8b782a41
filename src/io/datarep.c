/* Data representations (MPI 5.0 §14.5): "native" and "internal" (the
 * same bytes: smartmap's internal format is the native one, as ROMIO's),
 * "external32" (src/dtype/external32.c converts) and the ones the program
 * registers with MPI_Register_datarep (its callbacks convert).
 *
 * A representation other than native changes two things:
 *  - the bytes: the memory stream is converted into the file's stream
 *    (writes) or back (reads), whole access at a time (convert_*);
 *  - the layout: the view's etype and filetype describe the file in the
 *    representation's sizes (§14.5.1: displacements counted in elements
 *    scale with the file extent of the element; byte displacements of
 *    hvector, hindexed, struct, resized are taken as they are).  The
 *    "file shadow" of a type is the type rebuilt from its contents with
 *    every predefined type replaced by an opaque block of its file extent;
 *    the view walks the shadow's map, so everything in view.c and
 *    access.c works on file bytes unchanged. */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dtype/engine.h"
#include "io/io.h"

/* The registered representations: a list that only grows (MPI has no way
 * to unregister one), so a pointer to an entry stays valid. */
static struct smap_io_datarep *reps;
static pthread_mutex_t reps_lock = PTHREAD_MUTEX_INITIALIZER;

static struct smap_io_datarep ext32 = {.name = "external32", .external32 = 1};

static struct smap_io_datarep *find(const char *name)
{
    for (struct smap_io_datarep *r = reps; r; r = r->next)
        if (!strcmp(r->name, name))
            return r;
    return NULL;
}

int smap_io_datarep_register(const char *name, void *rd, void *wr,
                             MPI_Datarep_extent_function *ext, void *state, int large)
{
    if (strlen(name) >= MPI_MAX_DATAREP_STRING)
        return smap_failf(MPI_ERR_ARG, "datarep \"%.32s...\" is longer than "
                            "MPI_MAX_DATAREP_STRING - 1 characters", name);
    if (!name[0])
        return smap_failf(MPI_ERR_ARG, "datarep is an empty string");
    if (!ext)
        return smap_failf(MPI_ERR_ARG, "dtype_file_extent_fn is NULL (it is required)");
    pthread_mutex_lock(&reps_lock);
    int dup = !strcmp(name, "native") || !strcmp(name, "internal") ||
              !strcmp(name, "external32") || find(name);
    struct smap_io_datarep *r = dup ? NULL : calloc(1, sizeof *r);
    if (r) {
        strcpy(r->name, name);
        r->read = rd;
        r->write = wr;
        r->extent = ext;
        r->state = state;
        r->large = large;
        r->next = reps;
        reps = r;
    }
    pthread_mutex_unlock(&reps_lock);
    if (dup)
        return smap_failf(MPI_ERR_DUP_DATAREP, "data representation \"%s\" is already "
                            "defined", name);
    if (!r)
        return smap_failf(MPI_ERR_NO_MEM, "out of memory registering \"%s\"", name);
    return MPI_SUCCESS;
}

int smap_io_datarep_find(const char *name, struct smap_io_datarep **out)
{
    *out = NULL;
    if (!strcmp(name, "native") || !strcmp(name, "internal"))
        return MPI_SUCCESS;
    if (!strcmp(name, "external32")) {
        *out = &ext32;
        return MPI_SUCCESS;
    }
    pthread_mutex_lock(&reps_lock);
    *out = find(name);
    pthread_mutex_unlock(&reps_lock);
    if (!*out)
        return smap_failf(MPI_ERR_UNSUPPORTED_DATAREP, "data representation \"%s\" is not "
                            "known (native, internal, external32, or one registered with "
                            "MPI_Register_datarep)", name);
    return MPI_SUCCESS;
}

/* ---- the file shadow of a type ---- */

/* The file extent of a predefined type under rep. */
static int leaf_extent(const struct smap_io_datarep *rep, smap_dtype_t *t, MPI_Count *e)
{
    if (rep->external32) {
        *e = smap_dtype_external_size(t);
        if (*e < 0)
            return smap_failf(MPI_ERR_NO_MEM, "out of memory compiling a datatype");
        return MPI_SUCCESS;
    }
    MPI_Aint x = -1;
    int rc = rep->extent(smap_dtype_handle(t), &x, rep->state);
    if (rc != MPI_SUCCESS)
        return smap_failf(MPI_ERR_CONVERSION, "the dtype_file_extent_fn of \"%s\" "
                            "returned error %d", rep->name, rc);
    if (x < 0)
        return smap_failf(MPI_ERR_CONVERSION, "the dtype_file_extent_fn of \"%s\" gave a "
                            "negative extent (%lld)", rep->name, (long long)x);
    *e = x;
    return MPI_SUCCESS;
}

static int shadow(const struct smap_io_datarep *rep, smap_dtype_t *t, smap_dtype_t **out);

/* The shadow of the i-th type of t's contents. */
static int child(const struct smap_io_datarep *rep, smap_dtype_t *t, int i, smap_dtype_t **out)
{
    smap_dtype_t *c = i < t->nt ? smap_dtype_stored(t->ctypes[i]) : NULL;
    if (!c)
        return smap_failf(MPI_ERR_TYPE, "a datatype inside the view has no contents");
    return shadow(rep, c, out);
}

/* Contents of the blocks combiners, int or large: count, then the block
 * lengths (one or per block), then the displacements (ints in elements,
 * or addrs in bytes, or all in counts when built by a _c constructor). */
struct blk {
    MPI_Count n, *bls, *disp;
};

static int get_blocks(smap_dtype_t *t, int per_block, int bytes, struct blk *b)
{
    int large = (t->flags & SMAP_DT_LARGE) != 0;
    MPI_Count n = large ? t->counts[0] : t->ints[0];
    b->n = n;
    b->bls = malloc((size_t)(n > 0 ? n : 1) * sizeof *b->bls);
    b->disp = malloc((size_t)(n > 0 ? n : 1) * sizeof *b->disp);
    if (!b->bls || !b->disp) {
        free(b->bls);
        free(b->disp);
        return smap_failf(MPI_ERR_NO_MEM, "out of memory rebuilding a filetype");
    }
    MPI_Count dstart = 1 + (per_block ? n : 1);
    for (MPI_Count i = 0; i < n; i++) {
        MPI_Count bi = per_block ? 1 + i : 1;
        b->bls[i] = large ? t->counts[bi] : t->ints[bi];
        b->disp[i] = large ? t->counts[dstart + i] : bytes ? t->addrs[i] : t->ints[dstart + i];
    }
    return MPI_SUCCESS;
}

static int shadow_blocks(const struct smap_io_datarep *rep, smap_dtype_t *t, int per_block,
                         int bytes, int is_struct, smap_dtype_t **out)
{
    struct blk b;
    int rc = get_blocks(t, per_block, bytes, &b);
    if (rc)
        return rc;
    int nt = is_struct ? (int)b.n : 1;
    smap_dtype_t **ts = calloc((size_t)(nt > 0 ? nt : 1), sizeof *ts);
    MPI_Aint *d = malloc((size_t)(b.n > 0 ? b.n : 1) * sizeof *d);
    if (!ts || !d)
        rc = smap_failf(MPI_ERR_NO_MEM, "out of memory rebuilding a filetype");
    for (int i = 0; i < nt && !rc; i++)
        rc = child(rep, t, i, &ts[i]);
    if (!rc) {
        MPI_Count scale = bytes ? 1 : smap_dtype_extent(ts[0]);
        for (MPI_Count i = 0; i < b.n; i++)
            d[i] = (MPI_Aint)(b.disp[i] * scale);
        rc = smap_dtype_blocks(b.n, b.bls, 0, d, is_struct ? ts : NULL, ts[0], is_struct, out);
        if (rc)
            rc = smap_failf(rc, "rebuilding a filetype for the data representation");
    }
    for (int i = 0; ts && i < nt; i++)
        smap_dtype_release(ts[i]);
    free(ts);
    free(d);
    free(b.bls);
    free(b.disp);
    return rc;
}

static int shadow_derived(const struct smap_io_datarep *rep, smap_dtype_t *t, smap_dtype_t **out)
{
    int large = (t->flags & SMAP_DT_LARGE) != 0, rc;
    smap_dtype_t *c = NULL;
    MPI_Count *v = NULL;
#define I(k) (large ? t->counts[k] : (MPI_Count)t->ints[k])
    switch (t->combiner) {
    case MPI_COMBINER_DUP:
        return child(rep, t, 0, out);
    case MPI_COMBINER_CONTIGUOUS:
        if ((rc = child(rep, t, 0, &c)))
            return rc;
        rc = smap_dtype_contiguous(I(0), c, out);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR: {
        if ((rc = child(rep, t, 0, &c)))
            return rc;
        MPI_Count stride = t->combiner == MPI_COMBINER_VECTOR ? I(2) * smap_dtype_extent(c)
                           : large ? t->counts[2] : t->addrs[0];
        rc = smap_dtype_hvector(I(0), I(1), (MPI_Aint)stride, c, out);
        break;
    }
    case MPI_COMBINER_INDEXED: return shadow_blocks(rep, t, 1, 0, 0, out);
    case MPI_COMBINER_HINDEXED: return shadow_blocks(rep, t, 1, 1, 0, out);
    case MPI_COMBINER_INDEXED_BLOCK: return shadow_blocks(rep, t, 0, 0, 0, out);
    case MPI_COMBINER_HINDEXED_BLOCK: return shadow_blocks(rep, t, 0, 1, 0, out);
    case MPI_COMBINER_STRUCT: return shadow_blocks(rep, t, 1, 1, 1, out);
    case MPI_COMBINER_RESIZED:
        if ((rc = child(rep, t, 0, &c)))
            return rc;
        rc = smap_dtype_resized(c, large ? (MPI_Aint)t->counts[0] : t->addrs[0],
                                large ? (MPI_Aint)t->counts[1] : t->addrs[1], out);
        break;
    case MPI_COMBINER_SUBARRAY: {
        int nd = t->ints[0], order = large ? t->ints[1] : t->ints[1 + 3 * nd];
        if (!(v = malloc(3 * (size_t)(nd > 0 ? nd : 1) * sizeof *v)))
            return smap_failf(MPI_ERR_NO_MEM, "out of memory rebuilding a filetype");
        for (int k = 0; k < 3 * nd; k++)
            v[k] = large ? t->counts[k] : t->ints[1 + k];
        if ((rc = child(rep, t, 0, &c)))
            break;
        rc = smap_dtype_subarray(nd, v, v + nd, v + 2 * nd, order, c, out);
        break;
    }
    case MPI_COMBINER_DARRAY: {
        /* ints: size, rank, ndims, [gsizes], distribs, dargs, psizes, order */
        int nd = t->ints[2], k = 3;
        if (!(v = malloc((size_t)(nd > 0 ? nd : 1) * sizeof *v)))
            return smap_failf(MPI_ERR_NO_MEM, "out of memory rebuilding a filetype");
        for (int d = 0; d < nd; d++)
            v[d] = large ? t->counts[d] : t->ints[k++];
        const int *dist = t->ints + k, *dargs = dist + nd, *ps = dargs + nd;
        if ((rc = child(rep, t, 0, &c)))
            break;
        rc = smap_dtype_darray(t->ints[0], t->ints[1], nd, v, dist, dargs, ps, ps[nd], c, out);
        break;
    }
    default:
        return smap_failf(MPI_ERR_TYPE, "a datatype of the view (combiner %d) cannot be "
                            "laid out in data representation \"%s\"", t->combiner, rep->name);
    }
#undef I
    free(v);
    smap_dtype_release(c);
    return rc ? smap_failf(rc, "rebuilding a filetype for data representation \"%s\"",
                             rep->name)
              : MPI_SUCCESS;
}

static int shadow(const struct smap_io_datarep *rep, smap_dtype_t *t, smap_dtype_t **out)
{
    if ((t->flags & (SMAP_DT_PREDEF | SMAP_DT_F90)) || t->combiner == MPI_COMBINER_NAMED ||
        t->nt == 0) {
        MPI_Count e = 0;
        int rc = leaf_extent(rep, t, &e);
        if (rc)
            return rc;
        /* bytes, aligned to nothing: a struct of them has no padding in
         * the file (the representation's extents only) */
        rc = smap_dtype_contiguous(e, smap_dtype_get(MPI_BYTE), out);
        return rc ? smap_failf(rc, "out of memory for a file type") : MPI_SUCCESS;
    }
    return shadow_derived(rep, t, out);
}

int smap_io_datarep_shadow(const struct smap_io_datarep *rep, smap_dtype_t *t,
                           smap_dtype_t **out)
{
    if (!rep) {
        smap_dtype_retain(t);
        *out = t;
        return MPI_SUCCESS;
    }
    int rc = shadow(rep, t, out);
    if (!rc && (rc = smap_dtype_commit(*out)) != MPI_SUCCESS) {
        smap_dtype_release(*out);
        rc = smap_failf(rc, "out of memory compiling a file type");
    }
    return rc;
}

int smap_io_datarep_bytes(const struct smap_io_datarep *rep, MPI_Count count, smap_dtype_t *mt,
                          MPI_Count *bytes)
{
    MPI_Count per;
    if (!rep) {
        per = smap_dtype_size(mt);
    } else if (rep->external32) {
        if ((per = smap_dtype_external_size(mt)) < 0)
            return smap_failf(MPI_ERR_NO_MEM, "out of memory compiling a datatype");
    } else {
        smap_dtype_t *s;
        int rc = smap_io_datarep_shadow(rep, mt, &s);
        if (rc)
            return rc;
        per = smap_dtype_size(s);
        smap_dtype_release(s);
    }
    if (__builtin_mul_overflow(count, per, bytes))
        return smap_failf(MPI_ERR_COUNT, "count %lld of the datatype overflows",
                            (long long)count);
    return MPI_SUCCESS;
}

/* ---- conversions ---- */

/* Basic data items in count elements of mt (the callbacks' unit). */
static MPI_Count items(MPI_Count count, smap_dtype_t *mt)
{
    const struct smap_dtype_flat *fl = smap_dtype_typed(mt);
    return fl ? count * fl->nelem : -1;
}

static int callback(const struct smap_io_datarep *rep, int write, void *buf, MPI_Count count,
                    smap_dtype_t *mt, void *fbuf, MPI_Count fbytes)
{
    void *fn = write ? rep->write : rep->read;
    if (!fn) {   /* MPI_CONVERSION_FN_NULL: the file holds the native bytes */
        if (fbytes != count * smap_dtype_size(mt))
            return smap_failf(MPI_ERR_CONVERSION, "\"%s\" has no %s conversion function "
                                "but its file extents differ from the native sizes",
                                rep->name, write ? "write" : "read");
        if (write)
            smap_dtype_pack(buf, count, mt, fbuf, 0, fbytes);
        else
            smap_dtype_unpack(fbuf, fbytes, buf, count, mt, 0);
        return MPI_SUCCESS;
    }
    MPI_Count n = items(count, mt);
    if (n < 0)
        return smap_failf(MPI_ERR_NO_MEM, "out of memory compiling a datatype");
    MPI_Datatype h = smap_dtype_handle(mt);
    int rc;
    if (rep->large) {
        rc = ((MPI_Datarep_conversion_function_c *)fn)(buf, h, n, fbuf, 0, rep->state);
    } else {
        if (n > INT_MAX)
            return smap_failf(MPI_ERR_CONVERSION, "%lld data items do not fit the int count "
                                "of \"%s\"'s conversion function (register it with "
                                "MPI_Register_datarep_c)", (long long)n, rep->name);
        rc = ((MPI_Datarep_conversion_function *)fn)(buf, h, (int)n, fbuf, 0, rep->state);
    }
    if (rc != MPI_SUCCESS)
        return smap_failf(MPI_ERR_CONVERSION, "the %s conversion function of \"%s\" returned "
                            "error %d", write ? "write" : "read", rep->name, rc);
    return MPI_SUCCESS;
}

int smap_io_datarep_to_file(const struct smap_io_datarep *rep, const void *buf, MPI_Count count,
                            smap_dtype_t *mt, void *fbuf, MPI_Count fbytes)
{
    if (rep->external32) {
        int rc = smap_dtype_pack_external(buf, count, mt, fbuf);
        return rc ? smap_failf(rc, "converting to external32 (a value does not fit the "
                                     "external size)")
                  : MPI_SUCCESS;
    }
    return callback(rep, 1, (void *)buf, count, mt, fbuf, fbytes);
}

int smap_io_datarep_from_file(const struct smap_io_datarep *rep, const void *fbuf,
                              MPI_Count fbytes, void *buf, MPI_Count count, smap_dtype_t *mt)
{
    if (rep->external32) {
        int rc = smap_dtype_unpack_external(fbuf, buf, count, mt);
        return rc ? smap_failf(rc, "converting from external32") : MPI_SUCCESS;
    }
    return callback(rep, 0, buf, count, mt, (void *)fbuf, fbytes);
}
