/* Initialised globals keep their values through the conversion, and
 * writes to them land in the smartmap-data memfd (read back with pread on
 * the descriptor found in /proc/self/fd). */
#include "expose_util.h"

struct pt { int x; double y; const char *name; };

int g_int = 123456;
double g_dbl = 2.5;
long g_arr[64] = { 1, 2, 3, [63] = 64 };
const char *g_str = "hello globals";
struct pt g_pt = { 7, -1.25, "point" };
static int s_zero;
static char s_bss[10000];

static void check_in_memfd(int fd, const struct xmap *m, const void *p, const void *want, size_t len)
{
    char buf[1024];
    CHECK(len <= sizeof buf, "too long");
    off_t off = (off_t)((uintptr_t)p - m->lo + m->off);
    CHECK(pread(fd, buf, len, off) == (ssize_t)len, "pread at %lld failed", (long long)off);
    CHECK(memcmp(buf, want, len) == 0, "memfd bytes at %p differ from memory", p);
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK(g_int == 123456 && g_dbl == 2.5 && g_arr[2] == 3 && g_arr[63] == 64, "values lost");
    CHECK(strcmp(g_str, "hello globals") == 0, "g_str lost");
    CHECK(g_pt.x == 7 && g_pt.y == -1.25 && strcmp(g_pt.name, "point") == 0, "g_pt lost");
    CHECK(s_zero == 0 && s_bss[9999] == 0, "bss not zero");

    struct xmap m;
    const void *vars[] = { &g_int, &g_dbl, g_arr, &g_str, &g_pt, &s_zero, s_bss };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        CHECK(xmap_find("smartmap-data", (uintptr_t)vars[i], &m), "global %zu at %p not exposed",
              i, vars[i]);
    int fd = xmap_fd("smartmap-data");
    CHECK(fd >= 0, "no smartmap-data descriptor");

    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    g_int = 1000 + rank;
    g_dbl = 0.5 * rank;
    g_arr[40] = -rank - 1;
    g_str = "changed";
    g_pt.x = 99;
    s_zero = 17;
    memset(s_bss + 5000, 0x5a, 200);
    check_in_memfd(fd, &m, &g_int, &g_int, sizeof g_int);
    check_in_memfd(fd, &m, &g_dbl, &g_dbl, sizeof g_dbl);
    check_in_memfd(fd, &m, g_arr, g_arr, sizeof g_arr);
    check_in_memfd(fd, &m, &g_str, &g_str, sizeof g_str);
    check_in_memfd(fd, &m, &g_pt, &g_pt, sizeof g_pt);
    check_in_memfd(fd, &m, &s_zero, &s_zero, sizeof s_zero);
    check_in_memfd(fd, &m, s_bss + 5000, s_bss + 5000, 200);
    /* And the other way: a pwrite into the memfd is seen in memory. */
    int v = 4242;
    CHECK(pwrite(fd, &v, sizeof v, (off_t)((uintptr_t)&g_int - m.lo + m.off)) == sizeof v,
          "pwrite failed");
    CHECK(g_int == 4242, "g_int %d after pwrite", g_int);
    CHECK_RC(MPI_Finalize());
    return 0;
}
