/* Processes of other jobs on this node as shm peers (DESIGN D17, issue
 * 34).  src/spawn agrees, for a whole bridge, on spare node-peer indices
 * (smap/foreign.c) for the other group's same-node members; here they are
 * mapped, their queues connected, and, once both groups said yes, their
 * world ranks routed to those indices: from then on a message to a
 * spawned child on this node takes the same path as one to a rank of the
 * job (eager cell, single-copy rendezvous), and progress polls their
 * queues with the job's.  A job that never meets another polls exactly
 * the job's queues: smap_p2p.nlocal grows only here. */
#include "p2p/internal.h"

#include <stdio.h>
#include <string.h>

#include "smap/smap.h"

/* Index lr keeps only its incoming queue (in our region, with the count
 * consumed so far: its cells' sequence words stay as they were, so
 * nothing old is taken for new); nothing is sent through it. */
static void keep_in_only(int lr)
{
    struct smap_shm_peer *p = &smap_p2p.peers[lr];
    uint32_t tail = p->in ? p->tail : 0;
    memset(p, 0, sizeof *p);
    p->in = (struct smap_shm_cell *)((char *)smap_ctl_base() + SMAP_CTL_FIXED +
                                     (size_t)lr * SMAP_CTL_PER_PEER);
    p->in_ctl = (struct smap_shm_qctl *)((char *)p->in + SMAP_SHM_QCTL_OFF);
    p->tail = tail;
}

int smap_p2p_node_attach(int idx, int theirs, const struct smap_node_rec *r, char *err,
                         size_t errlen)
{
    smap_p2p_ensure();
    int job = smap_node_rec_job_peer(r);
    if (job >= 0) {
        /* one of our own node ranks (connect/accept within one job): the
         * queue pair exists; the other side finds us the same way */
        if (job == smap_my_local_rank) {
            snprintf(err, errlen, "the other group holds this process");
            return -1;
        }
        return job;
    }
    smap_p2p_lock();
    int rc = smap_peers_attach_at(idx, r, err, errlen);
    if (rc == 0 && smap_shm_connect(&smap_p2p.peers[idx], idx, theirs) != 0) {
        snprintf(err, errlen, "the control region of pid %ld has no queue %d", (long)r->pid,
                 theirs);
        smap_peers_detach_at(idx);
        rc = -1;
    }
    if (rc == 0) {
        smap_p2p.pending[idx] = (struct smap_rq){ NULL, NULL };
        /* indices skipped on the way (a bridge that said no) get their
         * silent queue in our region, so that polling them is harmless */
        for (int i = smap_p2p.nlocal; i < idx; i++)
            if (!smap_p2p.peers[i].in)
                keep_in_only(i);
        if (idx >= smap_p2p.nlocal)
            smap_p2p.nlocal = idx + 1;   /* polled from now on */
    }
    smap_p2p_unlock();
    return rc == 0 ? idx : -1;
}

void smap_p2p_node_route(int world, int lr)
{
    smap_p2p_lock();
    if (world >= 0 && world < smap_p2p_nranks)
        smap_p2p.lr_of[world] = lr;
    smap_p2p_unlock();
}

void smap_p2p_node_detach(int lr)
{
    smap_p2p_lock();
    if (lr >= smap_nlocal && lr < smap_p2p.nlocal) {
        smap_peers_detach_at(lr);
        /* its queue to us lives in our region and stays readable (and
         * silent); ours to it is gone */
        keep_in_only(lr);
        /* stop polling the last ones when they are gone */
        while (smap_p2p.nlocal > smap_nlocal && !smap_peers[smap_p2p.nlocal - 1].alive)
            smap_p2p.nlocal--;
        if (smap_p2p.rr >= smap_p2p.nlocal)
            smap_p2p.rr = 0;
    }
    smap_p2p_unlock();
}

void smap_p2p_node_quiesce(int lr)
{
    smap_p2p_ensure();
    for (;;) {
        smap_p2p_lock();
        int busy = lr >= 0 && lr < smap_p2p.nlocal && smap_p2p.pending[lr].head != NULL;
        /* and sends freed while active (their receiver still copies) */
        for (struct smap_preq *r = smap_p2p.active.head; r && !busy; r = r->next)
            busy = r->lr == lr;
        smap_p2p_unlock();
        if (!busy)
            return;
        smap_p2p_progress();
    }
}
