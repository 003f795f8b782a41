/* smap_remote()'s contract: NULL unless all of [ptr, ptr+len) lies in one
 * exposed region of the peer (region ends, TLS, mmap'd memory, huge or
 * wrapping lengths), NULL for a bad local rank and outside
 * MPI_Init..MPI_Finalize, ptr itself for the calling rank, and the same
 * address for heap pointers (symmetric heap). */
#include <limits.h>
#include <sys/mman.h>

#include "peers_test.h"

static __thread int tls_var = 5;
int g_var = 1;

enum { A_HEAP, A_DATA, A_STACK, A_TLS, A_MMAP,
       A_HEAP_LO, A_HEAP_HI, A_DATA_LO, A_DATA_HI, A_STACK_LO, A_STACK_HI, A_N };

static void check_region(int peer, const char *kind, uintptr_t lo, uintptr_t hi, uintptr_t inside)
{
    CHECK(lo < hi && inside >= lo && inside < hi, "%s bounds [%#lx,%#lx) do not hold %#lx", kind,
          (unsigned long)lo, (unsigned long)hi, (unsigned long)inside);
    CHECK(smap_remote(peer, (void *)inside, 1) != NULL, "%s: inside pointer not translated", kind);
    CHECK(smap_remote(peer, (void *)lo, hi - lo) != NULL, "%s: whole region not translated", kind);
    CHECK(smap_remote(peer, (void *)(hi - 16), 16) != NULL, "%s: last 16 bytes not translated", kind);
    CHECK(smap_remote(peer, (void *)(hi - 8), 16) == NULL, "%s: range crossing the end translated", kind);
    CHECK(smap_remote(peer, (void *)hi, 1) == NULL, "%s: first byte past the end translated", kind);
    CHECK(smap_remote(peer, (void *)lo, hi - lo + 1) == NULL, "%s: region + 1 byte translated", kind);
    CHECK(smap_remote(peer, (void *)(lo - 1), 2) == NULL, "%s: range crossing the start translated", kind);
    CHECK(smap_remote(peer, (void *)inside, SIZE_MAX) == NULL, "%s: SIZE_MAX length translated", kind);
    CHECK(smap_remote(peer, (void *)inside, SIZE_MAX - inside + 2) == NULL,
          "%s: wrapping length translated", kind);
    /* The translation is linear inside the region. */
    char *a = smap_remote(peer, (void *)lo, 1), *b = smap_remote(peer, (void *)(hi - 1), 1);
    CHECK(a && b && b - a == (ptrdiff_t)(hi - 1 - lo), "%s: translation not linear", kind);
}

int main(int argc, char **argv)
{
    int s_var = 3;
    CHECK(smap_remote(0, &g_var, 1) == NULL, "smap_remote before MPI_Init");
    CHECK(smap_node_barrier() == -1, "smap_node_barrier before MPI_Init");
    CHECK(smap_local_rank() == -1 && smap_local_size() == -1, "local rank before MPI_Init");
    CHECK_RC(MPI_Init(&argc, &argv));
    int lr = smap_local_rank(), n = smap_local_size();
    CHECK(n >= 2, "needs two ranks");
    char *h = malloc(4096);
    void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(h && m != MAP_FAILED, "allocation");
    uintptr_t a[A_N] = { (uintptr_t)h, (uintptr_t)&g_var, (uintptr_t)&s_var, (uintptr_t)&tls_var,
                         (uintptr_t)m };
    int hx = region_of(a[A_HEAP], "heap", &a[A_HEAP_LO], &a[A_HEAP_HI]);
    int dx = region_of(a[A_DATA], "data", &a[A_DATA_LO], &a[A_DATA_HI]);
    int sx = region_of(a[A_STACK], "stack", &a[A_STACK_LO], &a[A_STACK_HI]);
    if (!PEERS_ASAN)
        CHECK(hx && dx && sx, "heap %d data %d stack %d exposed", hx, dx, sx);
    else
        CHECK(!hx, "heap exposed under AddressSanitizer");
    CHECK(!region_of(a[A_TLS], "heap", NULL, NULL) && !region_of(a[A_TLS], "data", NULL, NULL),
          "TLS variable is in an exposed region");
    info_write("bounds", lr, a, A_N);
    CHECK(smap_node_barrier() == 0, "node barrier");

    int peer = (lr + 1) % n;
    struct peer_info pi = info_read("bounds", peer);
    uintptr_t *p = pi.addr;
    if (hx) {
        check_region(peer, "heap", p[A_HEAP_LO], p[A_HEAP_HI], p[A_HEAP]);
        CHECK(smap_remote(peer, (void *)p[A_HEAP], 4096) == (void *)p[A_HEAP],
              "heap pointer not translated to itself");
    } else {
        CHECK(smap_remote(peer, (void *)p[A_HEAP], 1) == NULL, "unexposed heap translated");
    }
    if (dx)
        check_region(peer, "data", p[A_DATA_LO], p[A_DATA_HI], p[A_DATA]);
    else
        CHECK(smap_remote(peer, (void *)p[A_DATA], 1) == NULL, "unexposed data translated");
    if (sx)
        check_region(peer, "stack", p[A_STACK_LO], p[A_STACK_HI], p[A_STACK]);
    else
        CHECK(smap_remote(peer, (void *)p[A_STACK], 1) == NULL, "unexposed stack translated");
    CHECK(smap_remote(peer, (void *)p[A_TLS], sizeof(int)) == NULL, "peer's TLS translated");
    CHECK(smap_remote(peer, (void *)p[A_MMAP], 1) == NULL, "peer's mmap buffer translated");
    CHECK(smap_remote(peer, NULL, 1) == NULL, "NULL translated");
    CHECK(smap_remote(-1, h, 1) == NULL && smap_remote(n, h, 1) == NULL &&
              smap_remote(INT_MAX, h, 1) == NULL && smap_remote(INT_MIN, h, 1) == NULL,
          "bad local rank translated");
    CHECK(smap_remote(lr, &tls_var, 4) == &tls_var && smap_remote(lr, m, 4096) == m &&
              smap_remote(lr, (void *)1, 1) == (void *)1,
          "self must translate to ptr");
    CHECK(smap_node_barrier() == 0, "node barrier");
    munmap(m, 4096);
    free(h);
    CHECK_RC(MPI_Finalize());
    CHECK(smap_remote(peer, (void *)p[A_DATA], 1) == NULL, "smap_remote after MPI_Finalize");
    CHECK(smap_remote(lr, &g_var, 1) == NULL, "smap_remote(self) after MPI_Finalize");
    CHECK(smap_node_barrier() == -1, "smap_node_barrier after MPI_Finalize");
    return 0;
}
