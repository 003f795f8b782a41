/* Pitfall A: with the main stack exposed, /proc/self/cmdline and
 * /proc/<pid>/cmdline (what ps and pgrep read) still give argv exactly,
 * and the stack really is the memfd "smartmap-stack". */
#include "expose_util.h"

#include <fcntl.h>

static size_t read_file(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0, "cannot open %s", path);
    size_t len = 0;
    ssize_t n;
    while (len < cap && (n = read(fd, buf + len, cap - len)) > 0)
        len += (size_t)n;
    close(fd);
    return len;
}

static void check_cmdline(const char *path, int argc, char **argv)
{
    static char want[65536], got[65536];
    size_t wl = 0;
    for (int i = 0; i < argc; i++) {
        size_t n = strlen(argv[i]) + 1;
        memcpy(want + wl, argv[i], n);
        wl += n;
    }
    size_t gl = read_file(path, got, sizeof got);
    CHECK(gl == wl, "%s: %zu bytes, argv has %zu", path, gl, wl);
    CHECK(memcmp(got, want, wl) == 0, "%s differs from argv", path);
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    int local = 0;
    CHECK(xmap_contains("smartmap-stack", &local), "main's local %p is not in smartmap-stack",
          (void *)&local);
    CHECK(argc == 4 && strcmp(argv[2], "two words") == 0, "unexpected arguments");
    check_cmdline("/proc/self/cmdline", argc, argv);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)getpid());
    check_cmdline(path, argc, argv);
    /* Another process reads it as ps does (popen is safe after exposure:
     * posix_spawn, no fork). */
    char cmd[128], out[256] = "";
    snprintf(cmd, sizeof cmd, "tr '\\0' ' ' < /proc/%d/cmdline", (int)getpid());
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL, "popen failed");
    size_t ol = fread(out, 1, sizeof out - 1, p);
    pclose(p);
    out[ol] = '\0';
    CHECK(strstr(out, " one two words three ") != NULL, "another process read \"%s\"", out);
    /* environ lives beside argv, in the same kept page(s). */
    static char env[65536];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)getpid());
    size_t el = read_file(path, env, sizeof env - 1);
    env[el] = '\0';
    int seen = 0;
    for (size_t i = 0; i < el; i += strlen(env + i) + 1)
        seen |= strncmp(env + i, "SMAP_LOCAL_RANK=", 16) == 0;
    CHECK(seen, "/proc/%d/environ has no SMAP_LOCAL_RANK", (int)getpid());
    CHECK_RC(MPI_Finalize());
    return 0;
}
