/* The datatype engine: what point-to-point, collectives and RMA call to
 * move typed data (src/dtype/README.md).
 *
 * A "stream" is the packed form of `count` elements of a type: its bytes
 * in type-map order, element after element (MPI's packed representation,
 * native byte order).  Every function takes a resolved datatype object
 * (smap_dtype_get), already checked by the caller; the type must be
 * committed or at least complete (an uncommitted type is compiled on first
 * use).  Counts are not checked for overflow here: count * size must fit an
 * MPI_Count (the binding checks).  None of these functions raise MPI
 * errors; the ones that can fail return an MPI error class. */
#ifndef SMAP_DTYPE_ENGINE_H
#define SMAP_DTYPE_ENGINE_H

#include <mpi.h>

#include "dtype/dtype.h"

/* ---- queries ---- */
static inline MPI_Count smap_dtype_size(const smap_dtype_t *t) { return t->size; }
static inline MPI_Count smap_dtype_extent(const smap_dtype_t *t) { return t->extent; }
static inline MPI_Count smap_dtype_lb(const smap_dtype_t *t) { return t->lb; }
/* True when `count` elements of t, for any count, are one dense block of
 * count*size bytes starting at buf + smap_dtype_data_offset(t) (committed
 * types only; predefined basic types always). */
static inline int smap_dtype_is_contiguous(const smap_dtype_t *t)
{
    return (t->flags & SMAP_DT_CONTIG) != 0;
}
/* Offset of the first data byte from the buffer pointer (contiguous types:
 * where the dense block starts; usually 0, e.g. != 0 after create_resized). */
MPI_Aint smap_dtype_data_offset(smap_dtype_t *t);

/* ---- packing (resumable: pipelines call them chunk after chunk) ----
 * smap_dtype_pack copies the stream bytes [offset, offset + max) of `count`
 * elements of t laid out at `src` into dst[0 ..].  Returns how many bytes it
 * copied: min(max, count*size - offset), 0 at or past the end. */
MPI_Count smap_dtype_pack(const void *src, MPI_Count count, smap_dtype_t *t, void *dst,
                          MPI_Count offset, MPI_Count max);
/* The reverse: src[0 .. len) holds the stream bytes [offset, offset + len)
 * of `count` elements of t; scatters them into the layout at dst.  Returns
 * how many bytes it consumed: min(len, count*size - offset). */
MPI_Count smap_dtype_unpack(const void *src, MPI_Count len, void *dst, MPI_Count count,
                            smap_dtype_t *t, MPI_Count offset);

/* ---- type-to-type copy: no intermediate buffer ----
 * Moves the stream of (scount, stype) at src into the layout of
 * (dcount, dtype) at dst, walking both compiled type maps together (the
 * two buffers are plain pointers: our own memory, or a peer's reached
 * through SMARTMAP).  Copies min(scount*ssize, dcount*dsize) bytes and
 * returns that number; the caller compares it with the source size to
 * detect truncation.  Type signatures are not checked (MPI says they must
 * match). */
MPI_Count smap_dtype_copy(void *dst, MPI_Count dcount, smap_dtype_t *dtype, const void *src,
                          MPI_Count scount, smap_dtype_t *stype);
/* Same for the stream bytes [offset, offset + max) only (slices of one
 * copy done by several ranks, or pipelined).  Returns the bytes copied. */
MPI_Count smap_dtype_copy_range(void *dst, MPI_Count dcount, smap_dtype_t *dtype,
                                const void *src, MPI_Count scount, smap_dtype_t *stype,
                                MPI_Count offset, MPI_Count max);

/* ---- element counting (MPI_Get_count / MPI_Get_elements) ----
 * Basic elements in the first `bytes` bytes of a stream of t, or
 * MPI_UNDEFINED when `bytes` ends inside a basic element; -1 - MPI error
 * class on failure (out of memory). */
MPI_Count smap_dtype_elements(smap_dtype_t *t, MPI_Count bytes);

/* ---- external32 (MPI_Pack_external: big-endian, standard sizes) ---- */
/* external32 bytes of one element of t, or -1 when out of memory. */
MPI_Count smap_dtype_external_size(smap_dtype_t *t);
/* Whole-buffer conversions; return MPI_SUCCESS or an error class. */
int smap_dtype_pack_external(const void *src, MPI_Count count, smap_dtype_t *t, void *dst);
int smap_dtype_unpack_external(const void *src, void *dst, MPI_Count count, smap_dtype_t *t);

/* Fills the table of predefined datatypes; idempotent, thread-safe.  Run at
 * load time and again by MPI_Init, so no use can precede it. */
void smap_dtype_init(void);

/* ---- MPI_Pack, MPI_Unpack, MPI_Pack_size and the external32 forms, with
 * their checks (pack_api.c): MPI_SUCCESS or an error class, the reason
 * recorded (base/why.h); the position advances only on success.  The
 * _int/_aint forms are the normal bindings' integer types. ---- */
int smap_dtype_pack_at(const void *inbuf, MPI_Count incount, smap_dtype_t *t, void *outbuf,
                       MPI_Count outsize, MPI_Count *position);
int smap_dtype_pack_at_int(const void *inbuf, int incount, smap_dtype_t *t, void *outbuf,
                           int outsize, int *position);
int smap_dtype_unpack_at(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                         MPI_Count outcount, smap_dtype_t *t);
int smap_dtype_unpack_at_int(const void *inbuf, int insize, int *position, void *outbuf,
                             int outcount, smap_dtype_t *t);
int smap_dtype_pack_size_of(MPI_Count incount, const smap_dtype_t *t, MPI_Count *size);
int smap_dtype_pack_size_int(int incount, const smap_dtype_t *t, int *size);
int smap_dtype_pack_ext(const char *datarep, const void *inbuf, MPI_Count incount,
                        smap_dtype_t *t, void *outbuf, MPI_Count outsize, MPI_Count *position);
int smap_dtype_pack_ext_aint(const char *datarep, const void *inbuf, int incount,
                             smap_dtype_t *t, void *outbuf, MPI_Aint outsize, MPI_Aint *position);
int smap_dtype_unpack_ext(const char *datarep, const void *inbuf, MPI_Count insize,
                          MPI_Count *position, void *outbuf, MPI_Count outcount, smap_dtype_t *t);
int smap_dtype_unpack_ext_aint(const char *datarep, const void *inbuf, MPI_Aint insize,
                               MPI_Aint *position, void *outbuf, int outcount, smap_dtype_t *t);
int smap_dtype_ext_size(const char *datarep, MPI_Count incount, smap_dtype_t *t, MPI_Count *size);
int smap_dtype_ext_size_aint(const char *datarep, int incount, smap_dtype_t *t, MPI_Aint *size);

#endif
