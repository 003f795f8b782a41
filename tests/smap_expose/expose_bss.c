/* A 1 GiB .bss is exposed sparsely: pages touched before the conversion
 * (from a preinit function, which runs before every library constructor)
 * keep their values, pages touched after it (from a constructor) too, and
 * the smartmap-data memfd holds only the few touched pages.  Globals,
 * function pointers and the copy-relocated stdout work. */
#include "expose_util.h"

#include <sys/stat.h>

#define BIG ((size_t)1 << 30)
static char big[BIG];
static const size_t early_off[] = { 0, 4096 * 3 + 17, BIG / 2 + 5, BIG - 1 };
static const size_t late_off = BIG / 4 + 99;

static int triple(int x) { return 3 * x; }
static int (*fp)(int) = triple;
static int counter = 5;

static void touch_early(int argc, char **argv, char **envp)
{
    (void)argc, (void)argv, (void)envp;
    for (size_t i = 0; i < sizeof early_off / sizeof early_off[0]; i++)
        big[early_off[i]] = (char)(0x40 + i);
}
__attribute__((section(".preinit_array"), used)) static void (*preinit)(int, char **, char **) =
    touch_early;

__attribute__((constructor)) static void touch_late(void)
{
    big[late_off] = 0x7a;
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    struct xmap m;
    CHECK(xmap_find("smartmap-data", (uintptr_t)big, &m), "big[] is not in smartmap-data");
    CHECK(m.hi >= (uintptr_t)big + BIG, "big[] is not wholly in smartmap-data");
    for (size_t i = 0; i < sizeof early_off / sizeof early_off[0]; i++)
        CHECK(big[early_off[i]] == (char)(0x40 + i), "big[%zu] lost its value", early_off[i]);
    CHECK(big[late_off] == 0x7a, "big[%zu] lost its value", late_off);
    CHECK(big[BIG / 3] == 0, "an untouched byte is not zero");

    int fd = xmap_fd("smartmap-data");
    CHECK(fd >= 0, "no smartmap-data descriptor in /proc/self/fd");
    struct stat st;
    CHECK(fstat(fd, &st) == 0, "fstat failed");
    long long kib = (long long)st.st_blocks / 2;
    CHECK(st.st_size >= (off_t)BIG, "memfd size %lld", (long long)st.st_size);
    /* .data plus the 5 touched .bss pages (and a page or two read by
     * start-up code); a full copy would be 1 GiB. */
    CHECK(kib < 1024, "smartmap-data holds %lld KiB", kib);
    /* The early pages reached the memfd through the copy, not a fault. */
    char c;
    CHECK(pread(fd, &c, 1, (off_t)((uintptr_t)&big[BIG / 2 + 5] - m.lo + m.off)) == 1 &&
              c == 0x42, "the memfd does not hold big[BIG/2+5]");

    CHECK(fp(14) == 42, "function pointer in .data broken");
    counter += 1;
    CHECK(counter == 6, "counter %d", counter);
    int n = printf("stdout works (%lld KiB in smartmap-data)\n", kib);
    CHECK(n > 0 && fflush(stdout) == 0, "stdout broken");
    CHECK_RC(MPI_Finalize());
    return 0;
}
