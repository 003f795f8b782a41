/* Exposure of the executable's globals (findings §2 item 5).
 *
 * The executable's writable PT_LOAD, minus the part that becomes read-only
 * after relocation (PT_GNU_RELRO), is copied into the memfd
 * "smartmap-data" and the memfd is mapped MAP_SHARED|MAP_FIXED over the
 * original at the same address, so every pointer to a global stays valid.
 * It runs from the library constructor, before main() and before any thread
 * of the program exists, with signals blocked: nothing can write a global
 * between the copy and the remap.
 *
 * The .bss tail can be huge and is mostly untouched: only pages that
 * /proc/self/pagemap reports present or swapped are copied, and of those
 * only the ones that are not all zero, so a 1 GiB .bss costs a few pages
 * of shared memory instead of 1 GiB. */
#define _GNU_SOURCE
#include "smap/smap.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PM_PRESENT (1ull << 63)
#define PM_SWAPPED (1ull << 62)

struct data_span {
    uintptr_t start, end;       /* writable, not RELRO; page aligned */
    uintptr_t file_end;         /* end of the file-backed bytes, page aligned up */
    int found;
};

static uintptr_t page_down(uintptr_t a, uintptr_t pg) { return a & ~(pg - 1); }
static uintptr_t page_up(uintptr_t a, uintptr_t pg) { return (a + pg - 1) & ~(pg - 1); }

/* dl_iterate_phdr visits the executable first. */
static int find_exe_span(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct data_span *sp = arg;
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t relro_end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_GNU_RELRO)
            /* ld.so makes only whole pages read-only (it rounds the end
             * down): the page holding the end stays writable. */
            relro_end = page_down(info->dlpi_addr + ph->p_vaddr + ph->p_memsz, pg);
    }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
            continue;
        uintptr_t s = page_down(info->dlpi_addr + ph->p_vaddr, pg);
        uintptr_t e = page_up(info->dlpi_addr + ph->p_vaddr + ph->p_memsz, pg);
        uintptr_t fe = page_up(info->dlpi_addr + ph->p_vaddr + ph->p_filesz, pg);
        if (relro_end > s && relro_end <= e)
            s = relro_end;
        if (fe < s)
            fe = s;
        if (fe > e)
            fe = e;
        /* Several writable segments are unusual; the region registry holds
         * one, so keep the largest (it holds .data and .bss). */
        if (s < e && (!sp->found || e - s > sp->end - sp->start)) {
            sp->start = s;
            sp->end = e;
            sp->file_end = fe;
            sp->found = 1;
        }
    }
    return 1;   /* the executable only */
}

/* The raw system call: ASan's pwrite interceptor would report the poisoned
 * redzones between instrumented globals, which are copied like any byte. */
static int copy_out(int fd, uintptr_t addr, size_t len, uintptr_t base)
{
    while (len) {
        long n = syscall(SYS_pwrite64, fd, (const void *)addr, len, (off_t)(addr - base));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        addr += (size_t)n;
        len -= (size_t)n;
    }
    return 0;
}

#if defined(__SANITIZE_ADDRESS__)
#define SMAP_NO_ASAN __attribute__((no_sanitize_address))
#else
#define SMAP_NO_ASAN
#endif

/* A page that is all zero need not be written: the memfd reads as zero. */
SMAP_NO_ASAN static int page_is_zero(uintptr_t addr, size_t pg)
{
    const unsigned long *w = (const unsigned long *)addr;
    for (size_t i = 0; i < pg / sizeof *w; i++)
        if (w[i])
            return 0;
    return 1;
}

/* Copies the non-zero pages of [s, e) that pagemap (pmfd >= 0) says are
 * populated, or, without pagemap, all non-zero pages. */
static int copy_sparse(int fd, int pmfd, uintptr_t s, uintptr_t e, uintptr_t base, size_t pg)
{
    /* 32 MiB of .bss per read (64 KiB of entries); single-threaded here. */
    static uint64_t ent[8192];
    for (uintptr_t a = s; a < e;) {
        size_t n = (e - a) / pg;
        if (n > sizeof ent / sizeof ent[0])
            n = sizeof ent / sizeof ent[0];
        if (pmfd >= 0) {
            ssize_t got = pread(pmfd, ent, n * sizeof ent[0], (off_t)(a / pg * sizeof ent[0]));
            if (got != (ssize_t)(n * sizeof ent[0]))
                return -1;
        }
        for (size_t i = 0; i < n; i++, a += pg) {
            if (pmfd >= 0 && !(ent[i] & (PM_PRESENT | PM_SWAPPED)))
                continue;
            if (page_is_zero(a, pg))
                continue;
            if (copy_out(fd, a, pg, base) < 0)
                return -1;
            smap_expose_stats.data_bss_pages++;
        }
    }
    return 0;
}

static void unexposed_errno(const char *what)
{
    char why[96];
    snprintf(why, sizeof why, "%s: %s", what, strerror(errno));
    smap_region_unexposed(SMAP_REGION_DATA, why);
    smap_early_warn(why);
}

static void expose_span(const struct data_span *sp)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    size_t len = sp->end - sp->start;
    int fd = memfd_create("smartmap-data", MFD_CLOEXEC);
    if (fd < 0)
        return unexposed_errno("globals: memfd_create");
    if (ftruncate(fd, (off_t)len) < 0) {
        unexposed_errno("globals: ftruncate");
        close(fd);
        return;
    }
    /* A missing pagemap (restricted /proc) only costs time. */
    int pmfd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    int rc = copy_out(fd, sp->start, sp->file_end - sp->start, sp->start);
    if (rc == 0)
        rc = copy_sparse(fd, pmfd, sp->file_end, sp->end, sp->start, pg);
    if (pmfd >= 0)
        close(pmfd);
    if (rc < 0) {
        unexposed_errno("globals: copy into the memfd");
        close(fd);
        return;
    }
    smap_expose_stats.data_pagemap = pmfd >= 0;
    void *p = mmap((void *)sp->start, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
        /* MAP_FIXED failing leaves the old mapping in place (the kernel
         * checks before it unmaps), so the program goes on unexposed. */
        unexposed_errno("globals: mmap");
        close(fd);
        return;
    }
    smap_region_set(SMAP_REGION_DATA, sp->start, len, fd, 0);
}

void smap_expose_data(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct data_span sp = { 0 };
    dl_iterate_phdr(find_exe_span, &sp);
    if (!sp.found) {
        smap_region_unexposed(SMAP_REGION_DATA, "the executable has no writable segment");
        return;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    expose_span(&sp);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    smap_expose_stats.data_ns = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
}
