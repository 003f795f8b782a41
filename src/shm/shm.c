/* Connection set-up of the intra-node transport: where each queue lives.
 * The queue that local rank `s` writes into rank `r` is at
 * SMAP_CTL_FIXED + s * SMAP_CTL_PER_PEER in r's control region; the
 * completion words of r's sends follow the barrier bytes (smap.h).  A
 * process of another job on the node (smap/foreign.c) has a spare index
 * in each table: each side writes at the index the other gave it. */
#include "shm/shm.h"

#include "base/log.h"

static char *ctl_of(int lr, int me)
{
    if (lr == me)
        return smap_ctl_base();
    const struct smap_view *v = &smap_peers[lr].view[SMAP_REGION_CTL];
    if (v->len < SMAP_CTL_FIXED + (size_t)(me + 1) * SMAP_CTL_PER_PEER)
        return NULL;
    return (char *)(uintptr_t)(v->base + (uintptr_t)v->delta);
}

struct smap_shm_word *smap_shm_my_words(void)
{
    return (struct smap_shm_word *)((char *)smap_ctl_base() + SMAP_CTL_BARRIER_BYTES);
}

int smap_shm_init(struct smap_shm_peer *peers, int nlocal, int me)
{
    char *mine = smap_ctl_base();
    if (!mine || smap_ctl_size() < SMAP_CTL_FIXED + (size_t)nlocal * SMAP_CTL_PER_PEER)
        return -1;
    for (int lr = 0; lr < nlocal; lr++) {
        char *theirs = ctl_of(lr, me);
        if (!theirs) {
            smap_warn("shm: the control region of local rank %d is not mapped", lr);
            return -1;
        }
        peers[lr].out = (struct smap_shm_cell *)(theirs + SMAP_CTL_FIXED + (size_t)me * SMAP_CTL_PER_PEER);
        peers[lr].in = (struct smap_shm_cell *)(mine + SMAP_CTL_FIXED + (size_t)lr * SMAP_CTL_PER_PEER);
        peers[lr].words = (struct smap_shm_word *)(theirs + SMAP_CTL_BARRIER_BYTES);
        peers[lr].out_ctl = (struct smap_shm_qctl *)((char *)peers[lr].out + SMAP_SHM_QCTL_OFF);
        peers[lr].in_ctl = (struct smap_shm_qctl *)((char *)peers[lr].in + SMAP_SHM_QCTL_OFF);
        peers[lr].head = peers[lr].tail = peers[lr].credit = 0;
    }
    return 0;
}

/* A process of another job at spare index idx (smap/foreign.c): our queue
 * from it is at idx in our region, as for a job peer; ours to it is at
 * the index it gave us, `theirs`, in its region. */
int smap_shm_connect(struct smap_shm_peer *p, int idx, int theirs)
{
    char *mine = smap_ctl_base();
    if (!mine || idx < 0 || idx >= smap_npeers || theirs < 0 ||
        smap_ctl_size() < SMAP_CTL_FIXED + (size_t)(idx + 1) * SMAP_CTL_PER_PEER)
        return -1;
    /* not ctl_of: idx may equal theirs, which is not "ourselves" here */
    const struct smap_view *v = &smap_peers[idx].view[SMAP_REGION_CTL];
    if (v->len < SMAP_CTL_FIXED + (size_t)(theirs + 1) * SMAP_CTL_PER_PEER)
        return -1;
    char *other = (char *)(uintptr_t)(v->base + (uintptr_t)v->delta);
    p->out = (struct smap_shm_cell *)(other + SMAP_CTL_FIXED + (size_t)theirs * SMAP_CTL_PER_PEER);
    p->in = (struct smap_shm_cell *)(mine + SMAP_CTL_FIXED + (size_t)idx * SMAP_CTL_PER_PEER);
    p->words = (struct smap_shm_word *)(other + SMAP_CTL_BARRIER_BYTES);
    p->out_ctl = (struct smap_shm_qctl *)((char *)p->out + SMAP_SHM_QCTL_OFF);
    p->in_ctl = (struct smap_shm_qctl *)((char *)p->in + SMAP_SHM_QCTL_OFF);
    p->head = p->tail = p->credit = 0;
    return 0;
}
