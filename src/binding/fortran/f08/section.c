/* mpi_f08's choice buffers (MPI 5.0 §19.1.2): TYPE(*), DIMENSION(..)
 * arrives as an ISO_Fortran_binding descriptor.  A contiguous one is its
 * base address (MPI_BOTTOM and MPI_IN_PLACE recognised as in mpif.h).  A
 * non-contiguous array section that goes with a (count, datatype) pair is
 * described by a datatype built on top of the user's -- nested hvectors over
 * the descriptor's strides when count covers the whole section, else an
 * hindexed_block of the first count elements -- so that the call takes
 * (base, 1, that type): no copy, and a nonblocking call may return at once
 * (the library holds its own reference to the type; the wrapper frees its
 * handle right after the call).  The section's elements must then have the
 * datatype's size and extent (the usual case: MPI_REAL on a REAL array). */
#include <ISO_Fortran_binding.h>
#include <stdlib.h>
#include <string.h>

#include "binding/fortran/f08/f08.h"
#include "mpi/request_hook.h"

int smap_f08_contig(MPI_Comm comm, const char *func, const char *arg, CFI_cdesc_t *d,
                    int address_only, void **base)
{
    *base = smap_f_buf(d->base_addr);
    if (d->rank == 0 || address_only || smap_f08_contiguous(d))
        return MPI_SUCCESS;
    return smap_f_raise(comm, MPI_ERR_BUFFER, func,
                        "argument %s is a non-contiguous array section, which this "
                        "procedure takes only contiguous (pass a contiguous copy)", arg);
}

/* Byte offset of element i (Fortran order) of the section. */
static MPI_Aint elem_offset(const CFI_cdesc_t *d, MPI_Count i)
{
    MPI_Aint off = 0;
    for (int r = 0; r < d->rank; r++) {
        MPI_Count n = d->dim[r].extent;
        off += (MPI_Aint)(i % n) * d->dim[r].sm;
        i /= n;
    }
    return off;
}

int smap_f08_section_slow(MPI_Comm comm, const char *func, CFI_cdesc_t *d, void **base,
                          MPI_Count *count, MPI_Datatype *dt, MPI_Datatype *made)
{
    *made = MPI_DATATYPE_NULL;
    *base = smap_f_buf(d->base_addr);
    if (*base == MPI_BOTTOM || *base == MPI_IN_PLACE)
        return MPI_SUCCESS;
    MPI_Count size = 0, lb = 0, extent = 0, n = 1;
    if (PMPI_Type_size_c(*dt, &size) != MPI_SUCCESS ||
        PMPI_Type_get_extent_c(*dt, &lb, &extent) != MPI_SUCCESS)
        return MPI_SUCCESS;   /* a bad datatype: the call itself reports it */
    if (size != (MPI_Count)d->elem_len || extent != (MPI_Count)d->elem_len || lb != 0)
        return smap_f_raise(comm, MPI_ERR_TYPE, func,
                            "a non-contiguous array section of %zu-byte elements needs a "
                            "datatype of that size and extent (this one: size %lld, "
                            "extent %lld)", d->elem_len, (long long)size, (long long)extent);
    for (int r = 0; r < d->rank; r++)
        n *= d->dim[r].extent;
    if (*count > n)
        return smap_f_raise(comm, MPI_ERR_COUNT, func,
                            "count %lld exceeds the %lld elements of the array section",
                            (long long)*count, (long long)n);
    MPI_Datatype t = *dt;
    int rc = MPI_SUCCESS;
    if (*count == n) {
        for (int r = 0; r < d->rank && rc == MPI_SUCCESS; r++) {
            MPI_Datatype next;
            rc = PMPI_Type_create_hvector_c(d->dim[r].extent, 1, d->dim[r].sm, t, &next);
            if (t != *dt)
                PMPI_Type_free(&t);
            t = next;
        }
    } else {
        MPI_Count *disp = malloc((size_t)(*count > 0 ? *count : 1) * sizeof *disp);
        if (!disp)
            return smap_f_nomem(func);
        for (MPI_Count i = 0; i < *count; i++)
            disp[i] = elem_offset(d, i);
        rc = PMPI_Type_create_hindexed_block_c(*count, 1, disp, *dt, &t);
        free(disp);
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_commit(&t);
    if (rc != MPI_SUCCESS)
        return rc;
    *made = *dt = t;
    *count = 1;
    return MPI_SUCCESS;
}


/* ---- sections through a contiguous temporary ---------------------------- */
/* What the copy needs of the descriptor: the caller's descriptor is gone
 * when a nonblocking call completes. */
struct smap_f08_tmp {
    struct smap_f08_tmp *next;
    char *user;                      /* the section's first element */
    char *buf;                       /* the temporary: n elements in Fortran order */
    size_t elem_len;
    MPI_Count n;
    int rank, out;
    CFI_index_t extent[CFI_MAX_RANK], sm[CFI_MAX_RANK];
};

/* Section <-> temporary, element by element in Fortran order (a run of
 * dimension 0 at a time when its elements are adjacent). */
static void walk(const struct smap_f08_tmp *t, int back)
{
    size_t run = t->elem_len;
    int r0 = 0;
    if (t->sm[0] == (CFI_index_t)t->elem_len) {
        run *= (size_t)t->extent[0];
        r0 = 1;
    }
    MPI_Count runs = t->n / (MPI_Count)(run / t->elem_len);
    CFI_index_t idx[CFI_MAX_RANK] = {0};
    char *u = t->user, *b = t->buf;
    for (MPI_Count i = 0; i < runs; i++, b += run) {
        if (back)
            memcpy(u, b, run);
        else
            memcpy(b, u, run);
        for (int r = r0; r < t->rank; r++) {   /* the next run: an odometer */
            u += t->sm[r];
            if (++idx[r] < t->extent[r])
                break;
            u -= t->sm[r] * t->extent[r];
            idx[r] = 0;
        }
    }
}

int smap_f08_copy_slow(MPI_Comm comm, const char *func, CFI_cdesc_t *d, int out, void **base,
                       struct smap_f08_tmp **list)
{
    (void)comm;
    struct smap_f08_tmp *t = malloc(sizeof *t);
    if (!t)
        return smap_f_nomem(func);
    t->user = d->base_addr;
    t->elem_len = d->elem_len;
    t->rank = d->rank;
    t->out = out;
    t->n = 1;
    for (int r = 0; r < d->rank; r++) {
        t->extent[r] = d->dim[r].extent;
        t->sm[r] = d->dim[r].sm;
        t->n *= d->dim[r].extent;
    }
    t->buf = malloc(t->n > 0 ? (size_t)t->n * t->elem_len : 1);
    if (!t->buf) {
        free(t);
        return smap_f_nomem(func);
    }
    if (t->n > 0)
        walk(t, 0);   /* also for output buffers: what the call leaves alone goes back unchanged */
    t->next = *list;
    *list = t;
    *base = t->buf;
    return MPI_SUCCESS;
}

static void copy_out(struct smap_f08_tmp *list)
{
    for (struct smap_f08_tmp *t = list; t; t = t->next)
        if (t->out && t->n > 0)
            walk(t, 1);
}

static void release(void *ctx)
{
    for (struct smap_f08_tmp *t = ctx, *next; t; t = next) {
        next = t->next;
        free(t->buf);
        free(t);
    }
}

/* A persistent request's start: the sections' current contents. */
static void hook_start(void *ctx)
{
    for (struct smap_f08_tmp *t = ctx; t; t = t->next)
        if (t->n > 0)
            walk(t, 0);
}

static void hook_finish(void *ctx, int err)
{
    if (err == MPI_SUCCESS)
        copy_out(ctx);
}

static const struct smap_req_hook section_hook = {hook_start, hook_finish, release};

void smap_f08_copy_end(struct smap_f08_tmp *list, int rc, const MPI_Request *req)
{
    if (!list)
        return;
    if (req && rc == MPI_SUCCESS && *req != MPI_REQUEST_NULL &&
        smap_f_request_hook(*req, &section_hook, list) == MPI_SUCCESS)
        return;
    if (rc == MPI_SUCCESS)
        copy_out(list);
    release(list);
}
