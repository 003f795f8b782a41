/* The heap slots are symmetric (findings §2 item 3): local rank r's slot is
 * at 16 TiB + r * slot size, an address every process of the node computes
 * alike, so heap pointers need no translation.  argv[1] is the slot size in
 * GiB that the test expects (64 by default, 2 with SMAP_HEAP_SLOT=2G).
 * Every rank checks its own mapping and its allocations, then reads what
 * every other local rank found (files in the job's session directory):
 * each at base + r * size, hence distinct and non-overlapping.
 * Under AddressSanitizer no rank has a slot: assert that instead. */
#define _GNU_SOURCE
#include "heap_test.h"
#include "smap_test.h"

int main(int argc, char **argv)
{
    CHECK(argc == 2, "usage: smap_heap_symmetric SLOT_GIB");
    size_t size = (size_t)atol(argv[1]) << 30;
    int lr = ht_local_rank();
    uintptr_t want = HT_SLOT_BASE + (uintptr_t)lr * size, lo = 0, hi = 0;
    void *p = malloc(1000);
    CHECK(p != NULL, "malloc");
    int have = ht_heap_range(want, &lo, &hi, NULL);
    if (HT_ASAN) {
        CHECK(!have && ht_heap_vmas() == 0, "ASan build: the heap must not be exposed");
    } else {
        CHECK(have && lo == want && hi == want + size,
              "local rank %d: slot %#lx-%#lx, expected %#lx + %zu GiB", lr, (unsigned long)lo,
              (unsigned long)hi, (unsigned long)want, size >> 30);
        CHECK((uintptr_t)p >= lo && (uintptr_t)p < hi, "malloc outside the slot: %p", p);
    }

    /* Compare with the other ranks through files in the job's session
     * directory: this needs no communication layer. */
    const char *dir = getenv("SMAP_SESSION_DIR"), *np_s = getenv("PMI_SIZE");
    CHECK(dir && np_s, "not started by smrun");
    int np = atoi(np_s);
    char path[512], tmp[520];
    snprintf(path, sizeof path, "%s/heapslot.%d", dir, lr);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    CHECK(f != NULL, "create %s", tmp);
    fprintf(f, "%lu\n", (unsigned long)lo);
    CHECK(fclose(f) == 0 && rename(tmp, path) == 0, "write %s", path);
    for (int r = 0; r < np; r++) {
        unsigned long rlo = 1;
        snprintf(path, sizeof path, "%s/heapslot.%d", dir, r);
        for (int tries = 0; tries < 2000 && !(f = fopen(path, "r")); tries++)
            usleep(10000);
        CHECK(f != NULL, "local rank %d never wrote %s", r, path);
        CHECK(fscanf(f, "%lu", &rlo) == 1, "read %s", path);
        fclose(f);
        if (HT_ASAN)
            CHECK(rlo == 0, "ASan build: local rank %d has a slot", r);
        else
            CHECK(rlo == HT_SLOT_BASE + (unsigned long)r * size,
                  "local rank %d has its slot at %#lx, not 16 TiB + %d * %zu GiB", r, rlo, r,
                  size >> 30);
    }
    if (lr == 0)
        printf("symmetric: %d ranks, slots of %zu GiB at 16 TiB + local rank * size%s\n", np,
               size >> 30, HT_ASAN ? " (ASan: none exposed)" : "");
    free(p);
    return 0;
}
