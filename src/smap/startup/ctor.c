/* The library constructor: exposes the executable's globals and the main
 * stack (findings §2 items 5-6, §3.2).
 *
 * It must run before main() and before the program starts any thread: the
 * copies are only exact while nothing else runs.  ld.so runs libmpi's
 * constructors before the executable's and before _start, which is early
 * enough; an MPI_Init-time conversion would not be (the program may have
 * threads by then).  Only ranks started by a launcher expose memory: a
 * singleton or a tool linked with libmpi has no peers. */
#define _GNU_SOURCE
#include "base/compiler.h"
#include "smap/smap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct smap_expose_stats smap_expose_stats;

/* SMAP_VERBOSE is parsed by the tunables table at MPI_Init; this is before. */
static int early_verbose(void)
{
    const char *v = smap_early_getenv("SMAP_VERBOSE");
    return v ? atoi(v) : 0;
}

static void report_costs(void)
{
    char msg[192];
    snprintf(msg, sizeof msg,
             "start-up exposure (pid %d): data %.3f ms (%llu .bss pages copied%s), "
             "stack %.3f ms (%llu live bytes)",
             (int)getpid(), (double)smap_expose_stats.data_ns / 1e6,
             (unsigned long long)smap_expose_stats.data_bss_pages,
             smap_expose_stats.data_pagemap ? "" : ", no pagemap",
             (double)smap_expose_stats.stack_ns / 1e6,
             (unsigned long long)smap_expose_stats.stack_bytes);
    smap_early_warn(msg);
}

/* Field 20 of /proc/self/stat, read without stdio; 0 when unknown. */
static int thread_count(void)
{
    char buf[1024];
    if (smap_read_small_file("/proc/self/stat", buf, sizeof buf) != 0)
        return 0;
    char *p = strrchr(buf, ')');   /* the command name may hold anything */
    for (int field = 2; p && field < 20; field++)
        p = strchr(p + 1, ' ');
    return p ? atoi(p + 1) : 0;
}

static void unexposed_both(const char *why)
{
    smap_region_unexposed(SMAP_REGION_DATA, why);
    smap_region_unexposed(SMAP_REGION_STACK, why);
}

SMAP_CONSTRUCTOR static void smap_expose_ctor(void)
{
    if (!smap_launched())
        return unexposed_both("not started by a launcher");
    /* libmpi loaded late (dlopen from an interpreter that already runs
     * threads): another thread could write a global or run on the stack
     * between the copy and the remap. */
    if (thread_count() > 1) {
        unexposed_both("other threads were running when libmpi was loaded");
        smap_early_warn("globals and main stack not exposed: other threads were already running");
        return;
    }
    unsigned mask = smap_expose_mask();
    if (mask & SMAP_EXPOSE_DATA)
        smap_expose_data();
    else
        smap_region_unexposed(SMAP_REGION_DATA, smap_expose_excluded_why());
    if (mask & SMAP_EXPOSE_STACK)
        smap_expose_stack();
    else
        smap_region_unexposed(SMAP_REGION_STACK, smap_expose_excluded_why());
    if (early_verbose() >= 3)
        report_costs();
}
