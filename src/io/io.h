/* MPI-IO (DESIGN.md D15): the file object and the interface the bindings
 * call (src/binding/file*.c check the arguments; these functions open,
 * map views and move data over POSIX).
 *
 * Every function returns MPI_SUCCESS or an MPI error class, with
 * smap_why() saying why in words (base/why.h); the binding
 * raises it on the file's error handler (smap_file_raise).  Collective
 * functions agree on the outcome: when one rank fails, every rank returns
 * the same class (D18). */
#ifndef SMAP_IO_IO_H
#define SMAP_IO_IO_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

#include "base/why.h"
#include "dtype/dtype.h"

#define SMAP_FILE_MAGIC 0x46494c45u   /* "FILE" */

struct MPI_ABI_Comm;
struct MPI_ABI_Info;

/* The hints a file keeps (ROMIO's names; MPI_File_get_info reports them).
 * ind_rd/ind_wr_buffer_size size the packing chunk and the sieve of
 * independent reads and writes, romio_ds_read/write switch sieving
 * (access.c); the collective-buffering ones steer two-phase I/O
 * (twophase.c, collective.c). */
struct smap_io_hints {
    long long cb_buffer_size, cb_nodes, ind_rd_buffer_size, ind_wr_buffer_size;
    long long striping_factor, striping_unit;   /* 0: not set */
    char romio_cb_read[16], romio_cb_write[16], romio_ds_read[16], romio_ds_write[16];
    char romio_no_indep_rw[8];
    char cb_config_list[64];
    int cb_given;   /* the program gave cb_nodes or cb_config_list (collective.c:
                     * reads on a node then use them instead of every rank) */
};

/* A data representation other than native/internal (datarep.c):
 * external32, or one registered by the program. */
struct smap_io_datarep {
    struct smap_io_datarep *next;
    char name[MPI_MAX_DATAREP_STRING];
    int external32;
    int large;                            /* registered with MPI_Register_datarep_c */
    void *read, *write;                   /* conversion functions (int or _c), NULL: none */
    MPI_Datarep_extent_function *extent;
    void *state;
};

/* The view (MPI 5.0 §14.3): disp bytes, then the filetype tiled by its
 * extent; offsets count etypes of the stream of the filetype's data.
 * With a representation other than native, the layout is the file
 * shadows' (datarep.c): sizes, extents and the map are in file bytes. */
struct smap_io_view {
    MPI_Offset disp;
    smap_dtype_t *etype, *ftype;          /* the program's, one reference each */
    smap_dtype_t *fet, *fft;              /* their file shadows (the same types for
                                           * native), one reference each */
    const struct smap_io_datarep *rep;    /* NULL: native or internal */
    MPI_Count esize, fsize, fext;         /* etype size, filetype size and extent, in the file */
    const struct smap_dtype_flat *flat;   /* the file filetype's map (cached in the type) */
    int contig;                           /* filetype data is one dense run per tile and
                                           * tiles touch: file offset = base + stream byte */
    MPI_Offset cbase;                     /* contig: file offset of stream byte 0 */
    char datarep[MPI_MAX_DATAREP_STRING];
};

struct MPI_ABI_File {
    uint32_t magic;
    int fd;
    int amode;
    int rank, size;                 /* in the file's communicator */
    MPI_Comm comm;                  /* a duplicate of the one given to open */
    struct MPI_ABI_Comm *c;
    char *path;                     /* as opened (prefix stripped) */
    MPI_Errhandler errhandler;      /* one reference */
    int atomic;                     /* MPI_File_set_atomicity */
    int holes;                      /* some rank's view has holes (agreed at set_view):
                                     * independent writes may sieve (access.c) */
    int memfs;                      /* the file lives in memory only (tmpfs, ramfs: no
                                     * device behind its page cache), from fstatfs at
                                     * open: picks access.c's write-sieving rule */
    MPI_Offset fp;                  /* the individual file pointer, in etypes */
    struct smap_io_view v;
    struct smap_io_hints hints;
    /* the shared file pointer (shared.c): a counter every rank maps, in
     * etypes of the view; NULL when the ranks could not share one */
    _Atomic(long long) *sp;
    /* ... or, when the file's ranks span nodes, a window of one counter
     * on rank 0 that every rank reaches by fetch-and-op (src/rma), in a
     * lock_all epoch from open to close; NULL otherwise */
    MPI_Win spw;
    /* split collective in progress (MPI_File_*_begin ... _end) */
    int split;                      /* 0, or the enum smap_io_split kind */
    int split_err;
    MPI_Count split_bytes;
    const void *split_buf;
    void *split_op;                 /* the access begun, finished at _end (collective.c) */
    void *nbq;                      /* nonblocking collective accesses in flight, in call
                                     * order: only the first runs steps (collective.c) */
};

enum smap_io_split { SMAP_IO_SPLIT_READ_AT = 1, SMAP_IO_SPLIT_WRITE_AT, SMAP_IO_SPLIT_READ,
                     SMAP_IO_SPLIT_WRITE, SMAP_IO_SPLIT_READ_ORDERED, SMAP_IO_SPLIT_WRITE_ORDERED };

/* The object behind a handle, or NULL (MPI_FILE_NULL, closed, garbage). */
static inline struct MPI_ABI_File *smap_file_get(MPI_File h)
{
    struct MPI_ABI_File *f = (struct MPI_ABI_File *)h;
    if ((uintptr_t)h < 65536 || ((uintptr_t)h & 7) || f->magic != SMAP_FILE_MAGIC)
        return NULL;
    return f;
}

/* The error class of a failed system call's errno (MPI 5.0 §14.7). */
int smap_io_errno_class(int err);

/* ---- errors (errhandler.c) ---- */
/* Raises class cls on fh's handler, or on MPI_FILE_NULL's (the default for
 * opens, MPI_ERRORS_RETURN unless set) when fh is no valid file. */
int smap_file_raise(MPI_File fh, int cls, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void smap_file_invoke(MPI_File fh, int code);
/* The handler of MPI_FILE_NULL: new files start with it (one reference
 * held here; get returns it without a new reference). */
MPI_Errhandler smap_file_default_errhandler(void);
void smap_file_set_default_errhandler(MPI_Errhandler eh);

/* ---- open, close, delete, size (file.c), collective over comm ---- */
/* local_err: a class the binding found on this rank (joins the agreement). */
int smap_io_open(struct MPI_ABI_Comm *c, const char *name, int amode,
                 const struct MPI_ABI_Info *info, int local_err, MPI_File *out);
int smap_io_close(MPI_File *fh);
int smap_io_delete(const char *name);
int smap_io_get_size(struct MPI_ABI_File *f, MPI_Offset *size);
int smap_io_set_size(struct MPI_ABI_File *f, MPI_Offset size, int preallocate);
int smap_io_sync(struct MPI_ABI_File *f);
/* Starts the writeback of [off, off + len) of f's page cache, without
 * waiting (sync_file_range): writes call it as they go so that a disk
 * works while the rest is copied and a following MPI_File_sync waits
 * less; a page cache without writeback (tmpfs) ignores it. */
void smap_io_write_behind(struct MPI_ABI_File *f, MPI_Offset off, MPI_Offset len);
/* Large writes go in calls of at most this many bytes, each followed by
 * its write-behind (access.c's pio, twophase.c's direct windows). */
#define SMAP_IO_WRITE_BEHIND_STEP ((MPI_Offset)2 << 20)
int smap_io_set_atomicity(struct MPI_ABI_File *f, int flag);
/* Every rank of f's communicator passes its class; all get the first
 * nonzero one (by value: the largest).  A barrier when all are 0. */
int smap_io_agree(struct MPI_ABI_File *f, int cls);
/* The same, also checking that v is the same on every rank
 * (MPI_ERR_NOT_SAME naming `what` otherwise). */
int smap_io_agree_value(struct MPI_ABI_File *f, long long v, int cls, const char *what);

/* ---- collectives on the file's communicator (coll.c) ---- */
/* Element-wise MAX of n 64-bit integers. */
int smap_io_max(struct MPI_ABI_Comm *c, const long long *in, long long *out, int n);
int smap_io_bcast(void *buf, MPI_Count count, MPI_Datatype type, int root,
                  struct MPI_ABI_Comm *c);
/* One 64-bit integer from every rank, in rank order. */
int smap_io_allgather(const long long *mine, long long *all, struct MPI_ABI_Comm *c);
/* Alltoallv as coll/coll.h's struct smap_a2a describes it. */
struct smap_a2a;
int smap_io_a2a(const struct smap_a2a *a, struct MPI_ABI_Comm *c);
/* n of them from every rank, in rank order. */
int smap_io_allgather_n(const long long *mine, int n, long long *all, struct MPI_ABI_Comm *c);

/* ---- hints (hints.c) ---- */
void smap_io_hints_default(struct smap_io_hints *h);
void smap_io_hints_set(struct smap_io_hints *h, const struct MPI_ABI_Info *info);
struct MPI_ABI_Info *smap_io_hints_get(const struct smap_io_hints *h);

/* ---- views (view.c) ---- */
/* Sets the default view (disp 0, MPI_BYTE, MPI_BYTE, "native"). */
void smap_io_view_default(struct smap_io_view *v);
void smap_io_view_release(struct smap_io_view *v);
/* Collective: checks etype/filetype/datarep, replaces the view, resets
 * the individual pointer. */
int smap_io_set_view(struct MPI_ABI_File *f, MPI_Offset disp, smap_dtype_t *etype,
                     smap_dtype_t *ftype, const char *datarep, const struct MPI_ABI_Info *info);
/* The file offset of view stream byte s and how many bytes from there
 * are contiguous in the file (at most max). */
MPI_Offset smap_io_view_map(const struct smap_io_view *v, MPI_Offset s, MPI_Offset max,
                            MPI_Offset *avail);
/* View stream bytes that lie below file offset size (where the view's
 * data reaches the end of a file of that size). */
MPI_Offset smap_io_view_bytes_below(const struct smap_io_view *v, MPI_Offset size);
int smap_io_seek(struct MPI_ABI_File *f, MPI_Offset off, int whence);
/* MPI_File_get_type_extent: t's extent in the file under the view's
 * data representation. */
int smap_io_type_extent(const struct MPI_ABI_File *f, smap_dtype_t *t, MPI_Count *extent);

/* ---- data representations (datarep.c) ---- */
/* MPI_Register_datarep(_c): rd/wr are conversion functions of the int or
 * (large) the _c kind, NULL for MPI_CONVERSION_FN_NULL. */
int smap_io_datarep_register(const char *name, void *rd, void *wr,
                             MPI_Datarep_extent_function *ext, void *state, int large);
/* The representation named (NULL for native and internal). */
int smap_io_datarep_find(const char *name, struct smap_io_datarep **out);
/* t laid out in the file under rep (a new reference; t itself for NULL). */
int smap_io_datarep_shadow(const struct smap_io_datarep *rep, smap_dtype_t *t,
                           smap_dtype_t **out);
/* File bytes of count elements of memory type mt under rep. */
int smap_io_datarep_bytes(const struct smap_io_datarep *rep, MPI_Count count, smap_dtype_t *mt,
                          MPI_Count *bytes);
/* Memory (buf, count, mt) -> fbytes of file representation, and back. */
int smap_io_datarep_to_file(const struct smap_io_datarep *rep, const void *buf, MPI_Count count,
                            smap_dtype_t *mt, void *fbuf, MPI_Count fbytes);
int smap_io_datarep_from_file(const struct smap_io_datarep *rep, const void *fbuf,
                              MPI_Count fbytes, void *buf, MPI_Count count, smap_dtype_t *mt);

/* ---- data access (access.c) ---- */
/* Reads or writes count elements of (buf, mt) at view offset off
 * (etypes); off < 0: at the individual pointer, which then advances.
 * *bytes: stream bytes moved (reads stop short at the end of file). */
int smap_io_rw(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf, MPI_Count count,
               smap_dtype_t *mt, MPI_Count *bytes);
/* The same, collective over f's communicator (twophase.c: two-phase
 * with node aggregation where it applies, else each rank's own access):
 * every rank gets the same class.  bad: an argument error this rank found
 * (buf, count, mt unused then): it takes the collective's steps and every
 * rank returns that class. */
int smap_io_rw_all(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf,
                   MPI_Count count, smap_dtype_t *mt, MPI_Count *bytes, int bad);

/* The access mode allows this access (seq_ok: shared-pointer calls, the
 * only ones MPI_MODE_SEQUENTIAL files take). */
int smap_io_access_check(struct MPI_ABI_File *f, int write, int seq_ok);
/* Whether a rank's independent write of f may sieve (read-modify-write of
 * a span with holes), so that every plain write of f must hold a shared
 * lock of its range meanwhile (access.c; uring.c leaves such writes to
 * access.c). */
int smap_io_write_sieving(const struct MPI_ABI_File *f);
/* smap_io_rw at explicit offset off, allowed on sequential files (the
 * shared-pointer calls' access once they have their offset). */
int smap_io_rw_at(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf, MPI_Count count,
                  smap_dtype_t *mt, MPI_Count *bytes);

/* Private scratch memory (scratch.c): at least len bytes (*got: the
 * length to give back), or NULL; put returns it to the process's pool. */
char *smap_io_scratch_get(size_t len, size_t *got);
void smap_io_scratch_put(char *p, size_t len);

/* The number of aggregators of f's collective buffering for a wanted
 * cb_nodes (twophase.c): what MPI_File_get_info reports. */
int smap_io_cb_nodes(const struct MPI_ABI_File *f, long long want);
/* Collective: takes info's hints (may be NULL), makes rank 0's values
 * every rank's, then sets cb_nodes to what is in effect (aggregators). */
void smap_io_hints_apply(struct MPI_ABI_File *f, const struct MPI_ABI_Info *info);

/* ---- the shared file pointer (shared.c) ---- */
/* Collective, at open: the counter, set to `initial`; a file whose ranks
 * cannot all map it gets none (f->sp NULL; never an error). */
int smap_io_shared_create(struct MPI_ABI_File *f, MPI_Offset initial);
void smap_io_shared_free(struct MPI_ABI_File *f);
/* Collective: rank 0 sets the counter to `to`, then every rank agrees. */
int smap_io_shared_reset(struct MPI_ABI_File *f, MPI_Offset to);
/* The counter now (0 when the file has none): MPI_DISPLACEMENT_CURRENT. */
MPI_Offset smap_io_shared_peek(struct MPI_ABI_File *f);
int smap_io_rw_shared(struct MPI_ABI_File *f, int write, void *buf, MPI_Count count,
                      smap_dtype_t *mt, MPI_Count *bytes);
/* Collective, in rank order. */
int smap_io_rw_ordered(struct MPI_ABI_File *f, int write, void *buf, MPI_Count count,
                       smap_dtype_t *mt, MPI_Count *bytes);
int smap_io_seek_shared(struct MPI_ABI_File *f, MPI_Offset off, int whence);
int smap_io_position_shared(struct MPI_ABI_File *f, MPI_Offset *off);

/* The nonblocking independent calls (uring.c): submitted to io_uring
 * where it fits (a request completing later), else done at once (a
 * request already complete). */
int smap_io_irw(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf, MPI_Count count,
                smap_dtype_t *mt, MPI_Request *req);

/* One write submitted to io_uring (uring.c): a handle, or NULL when there
 * is no ring or no room (the caller writes itself); wait returns the bytes
 * written or -errno. */
void *smap_io_uring_write(int fd, const void *buf, MPI_Offset len, MPI_Offset off);
long long smap_io_uring_wait(void *h);

/* The nonblocking collectives and split collectives (collective.c): the
 * access driven by the request's polls (two-phase steps, each collective
 * of them nonblocking), completing as MPI_Test/MPI_Wait progress it.
 * bad: as smap_io_rw_all; then the request is made anyway (the others
 * wait on it) and completes with that class. */
int smap_io_irw_all(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf,
                    MPI_Count count, smap_dtype_t *mt, int bad, MPI_Request *req);

/* Split collectives (collective.c): _begin starts the access (its steps
 * progress at _end; a rank arriving early does not wait in _begin), _end
 * finishes it (f->split_bytes), the op's agreed class. */
int smap_io_split_begin(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf,
                        MPI_Count count, smap_dtype_t *mt, int bad);
int smap_io_split_finish(struct MPI_ABI_File *f);

/* A request already complete with `bytes` in its status (the nonblocking
 * calls do their access at start). */
int smap_io_request(MPI_Count bytes, MPI_Request *req);

#endif
