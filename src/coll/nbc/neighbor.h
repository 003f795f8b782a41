/* The neighbourhood collectives' entry (neighbor.c), called by their
 * generated entry points with the arguments as given (NB_*_ARGS build the
 * struct from each binding's parameters). */
#ifndef SMAP_COLL_NBC_NEIGHBOR_H
#define SMAP_COLL_NBC_NEIGHBOR_H

#include <mpi.h>

#include "coll/coll.h"
#include "coll/entry/entry.h"

enum nbr_kind { NB_ALLGATHER, NB_ALLGATHERV, NB_ALLTOALL, NB_ALLTOALLV, NB_ALLTOALLW };

/* One call's arguments as given by any of the bindings. */
struct nbr {
    const void *sbuf;
    MPI_Count scount;
    struct smap_cvec scounts, sdispls;
    MPI_Datatype stype;
    const MPI_Datatype *stypes;
    void *rbuf;
    MPI_Count rcount;
    struct smap_cvec rcounts, rdispls;
    MPI_Datatype rtype;
    const MPI_Datatype *rtypes;
    smap_dtype_t *st, *rt;   /* resolved by the checks (not for w) */
};

#define NB_ALLGATHER_ARGS(sb, sc, stp, rb, rc, rtp)                                       \
    { .sbuf = (sb), .scount = (sc), .stype = (stp), .rbuf = (rb), .rcount = (rc), .rtype = (rtp) }

#define NB_ALLGATHERV_ARGS(sb, sc, stp, rb, rcs, ds, rtp, CV)                                \
    { .sbuf = (sb), .scount = (sc), .stype = (stp), .rbuf = (rb), .rcounts = CV(rcs),       \
      .rdispls = CV(ds), .rtype = (rtp) }

#define NB_ALLTOALLV_ARGS(sb, scs, sds, stp, rb, rcs, rds, rtp, CV)                          \
    { .sbuf = (sb), .scounts = CV(scs), .sdispls = CV(sds), .stype = (stp), .rbuf = (rb),   \
      .rcounts = CV(rcs), .rdispls = CV(rds), .rtype = (rtp) }

#define NB_ALLTOALLW_ARGS(sb, scs, sds, stps, rb, rcs, rds, rtps, CV)                        \
    /* Alltoallw's displacements are MPI_Aint (bytes) in both bindings */                  \
    { .sbuf = (sb), .scounts = CV(scs), .sdispls = CV_BIG(sds), .stypes = (stps),           \
      .rbuf = (rb), .rcounts = CV(rcs), .rdispls = CV_BIG(rds), .rtypes = (rtps) }

/* Checks, builds one round of a schedule over comm's topology and runs it
 * (nonblocking 0), starts it in *req (1) or hands it back persistent (2);
 * errors raised on comm in the name F. */
int coll_neighbor(const char *F, MPI_Comm comm, struct nbr *a, enum nbr_kind k, MPI_Request *req,
                  int nonblocking);
/* The persistent forms (info: MPI_INFO_NULL or valid). */
int coll_neighbor_init(const char *F, MPI_Comm comm, struct nbr *a, enum nbr_kind k, MPI_Info info,
                       MPI_Request *request);

#endif
