/* The data-movement engine (xfer.h).
 *
 * Step one: every source decides, from its own blocks only, how peers get
 * them: through a view (contiguous and exposed), with CMA (contiguous, not
 * exposed, CMA allowed: the copy engine's kernel single copy), or staged
 * in its control block (small per select.c, not contiguous, unreachable,
 * or forced), and publishes that decision with either the first chunk of
 * every block in its payload or the dense address of every block in its
 * descriptor, plus the number of chunks it needs.  After the sync all ranks
 * read all descriptors, so they agree on the number of further chunk steps
 * (the largest any source needs) and on whether a closing sync is needed
 * (some source let peers read its user buffer).  Destinations copy out in
 * parallel: each pulls its own blocks.
 *
 * Chunks: a source that sends the same block to everyone uses the whole
 * payload as one slot; otherwise slot j of size payload/n holds the chunk
 * for destination j. */
#include "coll/smap/xfer.h"

#include <string.h>

#include "base/compiler.h"

enum { F_STAGED = CSM_F_STAGED, F_DIRECT = CSM_F_DIRECT_OK, F_CMA = CSM_F_CMA, F_CELL = 8u,
       F_ERR = 16u };

/* A source's step-one meta: flags, rounds, and the bytes of its largest
 * block (what a destination compares with its own block to report
 * truncation: the cell line brings it with the step, at no cost).  Bytes
 * saturate at 32 bits; blocks that large go direct, whose exact sizes are
 * in the descriptor, or are not checked. */
#define META_ROUNDS(m) (((m) >> 8) & 0xffffffu)
#define META_BYTES(m) ((m) >> 32)
static uint64_t meta_of(uint64_t flags, uint64_t rounds, MPI_Count maxb)
{
    uint64_t b = (uint64_t)maxb < 0xffffffffu ? (uint64_t)maxb : 0xffffffffu;
    return flags | rounds << 8 | b << 32;
}

/* Tiny blocks travel in the source's cell (csm.h), next to the step that
 * publishes them: the whole cell for a block sent to everyone, else one
 * slot per destination other than the source. */
static size_t cell_slot(const struct xfer *x)
{
    return x->same ? CSM_CELL_BYTES : (CSM_CELL_BYTES / (size_t)(x->s->n - 1)) & ~(size_t)7;
}
static size_t cell_at(const struct xfer *x, int src, int dst)
{
    return x->same ? 0 : (size_t)(dst < src ? dst : dst - 1) * cell_slot(x);
}

/* smap_dtype_pack / smap_dtype_unpack of a block, with a plain copy for
 * a contiguous one (the common case, and the small transfers' cost). */
static void put(const struct xblk *b, void *to, MPI_Count off, MPI_Count max)
{
    if (smap_dtype_is_contiguous(b->t)) {
        MPI_Count total = xblk_bytes(b);
        if (off < total)
            memcpy(to, csm_dense(b->buf, b->t) + off, (size_t)(total - off < max ? total - off : max));
        return;
    }
    smap_dtype_pack(b->buf, b->count, b->t, to, off, max);
}
static void get(const void *from, MPI_Count len, const struct xblk *b, MPI_Count off)
{
    if (smap_dtype_is_contiguous(b->t)) {
        MPI_Count total = xblk_bytes(b);
        if (off < total)
            memcpy(csm_dense(b->buf, b->t) + off, from, (size_t)(total - off < len ? total - off : len));
        return;
    }
    smap_dtype_unpack(from, len, (void *)b->buf, b->count, b->t, off);
}

static size_t slot_bytes(const struct xfer *x)
{
    return x->same ? CSM_PAY_BYTES : (CSM_PAY_BYTES / (size_t)x->s->n) & ~(size_t)63;
}

/* Packs chunk r of every block we send into pay. */
static void pack_round(const struct xfer *x, char *pay, uint64_t r)
{
    const struct csm_comm *s = x->s;
    size_t slot = slot_bytes(x);
    for (int j = 0; j < s->n; j++) {
        struct xblk b;
        if (j == s->me || !x->src(x, j, &b))
            continue;
        char *at = pay + (x->same ? 0 : (size_t)j * slot);
        put(&b, at, (MPI_Count)(r * slot), (MPI_Count)slot);
        if (x->same)
            break;
    }
}

/* Packs every block we send into our cell of step t. */
static void pack_cell(const struct xfer *x, struct csm_cell *c)
{
    const struct csm_comm *s = x->s;
    for (int j = 0; j < s->n; j++) {
        struct xblk b;
        if (j == s->me || !x->src(x, j, &b))
            continue;
        put(&b, c->data + cell_at(x, s->me, j), 0, (MPI_Count)cell_slot(x));
        if (x->same)
            break;
    }
}

/* Staged blocks of different sizes per destination (the v-variants):
 * each one's size in the descriptor, for the destinations' check. */
static void describe_sizes(const struct xfer *x, struct csm_desc *d)
{
    for (int j = 0; j < x->s->n; j++) {
        struct xblk b;
        if (j != x->s->me && x->src(x, j, &b))
            d->blk[j] = (struct csm_blk){ 0, (uint64_t)xblk_bytes(&b) };
    }
}

/* Our decision as a source, published in our cell of step t (flags and
 * rounds; the blocks themselves when they fit) and, for blocks peers read
 * from our user buffers, in the descriptor of step t. */
static void publish(const struct xfer *x, uint64_t t)
{
    const struct csm_comm *s = x->s;
    struct csm_cell *c = csm_cell(s, s->me, t);
    MPI_Count maxb = 0;
    if (SMAP_UNLIKELY(x->fail)) {   /* no blocks, no rounds: only the verdict */
        c->meta = F_ERR;
        return;
    }
    for (int j = 0; j < s->n; j++) {
        struct xblk b;
        if (j == s->me || !x->src(x, j, &b))
            continue;
        MPI_Count bytes = xblk_bytes(&b);
        if (bytes > maxb)
            maxb = bytes;
        if (x->same)
            break;
    }
    int staged = x->force_stage || smap_coll_select(x->id, (size_t)maxb, s->n) == SMAP_ALGO_INLINE;
    /* (whether peers can reach the blocks matters only when not staged
     * anyway: the small transfers skip the region lookups) */
    int reach = 1, cma = csm_cma_ok();
    for (int j = 0; !staged && j < s->n; j++) {
        struct xblk b;
        if (j == s->me || !x->src(x, j, &b))
            continue;
        MPI_Count bytes = xblk_bytes(&b);
        if (bytes > 0) {
            int dense = smap_dtype_is_contiguous(b.t);
            reach &= dense && csm_exposed(csm_dense(b.buf, b.t), (size_t)bytes);
            cma &= dense;
        }
        if (x->same)
            break;
    }
    staged |= !reach && !cma;
    uint64_t flags, rounds;
    if (staged && x->vec && !x->same)
        describe_sizes(x, csm_desc(s, s->me, t));
    if (staged && (size_t)maxb <= cell_slot(x)) {
        flags = F_STAGED | F_CELL;
        rounds = maxb > 0;
        if (maxb > 0)
            pack_cell(x, c);
    } else if (staged) {
        size_t slot = slot_bytes(x);
        flags = F_STAGED;
        rounds = ((uint64_t)maxb + slot - 1) / slot;
        pack_round(x, csm_pay(s, s->me, t), 0);
    } else {
        struct csm_desc *d = csm_desc(s, s->me, t);
        flags = maxb == 0 ? 0 : reach ? F_DIRECT : F_CMA;
        rounds = 0;
        for (int j = 0; j < s->n; j++) {
            struct xblk b;
            if (j == s->me || !x->src(x, j, &b))
                continue;
            /* empty blocks too: their size is what destinations check */
            MPI_Count bytes = xblk_bytes(&b);
            d->blk[x->same ? 0 : j] = (struct csm_blk){
                bytes > 0 ? (uint64_t)(uintptr_t)csm_dense(b.buf, b.t) : 0, (uint64_t)bytes };
            if (x->same)
                break;
        }
    }
    c->meta = meta_of(flags, rounds, maxb);
}

/* The source's block is only reachable with CMA: straight into our block
 * when it is contiguous, else chunk by chunk through our other half (no
 * peer reads it before we publish the next step). */
static SMAP_COLD int cma_failed(void)
{
    return smap_fail(MPI_ERR_OTHER, "CMA (process_vm_readv) failed on a peer's buffer");
}

static int take_cma(const struct xfer *x, int i, const struct xblk *b, uint64_t addr,
                    MPI_Count n, uint64_t t0)
{
    const struct csm_comm *s = x->s;
    const void *src = (const void *)(uintptr_t)addr;
    if (smap_dtype_is_contiguous(b->t)) {
        if (smap_copy_from(s->lr[i], csm_dense(b->buf, b->t), src, (size_t)n) == SMAP_COPY_BOUNCE)
            return cma_failed();
        return MPI_SUCCESS;
    }
    /* every peer must have published t0 (done with that half's old data) */
    int rc = csm_prepare((struct csm_comm *)s);
    if (rc)
        return rc;
    char *tmp = csm_pay(s, s->me, t0 + 1);
    for (MPI_Count off = 0; off < n; off += (MPI_Count)CSM_PAY_BYTES) {
        size_t len = (size_t)(n - off < (MPI_Count)CSM_PAY_BYTES ? n - off : (MPI_Count)CSM_PAY_BYTES);
        if (smap_copy_from(s->lr[i], tmp, (const char *)src + off, len) == SMAP_COPY_BOUNCE)
            return cma_failed();
        get(tmp, (MPI_Count)len, b, off);
    }
    return MPI_SUCCESS;
}

static SMAP_COLD int truncated(void)
{
    return smap_fail(MPI_ERR_TRUNCATE, "a member sent more data than this one's receive buffer "
                                      "holds (counts or types differ between the members)");
}

/* Copies what source i offers at step t (chunk r) into our block b. */
static int take_data(const struct xfer *x, int i, const struct xblk *b, uint64_t t0, uint64_t t,
                     uint64_t r)
{
    const struct csm_comm *s = x->s;
    MPI_Count bytes = xblk_bytes(b);
    if (s->flag[i] & F_CELL) {
        if (r > 0 || bytes == 0)
            return MPI_SUCCESS;
        const char *from = (const char *)csm_cell(s, i, t)->data + cell_at(x, i, s->me);
        get(from, (MPI_Count)cell_slot(x), b, 0);
        return MPI_SUCCESS;
    }
    if (s->flag[i] & F_STAGED) {
        size_t slot = slot_bytes(x);
        MPI_Count off = (MPI_Count)(r * slot);
        if (off >= bytes)
            return MPI_SUCCESS;
        const char *from = csm_pay(s, i, t) + (x->same ? 0 : (size_t)s->me * slot);
        get(from, (MPI_Count)slot, b, off);
        return MPI_SUCCESS;
    }
    if (r > 0 || bytes == 0)
        return MPI_SUCCESS;
    /* descriptors are read at the first step only: a source that has
     * finished may already write its next collective's */
    const struct csm_desc *d = csm_desc(s, i, t0);
    struct csm_blk blk = d->blk[x->same ? 0 : s->me];
    MPI_Count n = (MPI_Count)blk.bytes < bytes ? (MPI_Count)blk.bytes : bytes;
    if (s->flag[i] & F_CMA)
        return take_cma(x, i, b, blk.addr, n, t0);
    const void *view = csm_view(s, i, blk.addr, (size_t)n);
    if (SMAP_UNLIKELY(!view))
        return smap_fail(MPI_ERR_INTERN, "a peer's buffer vanished from its exposed memory");
    get(view, n, b, 0);
    return MPI_SUCCESS;
}

/* The bytes source i sends us, from its step-one cell (staged blocks of a
 * size every destination gets), descriptor entry (direct blocks, and the
 * v-variants' staged ones), or none. */
static MPI_Count sent_bytes(const struct xfer *x, int i, uint64_t t0)
{
    const struct csm_comm *s = x->s;
    unsigned f = s->flag[i];
    if (f & (F_DIRECT | F_CMA))
        return (MPI_Count)csm_desc(s, i, t0)->blk[x->same ? 0 : s->me].bytes;
    if (!(f & (F_STAGED | F_CELL)))
        return 0;
    if (x->vec && !x->same)
        return (MPI_Count)csm_desc(s, i, t0)->blk[s->me].bytes;
    uint64_t b = META_BYTES(csm_cell(s, i, t0)->meta);
    return b == 0xffffffffu ? 0 : (MPI_Count)b;
}

/* take_data, and at the first step the truncation check (D18: the cell
 * or descriptor read anyway carries the source's size). */
static int take(const struct xfer *x, int i, const struct xblk *b, uint64_t t0, uint64_t t,
                uint64_t r)
{
    int rc = take_data(x, i, b, t0, t, r);
    if (!rc && r == 0 && SMAP_UNLIKELY(sent_bytes(x, i, t0) > xblk_bytes(b)))
        rc = truncated();
    return rc;
}

static int consume(const struct xfer *x, uint64_t t0, uint64_t t, uint64_t r)
{
    const struct csm_comm *s = x->s;
    int rc = MPI_SUCCESS;
    for (int k = 1; k < s->n; k++) {
        /* start after ourselves: destinations spread over the sources */
        int i = (s->me + k) % s->n;
        struct xblk b;
        if (!x->dst(x, i, &b))
            continue;
        int e = take(x, i, &b, t0, t, r);
        if (e && !rc)
            rc = e;
    }
    return rc;
}

static SMAP_COLD int other_path(void)
{
    return smap_fail(MPI_ERR_OTHER, "another rank took another path through this collective "
                                   "(counts or types differ between the ranks)");
}

/* What the step-one metas of sources lo..hi tell a rank whose collective
 * failed (read before further steps): a source that sent more than we
 * receive from it, another path, or an argument error. */
struct verdict {
    int truncated, other_path;
};
static struct verdict verdict_of(const struct xfer *x, uint64_t t0, int lo, int hi)
{
    const struct csm_comm *s = x->s;
    struct verdict v = { 0, 0 };
    for (int i = lo; i < hi; i++) {
        struct xblk b;
        uint64_t meta = csm_cell(s, i, t0)->meta;
        if (i == s->me || !(meta & CSM_META_OTHER))
            continue;
        v.other_path = 1;
        if (x->dst(x, i, &b) && (MPI_Count)(meta >> 32) > xblk_bytes(&b))
            v.truncated = 1;
    }
    return v;
}
static SMAP_COLD int failed_verdict(struct verdict v)
{
    if (v.truncated)
        return truncated();
    if (v.other_path)
        return other_path();
    return smap_fail(MPI_ERR_OTHER, "an error was found on another rank (the root's "
                                   "arguments of this collective)");
}

/* A member found an argument error (its step-one meta says F_ERR, or we
 * did: x->fail), or took another path (CSM_META_OTHER: its size chose
 * one of the fast paths): the rest of the steps every member takes anyway, the
 * same count as a transfer would take (rounds and closing sync from the
 * metas all read), nothing moved.  Our own error is the caller's to
 * report. */
static SMAP_COLD int xfer_failed(const struct xfer *x, uint64_t t0, int lo, int hi,
                                 uint64_t rounds, int any_direct)
{
    struct csm_comm *s = x->s;
    /* read before the steps below: a peer rewrites that cell once every
     * member published the step after it */
    struct verdict metas = x->fail ? (struct verdict){ 0, 0 } : verdict_of(x, t0, lo, hi);
    int one = x->single - 1;
    int who = one < 0 ? CSM_ALL : one == s->me ? CSM_NONE : one;
    for (uint64_t r = 1; r < rounds; r++) {
        int e = csm_prepare(s);
        if (e || (e = csm_sync_some(s, who)))
            return e;
    }
    if (any_direct) {
        int e = csm_sync_some(s, one < 0 || one == s->me ? CSM_ALL : CSM_NONE);
        if (e)
            return e;
    }
    if (x->fail)
        return MPI_SUCCESS;
    return failed_verdict(metas);
}

/* A fast path's rank (bcast's or alltoall's one-step paths) that found at
 * step one t0 a member whose size put it on this engine's path: it takes
 * the steps that member's xfer_failed takes (rounds and closing sync from
 * the same metas), moving nothing, so the steps stay aligned (issue 36). */
int csm_xfer_follow(struct csm_comm *s, uint64_t t0, int one)
{
    int lo = one >= 0 ? one : 0, hi = one >= 0 ? one + 1 : s->n;
    int who = one < 0 ? CSM_ALL : one == s->me ? CSM_NONE : one;
    uint64_t rounds = 0;
    int any_direct = 0;
    for (int i = lo; i < hi; i++) {
        uint64_t meta = csm_cell(s, i, t0)->meta;
        if (META_ROUNDS(meta) > rounds)
            rounds = META_ROUNDS(meta);
        any_direct |= (meta & (F_DIRECT | F_CMA)) != 0;
    }
    for (uint64_t r = 1; r < rounds; r++) {
        int e = csm_prepare(s);
        if (e || (e = csm_sync_some(s, who)))
            return e;
    }
    if (any_direct)
        return csm_sync_some(s, one < 0 || one == s->me ? CSM_ALL : CSM_NONE);
    return MPI_SUCCESS;
}

int csm_xfer_unpushed(struct csm_comm *s, uint64_t t0, int one, MPI_Count mine)
{
    int lo = one >= 0 ? one : 0, hi = one >= 0 ? one + 1 : s->n;
    int rc = one >= 0 ? csm_wait(s, one, t0) : csm_wait_all(s, t0);
    if (rc)
        return rc;
    int trunc = 0, err = 0;
    for (int i = lo; i < hi; i++) {
        uint64_t meta = csm_cell(s, i, t0)->meta;
        if (i == s->me)
            continue;
        err |= (meta & (F_ERR | CSM_META_OTHER)) == F_ERR;
        trunc |= mine >= 0 && (MPI_Count)META_BYTES(meta) > mine;
    }
    if ((rc = csm_xfer_follow(s, t0, one)))
        return rc;
    if (err)
        return smap_fail(MPI_ERR_OTHER, "an error was found on another rank (the root's "
                                       "arguments of this collective)");
    return trunc ? truncated() : other_path();
}

int csm_xfer(const struct xfer *x)
{
    struct csm_comm *s = x->s;
    /* one source (bcast): receivers wait for it only, it for nobody, and
     * only its descriptor decides the rounds */
    int one = x->single - 1, lo = one >= 0 ? one : 0, hi = one >= 0 ? one + 1 : s->n;
    int who = one < 0 ? CSM_ALL : one == s->me ? CSM_NONE : one;
    /* a bcast receiver publishes nothing peers read: no need to wait
     * until they are done with its previous data */
    int source = one < 0 || one == s->me;
    uint64_t t0 = csm_next(s);
    int rc;
    if (source) {
        if ((rc = csm_prepare(s)))
            return rc;
        publish(x, t0);
    }
    if ((rc = csm_sync_some(s, who)))
        return rc;
    uint64_t rounds = 0;
    int any_direct = 0, failed = x->fail;
    for (int i = lo; i < hi; i++) {
        uint64_t meta = csm_cell(s, i, t0)->meta;
        if (META_ROUNDS(meta) > rounds)
            rounds = META_ROUNDS(meta);
        any_direct |= (meta & (F_DIRECT | F_CMA)) != 0;
        failed |= (meta & (F_ERR | CSM_META_OTHER)) != 0;
        s->flag[i] = (unsigned char)meta;
    }
    int mine_staged = source && (s->flag[s->me] & (F_STAGED | F_CELL)) == F_STAGED;
    if (SMAP_UNLIKELY(failed)) {
        if (x->other && !x->fail && (rc = x->other(x, t0)) != CSM_XFER_NOT_MINE)
            return rc;
        return xfer_failed(x, t0, lo, hi, rounds, any_direct);
    }
    if (x->self)
        x->self(x);
    rc = consume(x, t0, t0, 0);
    for (uint64_t r = 1; r < rounds; r++) {
        uint64_t t = csm_next(s);
        int e = csm_prepare(s);
        if (e)
            return e;
        if (mine_staged)
            pack_round(x, csm_pay(s, s->me, t), r);
        if ((e = csm_sync_some(s, who)))
            return e;
        e = consume(x, t0, t, r);
        if (e && !rc)
            rc = e;
    }
    if (any_direct) {
        /* sources may return only once nobody reads their buffers */
        int e = csm_sync_some(s, one < 0 || one == s->me ? CSM_ALL : CSM_NONE);
        if (e)
            return e;
    }
    return rc;
}
