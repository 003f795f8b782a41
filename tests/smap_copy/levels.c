/* smap_copy_levels: smap_get/smap_put between node peers on heap, stack,
 * global and mmap'd (never exposed) buffers, under the SMAP_COPY level
 * given as argv[1] (the test sets the same SMAP_COPY in the environment).
 *
 * Which level did the work is observed, not assumed: each rank makes one
 * page of every buffer PROT_NONE.  A direct copy goes through the peer's
 * view, which keeps its own protection, so it still succeeds; CMA
 * (process_vm_readv/writev) honours the owner's protection and fails with
 * EFAULT; bounce never touches the peer (EPERM).  A range that starts
 * readable and runs into the protected page checks that a partial CMA
 * transfer is reported as a failure.
 *
 * Expectations: direct -> direct for exposed memory (heap unless ASan,
 * data, stack, as SMAP_EXPOSE allows), CMA for the rest; cma -> CMA for
 * all; bounce -> smap_get/smap_put fail with EPERM while smap_remote still
 * translates exposed memory (SMAP_COPY limits the copy engine only). */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "copy_util.h"

#define PAGE 4096
#define LEN (2 * PAGE)      /* bytes compared per buffer: pages 0-1 */
#define INBOX (2 * PAGE)    /* peers put into page 2 */
#define PROT_PAGE (3 * PAGE) /* made PROT_NONE by the owner */
#define BUF (4 * PAGE)

enum { K_HEAP, K_DATA, K_STACK, K_MMAP, NK };
static const char *const kname[NK] = { "heap", "data", "stack", "mmap" };

static char global_buf[BUF] __attribute__((aligned(PAGE)));

static unsigned char pat(int owner, int k, size_t i, int salt)
{
    return (unsigned char)(owner * 37 + k * 11 + salt * 101 + i * 7 + (i >> 9));
}

static void fill(unsigned char *b, int owner, int k, size_t n, int salt)
{
    for (size_t i = 0; i < n; i++)
        b[i] = pat(owner, k, i, salt);
}

static size_t first_diff(const unsigned char *b, int owner, int k, size_t n, int salt)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != pat(owner, k, i, salt))
            return i;
    return n;
}

/* Whether kind k of a peer should be reachable directly (smap_remote). */
static int exposed(int k)
{
    unsigned m = expose_wanted();
    switch (k) {
    case K_HEAP: return (m & 1) && !COPY_ASAN;
    case K_DATA: return (m & 2) != 0;
    case K_STACK: return (m & 4) != 0;
    default: return 0;
    }
}

static void check_remote(int peer, const struct board *pb)
{
    for (int k = 0; k < NK; k++) {
        void *v = smap_remote(peer, pb->addr[k], LEN);
        CHECK((v != NULL) == exposed(k), "smap_remote(%d, %s buffer) = %p, expected %s", peer,
              kname[k], v, exposed(k) ? "a pointer" : "NULL");
        if (v)
            CHECK(first_diff(v, peer, k, LEN, 0) == LEN, "%s view of local rank %d differs",
                  kname[k], peer);
    }
}

static void check_get_put(int peer, const struct board *pb, int level)
{
    static unsigned char tmp[LEN];
    for (int k = 0; k < NK; k++) {
        memset(tmp, 0, sizeof tmp);
        errno = 0;
        int rc = smap_get(peer, tmp, pb->addr[k], LEN);
        if (level == 2) {
            CHECK(rc == -1 && errno == EPERM, "bounce: smap_get(%s) = %d errno %d, want -1 EPERM",
                  kname[k], rc, errno);
            CHECK(tmp[0] == 0 && tmp[LEN - 1] == 0, "bounce: smap_get(%s) wrote into dst", kname[k]);
        } else {
            CHECK(rc == 0, "smap_get(%s of %d) failed: errno %d", kname[k], peer, errno);
            size_t d = first_diff(tmp, peer, k, LEN, 0);
            CHECK(d == LEN, "smap_get(%s of %d): byte %zu differs", kname[k], peer, d);
        }
        fill(tmp, smap_local_rank(), k, PAGE, 1);
        errno = 0;
        rc = smap_put(peer, (char *)pb->addr[k] + INBOX, tmp, PAGE);
        if (level == 2)
            CHECK(rc == -1 && errno == EPERM, "bounce: smap_put(%s) = %d errno %d", kname[k], rc,
                  errno);
        else
            CHECK(rc == 0, "smap_put(%s of %d) failed: errno %d", kname[k], peer, errno);
    }
}

/* The protected page tells direct from CMA (see the header comment). */
static void check_level_used(int peer, const struct board *pb, int level)
{
    static unsigned char tmp[2 * PAGE];
    for (int k = 0; k < NK; k++) {
        char *prot = (char *)pb->addr[k] + PROT_PAGE;
        int direct = level == 0 && exposed(k);
        errno = 0;
        int rc = smap_get(peer, tmp, prot, 64);
        if (direct) {
            CHECK(rc == 0, "%s: a direct read of a peer page it protected failed (errno %d): "
                  "the copy went through CMA", kname[k], errno);
            CHECK(first_diff(tmp, peer, k, 64, 2) == 64, "%s: direct read gave wrong data",
                  kname[k]);
        } else {
            int want = level == 2 ? EPERM : EFAULT;
            CHECK(rc == -1 && errno == want,
                  "%s, level %d: reading a protected peer page gave %d errno %d, want -1 errno %d",
                  kname[k], level, rc, errno, want);
        }
        /* Readable page 2 running into protected page 3: a partial CMA
         * transfer must be reported as a failure, never as success. */
        errno = 0;
        rc = smap_get(peer, tmp, prot - PAGE, 2 * PAGE);
        CHECK(direct ? rc == 0 : rc == -1, "%s: read across into a protected page gave %d (errno %d)",
              kname[k], rc, errno);
        errno = 0;
        rc = smap_put(peer, prot, tmp, 64);
        CHECK(direct ? rc == 0 : (rc == -1 && errno == (level == 2 ? EPERM : EFAULT)),
              "%s: write into a protected peer page gave %d errno %d", kname[k], rc, errno);
    }
}

int main(int argc, char **argv)
{
    CHECK(argc == 2, "usage: levels direct|cma|bounce");
    int level = strcmp(argv[1], "direct") == 0 ? 0 : strcmp(argv[1], "cma") == 0 ? 1 : 2;
    CHECK(smap_local_rank() == -1, "smap_local_rank before MPI_Init is %d", smap_local_rank());
    MPI_Init(&argc, &argv);
    int me = smap_local_rank(), n = smap_local_size();
    CHECK(n >= 2 && me >= 0 && me < n, "local rank %d of %d", me, n);
    int peer = (me + 1) % n, from = (me + n - 1) % n;

    char stack_area[BUF + PAGE];
    unsigned char *buf[NK];
    buf[K_HEAP] = aligned_alloc(PAGE, BUF);
    buf[K_DATA] = (unsigned char *)global_buf;
    buf[K_STACK] = (unsigned char *)(((uintptr_t)stack_area + PAGE - 1) & ~(uintptr_t)(PAGE - 1));
    buf[K_MMAP] = mmap(NULL, BUF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(buf[K_HEAP] && buf[K_MMAP] != MAP_FAILED, "allocation failed");
    for (int k = 0; k < NK; k++) {
        fill(buf[k], me, k, LEN, 0);
        memset(buf[k] + INBOX, 0xee, PAGE);
        fill(buf[k] + PROT_PAGE, me, k, PAGE, 2);
        board.addr[k] = buf[k];
    }
    board_publish();
    CHECK(smap_node_barrier() == 0, "node barrier");

    struct board pb;
    board_read(peer, &pb);
    check_remote(peer, &pb);
    CHECK(smap_remote(me, buf[K_MMAP], LEN) == buf[K_MMAP], "smap_remote(self) is not identity");
    check_get_put(peer, &pb, level);
    CHECK(smap_node_barrier() == 0, "node barrier");

    /* What the previous local rank put into our inboxes. */
    for (int k = 0; k < NK; k++) {
        unsigned char *in = buf[k] + INBOX;
        if (level == 2)
            CHECK(in[0] == 0xee && in[PAGE - 1] == 0xee, "bounce: %s inbox was written", kname[k]);
        else
            CHECK(first_diff(in, from, k, PAGE, 1) == PAGE, "%s inbox: bad data from %d", kname[k],
                  from);
    }

    for (int k = 0; k < NK; k++)
        CHECK(mprotect(buf[k] + PROT_PAGE, PAGE, PROT_NONE) == 0, "mprotect %s", kname[k]);
    CHECK(smap_node_barrier() == 0, "node barrier");
    check_level_used(peer, &pb, level);
    CHECK(smap_node_barrier() == 0, "node barrier");
    for (int k = 0; k < NK; k++)
        CHECK(mprotect(buf[k] + PROT_PAGE, PAGE, PROT_READ | PROT_WRITE) == 0, "mprotect %s",
              kname[k]);

    /* Bad local ranks and arguments. */
    errno = 0;
    CHECK(smap_get(n, buf[K_HEAP], pb.addr[0], 8) == -1 && errno == EINVAL, "bad local rank");
    errno = 0;
    CHECK(smap_put(-1, pb.addr[0], buf[K_HEAP], 8) == -1 && errno == EINVAL, "local rank -1");
    CHECK(smap_remote(n, pb.addr[0], 8) == NULL, "smap_remote with a bad local rank");
    CHECK(smap_get(peer, NULL, pb.addr[0], 0) == 0, "a 0-byte smap_get must succeed");

    CHECK(smap_node_barrier() == 0, "node barrier");
    munmap(buf[K_MMAP], BUF);
    free(buf[K_HEAP]);
    MPI_Finalize();
    CHECK(smap_local_rank() == -1 && smap_local_size() == -1, "local rank after MPI_Finalize");
    if (me == 0)
        printf("PASS smap_copy_levels %s (%d ranks)\n", argv[1], n);
    return 0;
}
