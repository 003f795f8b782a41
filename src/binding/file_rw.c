/* Data access (MPI 5.0 §14.4): explicit offsets (_at), the individual
 * file pointer, collective (_all), nonblocking (i...) and split
 * collective (_begin/_end) forms, each with its _c twin.  Argument checks
 * here; the access in src/io (access.c, collective.c, uring.c).
 *
 * Collective forms: a rank whose arguments are wrong still joins the
 * call's agreement (smap_io_agree), so every rank returns the same class
 * and none waits for it.  Nonblocking collectives and split collectives
 * (not the ordered ones) start the access and return: its steps progress
 * in MPI_Test/MPI_Wait (the request) or at _end. */
#include "binding/file_common.h"
#include "dtype/engine.h"
#include "mpi/status.h"

enum { RW_INDEP, RW_COLL, RW_IINDEP, RW_ICOLL, RW_BEGIN,
       RW_SHARED, RW_ISHARED, RW_ORDERED, RW_OBEGIN };

struct rw {
    const char *F;
    int write, form, at;
    MPI_Offset off;
    void *buf;
    MPI_Count count;
    MPI_Datatype dt;
    MPI_Status *st;
    MPI_Request *req;
};

/* This rank's argument errors: a class with io's why set, or 0. */
static int local_check(struct MPI_ABI_File *f, const struct rw *d, smap_dtype_t **t)
{
    if (d->count < 0)
        return smap_failf(MPI_ERR_COUNT, "count %lld is negative", (long long)d->count);
    if (!(*t = smap_dtype_get(d->dt)))
        return smap_failf(MPI_ERR_TYPE, "datatype is not a valid datatype");
    if (!smap_dtype_committed(*t) && !((*t)->flags & SMAP_DT_PREDEF))
        return smap_failf(MPI_ERR_TYPE, "datatype is not committed");
    if (d->at && d->off < 0)
        return smap_failf(MPI_ERR_ARG, "offset %lld is negative", (long long)d->off);
    if ((d->form == RW_IINDEP || d->form == RW_ICOLL || d->form == RW_ISHARED) && !d->req)
        return smap_failf(MPI_ERR_ARG, "request is NULL");
    if ((d->form == RW_BEGIN || d->form == RW_OBEGIN) && f->split)
        return smap_failf(MPI_ERR_OTHER, "a split collective is already in progress on the "
                                           "file (one at a time per file)");
    return MPI_SUCCESS;
}

static int rw(MPI_File fh, struct rw *d, int split_kind)
{
    struct MPI_ABI_File *f;
    FILE_CHECK(d->F, fh, f);
    if (d->req)
        *d->req = MPI_REQUEST_NULL;
    smap_dtype_t *t = NULL;
    int coll = d->form == RW_COLL || d->form == RW_ICOLL || d->form == RW_BEGIN ||
               d->form == RW_ORDERED || d->form == RW_OBEGIN;
    int ordered = d->form == RW_ORDERED || d->form == RW_OBEGIN;
    int shared = d->form == RW_SHARED || d->form == RW_ISHARED;
    int bad = local_check(f, d, &t);
    MPI_Offset off = d->at ? d->off : -1;
    MPI_Count bytes = 0;
    int rc;
    if (!ordered && (d->form == RW_ICOLL || d->form == RW_BEGIN)) {
        /* started here, finished by the request or _end (a bad rank runs
         * its steps through now and returns the class) */
        rc = d->form == RW_ICOLL
                 ? smap_io_irw_all(f, d->write, off, d->buf, d->count, t, bad, d->req)
                 : smap_io_split_begin(f, d->write, off, d->buf, d->count, t, bad);
        if (rc)
            return smap_file_raise(fh, rc, d->F, "%s", smap_why());
        if (d->form == RW_BEGIN) {
            f->split = split_kind;
            f->split_buf = d->buf;
        }
        return MPI_SUCCESS;
    }
    if (coll && bad && !ordered)   /* joins the collective's own agreement */
        rc = smap_io_rw_all(f, d->write, off, NULL, 0, NULL, &bytes, bad);
    else if (coll && bad)
        rc = smap_io_agree(f, bad);
    else if (bad)
        rc = bad;
    else if (ordered)
        rc = smap_io_rw_ordered(f, d->write, d->buf, d->count, t, &bytes);
    else if (coll)
        rc = smap_io_rw_all(f, d->write, off, d->buf, d->count, t, &bytes, 0);
    else if (shared)
        rc = smap_io_rw_shared(f, d->write, d->buf, d->count, t, &bytes);
    else if (d->form == RW_IINDEP)   /* the request is made there */
        return FILE_DONE(d->F, fh, smap_io_irw(f, d->write, off, d->buf, d->count, t, d->req));
    else
        rc = smap_io_rw(f, d->write, off, d->buf, d->count, t, &bytes);
    if (rc)
        return smap_file_raise(fh, rc, d->F, "%s", smap_why());
    if (d->form == RW_BEGIN || d->form == RW_OBEGIN) {
        f->split = split_kind;
        f->split_bytes = bytes;
        f->split_buf = d->buf;
        return MPI_SUCCESS;
    }
    if (d->form == RW_IINDEP || d->form == RW_ICOLL || d->form == RW_ISHARED)
        return FILE_DONE(d->F, fh, smap_io_request(bytes, d->req));
    if (d->st != MPI_STATUS_IGNORE)
        smap_status_fill(d->st, MPI_ANY_SOURCE, MPI_ANY_TAG, bytes);
    return MPI_SUCCESS;
}

/* MPI_File_*_end: the status of the matching _begin (collective: every
 * rank agrees on a missing or mismatched _begin). */
static int split_end(const char *F, MPI_File fh, const void *buf, int kind, MPI_Status *st)
{
    struct MPI_ABI_File *f;
    FILE_CHECK(F, fh, f);
    int serr = smap_io_split_finish(f);   /* the access begun, if one is */
    int bad = 0;
    if (f->split != kind)
        bad = smap_failf(MPI_ERR_OTHER, f->split ? "the split collective in progress is "
                                                     "another kind"
                                                   : "no matching _begin call");
    else if (buf != f->split_buf)
        bad = smap_failf(MPI_ERR_BUFFER, "buf is not the buffer given to _begin");
    int rc = smap_io_agree(f, bad ? bad : serr);
    if (rc) {
        if (!bad)   /* the access failed (on every rank): the split is over */
            f->split = 0;
        return FILE_DONE(F, fh, rc);
    }
    if (st != MPI_STATUS_IGNORE)
        smap_status_fill(st, MPI_ANY_SOURCE, MPI_ANY_TAG, f->split_bytes);
    f->split = 0;
    f->split_buf = NULL;
    return MPI_SUCCESS;
}

#define RW(name, wr, form, at, off, buf, count, dt, st, req, kind)                          \
    rw(fh, &(struct rw){name, wr, form, at, off, (void *)(buf), count, dt, st, req}, kind)

/* ---- explicit offsets ---- */

int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count,
                      MPI_Datatype datatype, MPI_Status *status)
{
    return RW("MPI_File_read_at", 0, RW_INDEP, 1, offset, buf, count, datatype, status, NULL, 0);
}
int PMPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Status *status)
{
    return RW("MPI_File_read_at_c", 0, RW_INDEP, 1, offset, buf, count, datatype, status, NULL,
              0);
}
int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                       MPI_Datatype datatype, MPI_Status *status)
{
    return RW("MPI_File_write_at", 1, RW_INDEP, 1, offset, buf, count, datatype, status, NULL,
              0);
}
int PMPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Status *status)
{
    return RW("MPI_File_write_at_c", 1, RW_INDEP, 1, offset, buf, count, datatype, status, NULL,
              0);
}
int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                          MPI_Datatype datatype, MPI_Status *status)
{
    return RW("MPI_File_read_at_all", 0, RW_COLL, 1, offset, buf, count, datatype, status, NULL,
              0);
}
int PMPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Status *status)
{
    return RW("MPI_File_read_at_all_c", 0, RW_COLL, 1, offset, buf, count, datatype, status,
              NULL, 0);
}
int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                           MPI_Datatype datatype, MPI_Status *status)
{
    return RW("MPI_File_write_at_all", 1, RW_COLL, 1, offset, buf, count, datatype, status,
              NULL, 0);
}
int PMPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Status *status)
{
    return RW("MPI_File_write_at_all_c", 1, RW_COLL, 1, offset, buf, count, datatype, status,
              NULL, 0);
}

/* ---- individual file pointer ---- */

int PMPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return RW("MPI_File_read", 0, RW_INDEP, 0, 0, buf, count, datatype, status, NULL, 0);
}
int PMPI_File_read_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Status *status)
{
    return RW("MPI_File_read_c", 0, RW_INDEP, 0, 0, buf, count, datatype, status, NULL, 0);
}
int PMPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                    MPI_Status *status)
{
    return RW("MPI_File_write", 1, RW_INDEP, 0, 0, buf, count, datatype, status, NULL, 0);
}
int PMPI_File_write_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Status *status)
{
    return RW("MPI_File_write_c", 1, RW_INDEP, 0, 0, buf, count, datatype, status, NULL, 0);
}
int PMPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                       MPI_Status *status)
{
    return RW("MPI_File_read_all", 0, RW_COLL, 0, 0, buf, count, datatype, status, NULL, 0);
}
int PMPI_File_read_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Status *status)
{
    return RW("MPI_File_read_all_c", 0, RW_COLL, 0, 0, buf, count, datatype, status, NULL, 0);
}
int PMPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                        MPI_Status *status)
{
    return RW("MPI_File_write_all", 1, RW_COLL, 0, 0, buf, count, datatype, status, NULL, 0);
}
int PMPI_File_write_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Status *status)
{
    return RW("MPI_File_write_all_c", 1, RW_COLL, 0, 0, buf, count, datatype, status, NULL, 0);
}

/* ---- nonblocking ---- */

int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count,
                       MPI_Datatype datatype, MPI_Request *request)
{
    return RW("MPI_File_iread_at", 0, RW_IINDEP, 1, offset, buf, count, datatype, NULL, request,
              0);
}
int PMPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Request *request)
{
    return RW("MPI_File_iread_at_c", 0, RW_IINDEP, 1, offset, buf, count, datatype, NULL,
              request, 0);
}
int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                        MPI_Datatype datatype, MPI_Request *request)
{
    return RW("MPI_File_iwrite_at", 1, RW_IINDEP, 1, offset, buf, count, datatype, NULL,
              request, 0);
}
int PMPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Request *request)
{
    return RW("MPI_File_iwrite_at_c", 1, RW_IINDEP, 1, offset, buf, count, datatype, NULL,
              request, 0);
}
int PMPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                    MPI_Request *request)
{
    return RW("MPI_File_iread", 0, RW_IINDEP, 0, 0, buf, count, datatype, NULL, request, 0);
}
int PMPI_File_iread_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Request *request)
{
    return RW("MPI_File_iread_c", 0, RW_IINDEP, 0, 0, buf, count, datatype, NULL, request, 0);
}
int PMPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                     MPI_Request *request)
{
    return RW("MPI_File_iwrite", 1, RW_IINDEP, 0, 0, buf, count, datatype, NULL, request, 0);
}
int PMPI_File_iwrite_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Request *request)
{
    return RW("MPI_File_iwrite_c", 1, RW_IINDEP, 0, 0, buf, count, datatype, NULL, request, 0);
}
int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                           MPI_Datatype datatype, MPI_Request *request)
{
    return RW("MPI_File_iread_at_all", 0, RW_ICOLL, 1, offset, buf, count, datatype, NULL,
              request, 0);
}
int PMPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Request *request)
{
    return RW("MPI_File_iread_at_all_c", 0, RW_ICOLL, 1, offset, buf, count, datatype, NULL,
              request, 0);
}
int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                            MPI_Datatype datatype, MPI_Request *request)
{
    return RW("MPI_File_iwrite_at_all", 1, RW_ICOLL, 1, offset, buf, count, datatype, NULL,
              request, 0);
}
int PMPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Request *request)
{
    return RW("MPI_File_iwrite_at_all_c", 1, RW_ICOLL, 1, offset, buf, count, datatype, NULL,
              request, 0);
}
int PMPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                        MPI_Request *request)
{
    return RW("MPI_File_iread_all", 0, RW_ICOLL, 0, 0, buf, count, datatype, NULL, request, 0);
}
int PMPI_File_iread_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Request *request)
{
    return RW("MPI_File_iread_all_c", 0, RW_ICOLL, 0, 0, buf, count, datatype, NULL, request,
              0);
}
int PMPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                         MPI_Request *request)
{
    return RW("MPI_File_iwrite_all", 1, RW_ICOLL, 0, 0, buf, count, datatype, NULL, request, 0);
}
int PMPI_File_iwrite_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Request *request)
{
    return RW("MPI_File_iwrite_all_c", 1, RW_ICOLL, 0, 0, buf, count, datatype, NULL, request,
              0);
}

/* ---- split collectives ---- */

int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                MPI_Datatype datatype)
{
    return RW("MPI_File_read_at_all_begin", 0, RW_BEGIN, 1, offset, buf, count, datatype, NULL,
              NULL, SMAP_IO_SPLIT_READ_AT);
}
int PMPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                  MPI_Datatype datatype)
{
    return RW("MPI_File_read_at_all_begin_c", 0, RW_BEGIN, 1, offset, buf, count, datatype,
              NULL, NULL, SMAP_IO_SPLIT_READ_AT);
}
int PMPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return split_end("MPI_File_read_at_all_end", fh, buf, SMAP_IO_SPLIT_READ_AT, status);
}
int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                 MPI_Datatype datatype)
{
    return RW("MPI_File_write_at_all_begin", 1, RW_BEGIN, 1, offset, buf, count, datatype, NULL,
              NULL, SMAP_IO_SPLIT_WRITE_AT);
}
int PMPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void *buf,
                                   MPI_Count count, MPI_Datatype datatype)
{
    return RW("MPI_File_write_at_all_begin_c", 1, RW_BEGIN, 1, offset, buf, count, datatype,
              NULL, NULL, SMAP_IO_SPLIT_WRITE_AT);
}
int PMPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return split_end("MPI_File_write_at_all_end", fh, buf, SMAP_IO_SPLIT_WRITE_AT, status);
}
int PMPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype)
{
    return RW("MPI_File_read_all_begin", 0, RW_BEGIN, 0, 0, buf, count, datatype, NULL, NULL,
              SMAP_IO_SPLIT_READ);
}
int PMPI_File_read_all_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype)
{
    return RW("MPI_File_read_all_begin_c", 0, RW_BEGIN, 0, 0, buf, count, datatype, NULL, NULL,
              SMAP_IO_SPLIT_READ);
}
int PMPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return split_end("MPI_File_read_all_end", fh, buf, SMAP_IO_SPLIT_READ, status);
}
int PMPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype)
{
    return RW("MPI_File_write_all_begin", 1, RW_BEGIN, 0, 0, buf, count, datatype, NULL, NULL,
              SMAP_IO_SPLIT_WRITE);
}
int PMPI_File_write_all_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                                MPI_Datatype datatype)
{
    return RW("MPI_File_write_all_begin_c", 1, RW_BEGIN, 0, 0, buf, count, datatype, NULL, NULL,
              SMAP_IO_SPLIT_WRITE);
}
int PMPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return split_end("MPI_File_write_all_end", fh, buf, SMAP_IO_SPLIT_WRITE, status);
}

/* ---- shared file pointer ---- */

int PMPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status)
{
    return RW("MPI_File_read_shared", 0, RW_SHARED, 0, 0, buf, count, datatype, status, NULL,
              0);
}
int PMPI_File_read_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status *status)
{
    return RW("MPI_File_read_shared_c", 0, RW_SHARED, 0, 0, buf, count, datatype, status, NULL,
              0);
}
int PMPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status)
{
    return RW("MPI_File_write_shared", 1, RW_SHARED, 0, 0, buf, count, datatype, status, NULL,
              0);
}
int PMPI_File_write_shared_c(MPI_File fh, const void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Status *status)
{
    return RW("MPI_File_write_shared_c", 1, RW_SHARED, 0, 0, buf, count, datatype, status, NULL,
              0);
}
int PMPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request)
{
    return RW("MPI_File_iread_shared", 0, RW_ISHARED, 0, 0, buf, count, datatype, NULL, request,
              0);
}
int PMPI_File_iread_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Request *request)
{
    return RW("MPI_File_iread_shared_c", 0, RW_ISHARED, 0, 0, buf, count, datatype, NULL,
              request, 0);
}
int PMPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                            MPI_Request *request)
{
    return RW("MPI_File_iwrite_shared", 1, RW_ISHARED, 0, 0, buf, count, datatype, NULL,
              request, 0);
}
int PMPI_File_iwrite_shared_c(MPI_File fh, const void *buf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Request *request)
{
    return RW("MPI_File_iwrite_shared_c", 1, RW_ISHARED, 0, 0, buf, count, datatype, NULL,
              request, 0);
}
int PMPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status)
{
    return RW("MPI_File_read_ordered", 0, RW_ORDERED, 0, 0, buf, count, datatype, status, NULL,
              0);
}
int PMPI_File_read_ordered_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status)
{
    return RW("MPI_File_read_ordered_c", 0, RW_ORDERED, 0, 0, buf, count, datatype, status,
              NULL, 0);
}
int PMPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                            MPI_Status *status)
{
    return RW("MPI_File_write_ordered", 1, RW_ORDERED, 0, 0, buf, count, datatype, status, NULL,
              0);
}
int PMPI_File_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Status *status)
{
    return RW("MPI_File_write_ordered_c", 1, RW_ORDERED, 0, 0, buf, count, datatype, status,
              NULL, 0);
}
int PMPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype)
{
    return RW("MPI_File_read_ordered_begin", 0, RW_OBEGIN, 0, 0, buf, count, datatype, NULL,
              NULL, SMAP_IO_SPLIT_READ_ORDERED);
}
int PMPI_File_read_ordered_begin_c(MPI_File fh, void *buf, MPI_Count count,
                                   MPI_Datatype datatype)
{
    return RW("MPI_File_read_ordered_begin_c", 0, RW_OBEGIN, 0, 0, buf, count, datatype, NULL,
              NULL, SMAP_IO_SPLIT_READ_ORDERED);
}
int PMPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return split_end("MPI_File_read_ordered_end", fh, buf, SMAP_IO_SPLIT_READ_ORDERED, status);
}
int PMPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype)
{
    return RW("MPI_File_write_ordered_begin", 1, RW_OBEGIN, 0, 0, buf, count, datatype, NULL,
              NULL, SMAP_IO_SPLIT_WRITE_ORDERED);
}
int PMPI_File_write_ordered_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                                    MPI_Datatype datatype)
{
    return RW("MPI_File_write_ordered_begin_c", 1, RW_OBEGIN, 0, 0, buf, count, datatype, NULL,
              NULL, SMAP_IO_SPLIT_WRITE_ORDERED);
}
int PMPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return split_end("MPI_File_write_ordered_end", fh, buf, SMAP_IO_SPLIT_WRITE_ORDERED, status);
}
