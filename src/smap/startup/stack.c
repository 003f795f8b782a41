/* Exposure of the main thread's stack (findings §2 item 6, §3.2).
 *
 * The live part of [stack] is copied into the memfd "smartmap-stack",
 * sized to RLIMIT_STACK (256 MiB when unlimited), and the memfd is mapped
 * MAP_SHARED|MAP_FIXED at the same addresses, with a 1 MiB PROT_NONE guard
 * below it, so that recursion still reaches the limit and an overflow is
 * still a SIGSEGV.  The copy and the remap run on a temporary static stack
 * (getcontext/makecontext/setcontext: no assembly) with all signals
 * blocked, so nothing writes the stack between the two.
 *
 * Pitfall A: the kernel reads /proc/<pid>/cmdline and environ only from
 * anonymous memory, so the page(s) from the argv strings to the top stay
 * anonymous.  Their lower part also holds the first frames of main; the
 * __libc_start_main wrapper (start_main.c) moves main below them (pitfall
 * B). */
#define _GNU_SOURCE
#include "smap/smap.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define STACK_CAP ((size_t)256 << 20)      /* when RLIMIT_STACK is unlimited */
#define GUARD_SIZE ((size_t)1 << 20)

/* Everything the conversion touches lives here, not on the stack it
 * converts. */
static struct {
    ucontext_t main_uc, tmp_uc;
    uintptr_t lo, hi, keep, shared_lo;
    int fd;
    int err;
    const char *what;       /* failed step, for the reason */
    char line[512];
    char buf[4096];
} cv;
static _Alignas(64) char tmp_stack[256 << 10];

/* Parses one /proc/self/maps line; keeps it when it is [stack]. */
static void maps_line(const char *l)
{
    size_t n = strlen(l);
    if (n < 7 || strcmp(l + n - 7, "[stack]") != 0)
        return;
    char *end;
    uintptr_t lo = (uintptr_t)strtoull(l, &end, 16);
    if (*end != '-')
        return;
    cv.lo = lo;
    cv.hi = (uintptr_t)strtoull(end + 1, NULL, 16);
}

/* Finds [stack] without stdio (which allocates); lines are bounded. */
static int find_stack(void)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t ll = 0;
    ssize_t n;
    while ((n = read(fd, cv.buf, sizeof cv.buf)) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            char c = cv.buf[i];
            if (c != '\n') {
                if (ll < sizeof cv.line - 1)
                    cv.line[ll++] = c;
                continue;
            }
            cv.line[ll] = '\0';
            maps_line(cv.line);
            ll = 0;
        }
    }
    close(fd);
    return cv.hi ? 0 : -1;
}

static int fail(const char *what)
{
    cv.err = errno;
    cv.what = what;
    return -1;
}

/* The raw system call: ASan's interceptor would report the poisoned
 * redzones of old frames, which are copied like any byte. */
static int copy_live(void)
{
    uintptr_t a = cv.lo;
    while (a < cv.keep) {
        long n = syscall(SYS_pwrite64, cv.fd, (const void *)a, cv.keep - a, (off_t)(a - cv.shared_lo));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        a += (size_t)n;
    }
    return 0;
}

static size_t stack_limit(uintptr_t pg)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return STACK_CAP;
    return (size_t)rl.rlim_cur & ~(pg - 1);
}

/* Runs on tmp_stack with every signal blocked. */
static int convert(void)
{
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    if (find_stack() < 0)
        return errno = ENOENT, fail("no [stack] in /proc/self/maps");
    cv.keep = (uintptr_t)program_invocation_name & ~(pg - 1);
    if (cv.keep <= cv.lo || cv.keep >= cv.hi)
        return errno = EINVAL, fail("argv is not on [stack]");
    size_t limit = stack_limit(pg);
    if (limit <= cv.hi - cv.lo)
        return errno = ENOSPC, fail("the stack is already at RLIMIT_STACK");
    cv.shared_lo = cv.hi - limit;
    uintptr_t guard_lo = cv.shared_lo - GUARD_SIZE;
    /* Claim the room below [stack] first: it must be free (NOREPLACE) and
     * its lowest MiB stays PROT_NONE as the overflow guard. */
    void *r = mmap((void *)guard_lo, cv.lo - guard_lo, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (r == MAP_FAILED)
        return fail("the room below the stack is in use");
    if (r != (void *)guard_lo) {    /* a kernel without MAP_FIXED_NOREPLACE */
        munmap(r, cv.lo - guard_lo);
        return errno = EEXIST, fail("the room below the stack is in use");
    }
    cv.fd = memfd_create("smartmap-stack", MFD_CLOEXEC);
    if (cv.fd < 0)
        return munmap(r, cv.lo - guard_lo), fail("memfd_create");
    if (ftruncate(cv.fd, (off_t)(cv.keep - cv.shared_lo)) < 0 || copy_live() < 0)
        goto undo;
    if (mmap((void *)cv.shared_lo, cv.keep - cv.shared_lo, PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_FIXED, cv.fd, 0) == MAP_FAILED)
        goto undo;
    return 0;
undo:
    fail("copy into the memfd");
    munmap(r, cv.lo - guard_lo);
    close(cv.fd);
    cv.fd = -1;
    return -1;
}

static void on_tmp_stack(void)
{
    if (convert() < 0 && !cv.what)
        cv.what = "unknown";
}

void smap_expose_stack(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cv.fd = -1;
    if (getcontext(&cv.tmp_uc) < 0) {
        smap_region_unexposed(SMAP_REGION_STACK, "getcontext failed");
        return;
    }
    cv.tmp_uc.uc_stack.ss_sp = tmp_stack;
    cv.tmp_uc.uc_stack.ss_size = sizeof tmp_stack;
    cv.tmp_uc.uc_link = &cv.main_uc;   /* back here, with the old signal mask */
    sigfillset(&cv.tmp_uc.uc_sigmask);
    makecontext(&cv.tmp_uc, on_tmp_stack, 0);
    /* getcontext + setcontext rather than swapcontext: ASan intercepts the
     * latter only, to print a warning in every rank. */
    static volatile int switched;
    switched = 0;
    if (getcontext(&cv.main_uc) < 0)
        cv.what = "getcontext failed";
    else if (!switched) {
        switched = 1;
        setcontext(&cv.tmp_uc);
        cv.what = "setcontext failed";
    }
    if (cv.what) {
        char why[96];
        snprintf(why, sizeof why, "stack: %s: %s", cv.what, strerror(cv.err));
        smap_region_unexposed(SMAP_REGION_STACK, why);
        smap_early_warn(why);
        return;
    }
    smap_region_set(SMAP_REGION_STACK, cv.shared_lo, cv.keep - cv.shared_lo, cv.fd, 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    smap_expose_stats.stack_bytes = cv.keep - cv.lo;
    smap_expose_stats.stack_ns =
        (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
}
