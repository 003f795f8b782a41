/* Recursion on the exposed main stack.  "limit MiB": recurses to MiB of
 * stack and checks every frame's marker on the way back.  "overflow":
 * recurses without bound, printing each MiB reached, until the kernel
 * stops it with SIGSEGV. */
#include "expose_util.h"

static uintptr_t top;
static size_t next_mib = 1;

__attribute__((noinline)) static size_t down(size_t depth, size_t limit)
{
    volatile char frame[4000];
    frame[0] = (char)depth;
    frame[sizeof frame - 1] = (char)(depth >> 8);
    size_t used = top - (uintptr_t)frame;
    if (used >= next_mib << 20) {
        char msg[64];
        int n = snprintf(msg, sizeof msg, "depth %zu MiB\n", next_mib);
        if (write(1, msg, (size_t)n) < 0)
            abort();
        next_mib++;
    }
    size_t r = 0;
    if (limit == 0 || used < limit)
        r = down(depth + 1, limit);
    CHECK(frame[0] == (char)depth && frame[sizeof frame - 1] == (char)(depth >> 8),
          "frame %zu changed", depth);
    return r + 1;
}

int main(int argc, char **argv)
{
    volatile char here;
    top = (uintptr_t)&here;
    CHECK_RC(MPI_Init(&argc, &argv));
    const char *e = getenv("SMAP_EXPOSE");
    int exposed = !(e && strcmp(e, "none") == 0);
    CHECK(xmap_contains("smartmap-stack", (const void *)&here) == exposed,
          "main's frame exposed: expected %d", exposed);
    CHECK(argc == 3, "usage: recurse limit MiB | overflow 0");
    if (strcmp(argv[1], "limit") == 0) {
        size_t frames = down(0, (size_t)atoi(argv[2]) << 20);
        CHECK(frames > 1000, "only %zu frames", frames);
        printf("recursed %zu frames to %s MiB\n", frames, argv[2]);
    } else {
        down(0, 0);
        CHECK(0, "unbounded recursion returned");
    }
    CHECK_RC(MPI_Finalize());
    return 0;
}
