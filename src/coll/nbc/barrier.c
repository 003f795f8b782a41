/* MPI_Ibarrier: dissemination, ceil(log2 n) rounds of empty messages (in
 * round k rank r signals r + 2^k and waits for r - 2^k, mod n). */
#include "coll/nbc/internal.h"

int smap_nbc_barrier(smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s = nbc_new(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    int n = c->size, r = c->rank;
    for (int k = 1; k < n; k <<= 1) {
        smap_sched_send(s, NULL, 0, nbc_byte(), (r + k) % n);
        smap_sched_recv(s, NULL, 0, nbc_byte(), (r - k + n) % n);
        smap_sched_barrier(s);
    }
    return nbc_launch(s, req);
}
