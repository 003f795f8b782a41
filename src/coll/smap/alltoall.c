/* MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw over SMARTMAP: every rank
 * publishes its send buffer (or stages one slot per destination) and pulls
 * its block from every peer at the same time (xfer.c).  MPI_IN_PLACE: the
 * data come from the receive buffer, which is overwritten while peers
 * still need it, so every source stages: chunk r of a block is packed
 * before anyone overwrites it in the same step. */
#include "coll/smap/xfer.h"

#include <string.h>

#include "base/compiler.h"

static void side(const struct smap_a2a *a, int recv, int j, struct xblk *b)
{
    const void *buf = recv ? a->rbuf : a->sbuf;
    MPI_Count n = recv ? a->rcount : a->scount;
    struct smap_cvec counts = recv ? a->rcounts : a->scounts;
    struct smap_cvec displs = recv ? a->rdispls : a->sdispls;
    const MPI_Datatype *types = recv ? a->rtypes : a->stypes;
    smap_dtype_t *t = recv ? a->rt : a->st;
    MPI_Count off;
    if (types) {   /* Alltoallw: byte displacements, a type per peer */
        t = smap_dtype_stored(types[j]);
        n = smap_cvec_at(counts, j);
        off = smap_cvec_at(displs, j);
    } else if (counts.p) {
        n = smap_cvec_at(counts, j);
        off = smap_cvec_at(displs, j) * t->extent;
    } else {
        off = (MPI_Count)j * n * t->extent;
    }
    *b = (struct xblk){ (const char *)buf + off, n, t };
}

static int a2a_src(const struct xfer *x, int j, struct xblk *b)
{
    const struct smap_a2a *a = x->arg;
    side(a, a->sbuf == MPI_IN_PLACE, j, b);
    return 1;
}

static int a2a_dst(const struct xfer *x, int i, struct xblk *b)
{
    side(x->arg, 1, i, b);
    return 1;
}

static void a2a_self(const struct xfer *x)
{
    const struct smap_a2a *a = x->arg;
    if (a->sbuf == MPI_IN_PLACE)
        return;
    struct xblk sb, rb;
    side(a, 0, x->s->me, &sb);
    side(a, 1, x->s->me, &rb);
    smap_dtype_copy((void *)rb.buf, rb.count, rb.t, sb.buf, sb.count, sb.t);
}

/* Wide lines each destination gets in a source's wide cell (0: none).
 * At most A2A_WIDE_MAX: measured at 2 ranks (vs the payload path), 64 B
 * took 0.19 us against 0.23, 128 B 0.21 against 0.24, 256 B (5 lines)
 * the same, 512 B 0.31 against 0.26: beyond a few lines the separate
 * stores and polls cost more than the one serial transfer they save. */
#define A2A_WIDE_MAX 5
static int wide_lines_per_dest(int n)
{
    int l = CSM_WIDE_LINES / (n - 1);
    return l < A2A_WIDE_MAX ? l : A2A_WIDE_MAX;
}

/* A plain MPI_Alltoall whose blocks are too big for the cell but fit the
 * wide cell (csm.h): every rank writes the block of each destination into
 * that destination's lines of its wide cell of step t, each line with t
 * after its data, publishes t in its cell (the step rules hold as for a
 * cell), then copies its blocks out of every source's lines once they all
 * show t.  One step, no descriptor, and a reader that arrives late finds
 * all its lines at once.  Sources pack everything before they write
 * anything of their own, so MPI_IN_PLACE needs nothing more.  Every rank
 * takes this path or not from values all share (block bytes, size,
 * SMAP_COLL_ALGO). */
static int a2a_wide(struct csm_comm *s, const struct smap_a2a *a, MPI_Count bytes)
{
    int rc = csm_prepare_cell(s);
    if (rc)
        return rc;
    uint64_t t = csm_next(s);
    int lpd = wide_lines_per_dest(s->n), nl = xblk_wide_lines(bytes);
    int in_place = a->sbuf == MPI_IN_PLACE;
    struct csm_wline *mine = csm_wide(s, s->me, t);
    /* for the others' check (issue 36): stored before the lines, whose
     * release stores bring it to a reader that sees them */
    uint64_t my_meta = csm_meta_other((uint64_t)bytes, 0);
    uint64_t stamp = xblk_wide_stamp(t, bytes);
    csm_cell(s, s->me, t)->meta = my_meta;
    for (int j = 0; j < s->n; j++) {
        if (j == s->me)
            continue;
        struct xblk b;
        side(a, in_place, j, &b);
        xblk_wide_write(&b, mine + (j < s->me ? j : j - 1) * lpd, bytes, stamp);
    }
    if (!in_place) {
        struct xfer x = { .s = s, .arg = a };
        a2a_self(&x);
    }
    csm_publish(s);
    int differ = 0, other_path = 0, more = 0;
    for (int k = 1; k < s->n; k++) {
        int i = (s->me + k) % s->n;   /* destinations spread over the sources */
        const struct csm_wline *l = csm_wide(s, i, t) + (s->me < i ? s->me : s->me - 1) * lpd;
        /* Lines that show (t, our block's size) are ours to read.  Else
         * the cell's step, stored after every line, brings the wait
         * policy and the dead-peer check, and its meta says whether the
         * source sent another size or took xfer.c's path: its lines are
         * not ours to read (issue 36). */
        if (!xblk_wide_ready(l, nl, stamp)) {
            if ((rc = csm_wait(s, i, t)))
                return rc;
            uint64_t m = csm_cell(s, i, t)->meta;
            if (SMAP_UNLIKELY(m != my_meta)) {
                differ = 1;
                other_path |= !(m & CSM_META_OTHER);
                more |= (m >> 32) > (uint64_t)bytes;
                continue;
            }
        }
        struct xblk b;
        side(a, 1, i, &b);
        xblk_wide_read(l, &b, bytes);
    }
    if (SMAP_UNLIKELY(differ)) {
        /* members on xfer.c's path take more steps: take them too */
        if (other_path && (rc = csm_xfer_follow(s, t, -1)))
            return rc;
        return more ? smap_fail(MPI_ERR_TRUNCATE, "a rank sent a larger block than this rank's "
                                                 "receive block holds (counts or types differ)")
                    : smap_fail(MPI_ERR_OTHER, "a rank sent a smaller block than this rank "
                                              "expected (counts or types differ)");
    }
    return MPI_SUCCESS;
}

int smap_cb_alltoall(const struct smap_a2a *a, smap_comm_t *c)
{
    struct csm_comm *s;
    struct xfer x = { .id = SMAP_COLL_ALLTOALL, .same = 0, .src = a2a_src, .dst = a2a_dst,
                      .self = a2a_self, .arg = a, .force_stage = a->sbuf == MPI_IN_PLACE,
                      .vec = a->scounts.p || a->rcounts.p || a->stypes || a->rtypes };
    if (c->size == 1) {
        x.s = &(struct csm_comm){ .n = 1, .me = 0 };
        a2a_self(&x);
        return MPI_SUCCESS;
    }
    int rc = csm_get(c, &s);
    if (rc)
        return rc;
    x.s = s;
    if (!a->rcounts.p && !a->rtypes && s->n > 1) {
        /* plain alltoall: every block has the same bytes on every rank */
        MPI_Count bytes = a->rcount * a->rt->size;
        size_t cell_slot = (CSM_CELL_BYTES / (size_t)(s->n - 1)) & ~(size_t)7;
        if ((size_t)bytes > cell_slot &&
            bytes <= (MPI_Count)wide_lines_per_dest(s->n) * (MPI_Count)CSM_WLINE_BYTES &&
            smap_coll_select(SMAP_COLL_ALLTOALL, (size_t)bytes, s->n) == SMAP_ALGO_INLINE)
            return a2a_wide(s, a, bytes);
    }
    return csm_xfer(&x);
}
