/* Every allocation of the process comes from this rank's heap slot
 * (findings §3.3): 4 threads x 8000 random mixed allocations (80 % small,
 * 17 % <= 256 KiB, 2 % 1-7 MiB, 1 % 4-68 MiB), then each entry point of the
 * malloc family with sizes 1 B .. 1 GiB and alignments 16 B .. 1 GiB, and
 * the libc functions that allocate for the caller.  Each returned pointer
 * and its whole usable size must lie inside the slot: 0 escapes.  Also run
 * with a hostile MALLOC_CONF and with ASLR off (CMakeLists.txt), with fewer
 * random operations (argv[1]).  Under
 * AddressSanitizer ASan's malloc serves the program, so the heap must not
 * be exposed at all and allocations must still work. */
#define _GNU_SOURCE
#include "heap_test.h"
#include "smap_test.h"

#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>

#define THREADS 4
/* ASan: its allocator is slow, the check is the fallback.  The variant runs
 * (hostile MALLOC_CONF, ASLR off) pass a smaller count as argv[1]. */
static int ops = HT_ASAN ? 5000 : 8000;
#define POOL 512

static uintptr_t slot_lo, slot_hi;
static int expect_slot;
static _Atomic long checked, escapes;

static void check(const void *p, const char *what)
{
    CHECK(p != NULL, "%s returned NULL", what);
    size_t usable = malloc_usable_size((void *)p);
    atomic_fetch_add(&checked, 1);
    if (!expect_slot)
        return;
    uintptr_t a = (uintptr_t)p;
    if (a < slot_lo || a + usable > slot_hi) {
        if (atomic_fetch_add(&escapes, 1) < 10)
            fprintf(stderr, "escape: %s -> %p (+%zu) outside [%#lx, %#lx)\n", what, p, usable,
                    (unsigned long)slot_lo, (unsigned long)slot_hi);
    }
}

static size_t random_size(unsigned *seed)
{
    int r = rand_r(seed) % 100;
    if (r < 80)
        return 1 + (size_t)rand_r(seed) % 4096;
    if (r < 97)
        return 4096 + (size_t)rand_r(seed) % (256 << 10);
    if (r < 99)
        return ((size_t)1 << 20) + (size_t)rand_r(seed) % ((size_t)6 << 20);
    return ((size_t)4 << 20) + (size_t)rand_r(seed) % ((size_t)64 << 20);
}

/* Touches the first and last byte: the memory must really be usable. */
static void touch(void *p, size_t n)
{
    ((volatile char *)p)[0] = 1;
    ((volatile char *)p)[n - 1] = 2;
}

static void *worker(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg * 7919u + 1;
    void *pool[POOL] = { 0 };
    for (int i = 0; i < ops; i++) {
        int k = rand_r(&seed) % POOL;
        size_t n = random_size(&seed);
        int how = rand_r(&seed) % 8;
        void *p;
        if (how == 0 && pool[k]) {
            p = realloc(pool[k], n);
            pool[k] = NULL;
        } else {
            free(pool[k]);
            pool[k] = NULL;
            if (how == 1)
                p = calloc(1, n);
            else if (how == 2) {
                size_t a = (size_t)64 << (rand_r(&seed) % 8);
                p = aligned_alloc(a, (n + a - 1) & ~(a - 1));   /* C11: a multiple */
            }
            else
                p = malloc(n);
        }
        check(p, "random");
        touch(p, n);
        pool[k] = p;
    }
    for (int k = 0; k < POOL; k++)
        free(pool[k]);
    return NULL;
}

static void sizes(void)
{
    for (size_t n = 1; n <= ((size_t)1 << 30); n *= 4) {
        void *p = malloc(n), *q = calloc(1, n + 3), *r = realloc(NULL, n);
        check(p, "malloc");
        check(q, "calloc");
        check(r, "realloc(NULL)");
        CHECK(((char *)q)[n + 2] == 0 && ((char *)q)[0] == 0, "calloc(%zu) not zeroed", n + 3);
        touch(p, n);
        if (n <= ((size_t)64 << 20)) {   /* a moving realloc copies (reads) it all */
            r = realloc(r, n + 1);
            check(r, "realloc");
        }
        free(p), free(q), free(r);
    }
    /* A realloc chain to 256 MiB keeps the contents. */
    char *c = realloc(NULL, 1);
    check(c, "realloc chain");
    c[0] = 42;
    for (size_t n = 2; n <= ((size_t)256 << 20); n *= 2) {
        c = realloc(c, n);
        check(c, "realloc chain");
        CHECK(c[0] == 42, "realloc to %zu lost the contents", n);
        c[n - 1] = 1;
    }
    free(c);
}

static void alignments(void)
{
    for (size_t a = 16; a <= ((size_t)1 << 30); a *= 2) {
        void *p = NULL;
        CHECK(posix_memalign(&p, a, 100) == 0, "posix_memalign(%zu)", a);
        void *q = aligned_alloc(a, a), *r = memalign(a, a + 1);
        check(p, "posix_memalign");
        check(q, "aligned_alloc");
        check(r, "memalign");
        CHECK((uintptr_t)p % a == 0 && (uintptr_t)q % a == 0 && (uintptr_t)r % a == 0,
              "alignment %zu not honoured: %p %p %p", a, p, q, r);
        free(p), free(q), free(r);
    }
    void *p = valloc(5000), *q = pvalloc(5000), *r = reallocarray(NULL, 1000, 8);
    check(p, "valloc");
    check(q, "pvalloc");
    check(r, "reallocarray");
    CHECK(malloc_usable_size(q) >= 8192, "pvalloc did not round up to pages");
    /* glibc's error semantics (ASan reports these as errors instead). */
    if (!HT_ASAN) {
        volatile size_t huge = SIZE_MAX - 4096, half = SIZE_MAX / 2;
        errno = 0;
        CHECK(reallocarray(r, half, 3) == NULL && errno == ENOMEM, "reallocarray overflow");
        errno = 0;
        CHECK(aligned_alloc(3, 10) == NULL && errno == EINVAL, "aligned_alloc(3) must fail EINVAL");
        CHECK(posix_memalign(&p, 12, 10) == EINVAL, "posix_memalign(12) must fail EINVAL");
        errno = 0;
        CHECK(malloc(huge) == NULL && errno == ENOMEM, "huge malloc must fail ENOMEM");
    }
    free(valloc(1)), free(p), free(q), free(r);
}

/* libc functions that allocate on the caller's behalf. */
static void libc_users(void)
{
    char *s = strdup("smartmap"), *t = NULL;
    check(s, "strdup");
    CHECK(asprintf(&t, "%s-%d", s, 42) > 0, "asprintf");
    check(t, "asprintf");
    FILE *f = fopen("/proc/self/status", "r");
    CHECK(f != NULL, "fopen");
    check(f, "fopen FILE");
    char *line = NULL;
    size_t cap = 0;
    CHECK(getline(&line, &cap, f) > 0, "getline");
    check(line, "getline");
    check(f->_IO_buf_base, "FILE buffer");
    fclose(f);
    DIR *d = opendir("/proc/self");
    CHECK(d && readdir(d), "opendir");
    check(d, "opendir");
    closedir(d);
    char *ms = NULL;
    size_t msz = 0;
    FILE *m = open_memstream(&ms, &msz);
    CHECK(m != NULL, "open_memstream");
    for (int i = 0; i < 10000; i++)
        fputs("0123456789", m);
    fclose(m);
    check(ms, "open_memstream buffer");
    free(s), free(t), free(line), free(ms);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        ops = atoi(argv[1]);
    CHECK(ops > 0, "bad operation count %s", argc > 1 ? argv[1] : "");
    int nvma = 0;
    int have = ht_heap_range(ht_expected_base(), &slot_lo, &slot_hi, &nvma);
    expect_slot = !HT_ASAN;
    if (expect_slot) {
        CHECK(have && slot_lo == ht_expected_base() && slot_hi - slot_lo == ht_slot_size(),
              "no heap slot at %#lx + %zu (found %d: %#lx-%#lx)",
              (unsigned long)ht_expected_base(), ht_slot_size(), have,
              (unsigned long)slot_lo, (unsigned long)slot_hi);
    } else {
        CHECK(nvma == 0, "ASan build: the heap must not be exposed, found %d smartmap-heap VMAs",
              nvma);
    }
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i) == 0, "pthread_create");
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    sizes();
    alignments();
    libc_users();
    const char *conf = getenv("MALLOC_CONF");
    printf("torture (local rank %d, MALLOC_CONF=%s): %ld allocations checked, %ld escapes; "
           "%s, %d heap VMAs\n",
           ht_local_rank(), conf ? conf : "unset", (long)checked, (long)escapes,
           expect_slot ? "slot mode" : "ASan: not exposed", ht_heap_vmas());
    CHECK(escapes == 0, "%ld allocations outside the heap slot", (long)escapes);
    if (!expect_slot)
        CHECK(ht_heap_vmas() == 0, "ASan build: a smartmap-heap mapping appeared");
    else
        CHECK(ht_heap_vmas() < 64, "the slot is fragmented into %d VMAs", ht_heap_vmas());
    return 0;
}
