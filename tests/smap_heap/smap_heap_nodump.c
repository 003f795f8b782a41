/* The unused tail of the heap slot is excluded from core dumps (findings
 * §3.9): a dump reads every page of a shared mapping, which would allocate
 * the whole sparse slot.  In /proc/self/smaps the VMA holding allocated
 * memory must not have the "dd" flag and the one at the slot's end must.
 * Under AddressSanitizer there is no slot: assert that. */
#define _GNU_SOURCE
#include "heap_test.h"
#include "smap_test.h"

/* VmFlags of the VMA containing addr: 1 with "dd", 0 without, -1 none. */
static int vma_dontdump(uintptr_t addr, uintptr_t *vlo, uintptr_t *vhi)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    CHECK(f != NULL, "open smaps");
    char line[512];
    int in = 0, res = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = addr >= a && addr < b;
            if (in)
                *vlo = a, *vhi = b;
        } else if (in && !strncmp(line, "VmFlags:", 8)) {
            res = strstr(line, " dd") != NULL;
            break;
        }
    }
    fclose(f);
    return res;
}

int main(void)
{
    size_t n = (size_t)100 << 20;
    char *p = malloc(n);
    CHECK(p != NULL, "malloc");
    memset(p, 1, 4096);
    p[n - 1] = 1;
    uintptr_t base = ht_expected_base(), end = base + ht_slot_size(), lo, hi;
    if (HT_ASAN) {
        CHECK(ht_heap_vmas() == 0, "ASan build: the heap must not be exposed");
        printf("nodump: ASan build, no slot\n");
        free(p);
        return 0;
    }
    int used = vma_dontdump((uintptr_t)p, &lo, &hi);
    CHECK(used == 0, "allocated memory at %p is %s", p, used ? "MADV_DONTDUMP" : "in no VMA");
    CHECK(hi >= (uintptr_t)p + n, "the dumpable part ends at %#lx, before the allocation's end",
          (unsigned long)hi);
    uintptr_t tlo, thi;
    int tail = vma_dontdump(end - 1, &tlo, &thi);
    CHECK(tail == 1, "the slot's tail is %s", tail ? "in no VMA" : "dumpable");
    CHECK(thi == end && tlo >= hi && end - tlo > (end - base) / 2,
          "tail VMA %#lx-%#lx is not the slot's unused end", (unsigned long)tlo,
          (unsigned long)thi);
    printf("nodump (local rank %d): used part %#lx-%#lx dumpable, tail %#lx-%#lx dd "
           "(%d heap VMAs)\n",
           ht_local_rank(), (unsigned long)lo, (unsigned long)hi, (unsigned long)tlo,
           (unsigned long)thi, ht_heap_vmas());
    free(p);
    return 0;
}
