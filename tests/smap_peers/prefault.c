/* Peers' heap, globals and stack are prefaulted into our page tables only
 * up to SMAP_PREFAULT_MAX ranks on the node (src/smap/peers.c: beyond,
 * prefaulting every peer costs n^2 at start-up).  argv[1] "yes": the peers' views of those kinds hold resident
 * pages right after MPI_Init; "no": none, until touched.  Our own mappings
 * are told apart by an address inside them. */
#include "peers_test.h"

int g_word = 1;

/* Resident kB of the mappings named "/memfd:smartmap-<kind>" outside
 * [own_lo, own_hi); *resident: how many of them (ours too) hold any. */
static long peers_rss(const char *kind, uintptr_t own_lo, uintptr_t own_hi, int *resident)
{
    char want[64], line[512];
    snprintf(want, sizeof want, "/memfd:smartmap-%s", kind);
    FILE *f = fopen("/proc/self/smaps", "r");
    CHECK(f != NULL, "cannot read /proc/self/smaps");
    long kb = 0, v;
    int named = 0, peer = 0;
    *resident = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx ", &a, &b) == 2 && strchr(line, ' ') > strchr(line, '-')) {
            named = strstr(line, want) != NULL;
            peer = named && !(a >= own_lo && b <= own_hi);
            continue;
        }
        if (named && sscanf(line, "Rss: %ld kB", &v) == 1) {
            *resident += v > 0;
            kb += peer ? v : 0;
        }
    }
    fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    CHECK(argc == 2 && (!strcmp(argv[1], "yes") || !strcmp(argv[1], "no")), "usage: yes|no");
    int want = !strcmp(argv[1], "yes");
    CHECK_RC(MPI_Init(&argc, &argv));
    int stack_word = 1, checked = 0;
    void *block = malloc(64);
    const struct { const char *kind; uintptr_t addr; } own[] = {
        { "heap", (uintptr_t)block }, { "data", (uintptr_t)&g_word },
        { "stack", (uintptr_t)&stack_word } };
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
        uintptr_t lo = 0, hi = 0;
        if (!kind_exposed(own[i].kind) || !region_of(own[i].addr, own[i].kind, &lo, &hi))
            continue;
        int any;   /* (ours counts there too) */
        long kb = peers_rss(own[i].kind, lo, hi, &any);
        CHECK(want ? kb > 0 : kb == 0, "peers' %s views hold %ld kB resident right after MPI_Init, "
              "expected %s", own[i].kind, kb, want ? "some" : "none");
        checked++;
    }
    free(block);
    int lr = smap_local_rank();
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Finalize());
    if (checked == 0) {
        if (lr == 0)
            printf("prefault: this build exposes no heap, globals or stack: skipped\n");
        return 77;   /* CTest's SKIP_RETURN_CODE: reported as skipped */
    }
    if (lr == 0)
        printf("prefault %s: %d exposed kinds checked\n", argv[1], checked);
    return 0;
}
