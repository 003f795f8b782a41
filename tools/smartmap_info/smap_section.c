/* smartmap_info's SMARTMAP section: which memory a rank would expose to its
 * node peers, which copy levels the copy engine may use and which work on
 * this machine, and whether shmem huge pages can back the heap.
 *
 * smartmap_info is not a rank, so it cannot probe CMA between two ranks.
 * It probes process_vm_readv against a forked child that stays paused,
 * which catches seccomp, kernels without cross-memory attach and missing
 * ptrace rights, and then applies Yama's rule for siblings (a parent may
 * read its child under ptrace_scope=1, sibling ranks may not).  The words
 * come from src/smap/caps.c, the same code a rank logs with. */
#define _GNU_SOURCE
#include "smap_section.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "smap/smap.h"

/* Under AddressSanitizer its malloc and pthread_create interpose before
 * ours: ranks of such a build keep heap and thread stacks private. */
#if defined(__SANITIZE_ADDRESS__)
#define INFO_ASAN 1
#else
#define INFO_ASAN 0
#endif

static volatile long probe_word = 0x5a5a5a5a;

/* process_vm_readv on a paused child of ours: 1 when it works, else 0 and
 * the reason. */
static int probe_child(char *why, size_t whylen)
{
    int ready[2];
    if (pipe(ready) != 0) {
        snprintf(why, whylen, "not probed (pipe: %s)", strerror(errno));
        return 0;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, whylen, "not probed (fork: %s)", strerror(errno));
        close(ready[0]);
        close(ready[1]);
        return 0;
    }
    if (pid == 0) {
        /* Dies with us, whatever happens to the parent. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(ready[0]);
        char c = 1;
        if (write(ready[1], &c, 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    close(ready[1]);
    char c;
    ssize_t n = read(ready[0], &c, 1);
    close(ready[0]);
    int ok = 0;
    if (n == 1)
        ok = smap_cma_try(pid, (const void *)&probe_word, sizeof probe_word, why, whylen);
    else
        snprintf(why, whylen, "not probed (the child did not start)");
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    return ok;
}

static void print_exposure(unsigned mask, const char *expose, int invalid)
{
    static const struct { const char *name; unsigned bit; int asan_off; } rows[] = {
        { "heap", SMAP_EXPOSE_HEAP, 1 },
        { "data", SMAP_EXPOSE_DATA, 0 },
        { "stack", SMAP_EXPOSE_STACK, 0 },
        { "threads", SMAP_EXPOSE_THREADS, 1 },
    };
    if (invalid)
        printf("  exposure (SMAP_EXPOSE is invalid; shown for the default, all):\n");
    else
        printf("  exposure (SMAP_EXPOSE=%s):\n", expose ? expose : "all, the default");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *state;
        if (!(mask & rows[i].bit))
            state = rows[i].bit == SMAP_EXPOSE_THREADS && !(mask & SMAP_EXPOSE_HEAP) &&
                            expose && strstr(expose, "threads")
                        ? "off (thread stacks live on the heap, which is off)"
                        : "off (SMAP_EXPOSE excludes it)";
        else if (INFO_ASAN && rows[i].asan_off)
            state = "allowed, but not exposed by this build (AddressSanitizer's malloc and "
                    "pthread_create come first)";
        else
            state = "exposed (peers load and store it directly)";
        printf("    %-9s %s\n", rows[i].name, state);
    }
}

static void print_levels(int level, unsigned mask, int cma_ok, const char *cma_why)
{
    printf("  copy levels (SMAP_COPY=%s: the best level the copy engine may use):\n",
           smap_copy_level_name(level));
    if (level > SMAP_COPY_DIRECT)
        printf("    direct    off (SMAP_COPY=%s)\n", smap_copy_level_name(level));
    else if (!mask)
        printf("    direct    nothing exposed (SMAP_EXPOSE=none): only for peers' exposed memory\n");
    else
        printf("    direct    on, for memory peers expose (memcpy through mapped views)\n");
    if (level > SMAP_COPY_CMA)
        printf("    cma       off (SMAP_COPY=%s)\n", smap_copy_level_name(level));
    else if (cma_ok)
        printf("    cma       on, for %s (process_vm_readv/writev)\n",
               level == SMAP_COPY_CMA ? "every copy between ranks" : "memory peers do not expose");
    else
        printf("    cma       unavailable: %s\n", cma_why);
    printf("    bounce    always available (copy through shared cells)\n");
}

int print_smartmap_section(void)
{
    const char *copy = getenv("SMAP_COPY"), *expose = getenv("SMAP_EXPOSE");
    char err[256] = "";
    int bad = smap_caps_configure(copy, expose, err, sizeof err) != 0;
    smap_caps_check_thp();   /* configure skips it after a bad variable */
    printf("SMARTMAP (direct access to node peers' memory):\n");
    if (bad)
        printf("  (invalid setting: %s; MPI_Init would fail)\n", err);
    /* Parse again on our own: configure stops at the first bad variable. */
    int m = expose ? smap_parse_expose(expose, NULL, NULL) : (int)SMAP_EXPOSE_ALL;
    unsigned mask = m < 0 ? SMAP_EXPOSE_ALL : (unsigned)m;
    print_exposure(mask, expose, m < 0);

    char why[128];
    int cma_ok = probe_child(why, sizeof why);
    int yama = smap_yama_scope();
    char cma_why[200];
    if (cma_ok && yama == 1) {
        cma_ok = 0;
        snprintf(cma_why, sizeof cma_why,
                 "not permitted (ptrace; Yama ptrace_scope=1 lets a process read only its "
                 "descendants, not sibling ranks)");
    } else {
        snprintf(cma_why, sizeof cma_why, "%s%s", cma_ok ? "works" : why,
                 cma_ok ? " (probed on a paused child of smartmap_info)" : "");
    }
    print_levels(smap_caps.copy_level, mask, cma_ok, cma_why);
    printf("  CMA:                %s\n", cma_why);
    if (yama < 0)
        printf("  Yama ptrace_scope:  absent (only the ordinary ptrace rules apply)\n");
    else
        printf("  Yama ptrace_scope:  %d\n", yama);
    printf("  shmem THP:          %s\n", smap_caps.thp_why);
    printf("copy levels:          %s%s%s\n",
           smap_caps.copy_level <= SMAP_COPY_DIRECT && mask ? "direct, " : "",
           smap_caps.copy_level <= SMAP_COPY_CMA && cma_ok ? "cma, " : "", "bounce");
    return 0;
}
