/* LD_PRELOAD of libsmartmap_heap.so for the ranks (DESIGN.md D3, docs/USAGE.md).
 *
 * The heap is exposed by an allocator that must be in the process before it
 * starts.  Programs built with mpicc carry it (DT_NEEDED); an interpreter
 * (python3 with mpi4py or ctypes, Julia, R, Java) loads libmpi later with
 * dlopen and would run on glibc's private heap.  So smrun adds smartmap's
 * libsmartmap_heap.so to the ranks' LD_PRELOAD.  For a program that already
 * needs it, the dynamic loader matches the soname and loads it once; a
 * preload the user set keeps its place in front (an allocator of the user's
 * then wins, and smartmap reports the heap as not exposed).
 *
 * SMAP_PRELOAD=0 turns it off, =1 on; by default it is on, except in a
 * sanitizer build, where an instrumented library may only be loaded after
 * the sanitizer runtime, which a preload would precede. */
#include "smrun.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SMRUN_LIBDIR_REL
#define SMRUN_LIBDIR_REL "../lib"
#endif
#ifndef SMRUN_PRELOAD_DEFAULT
#define SMRUN_PRELOAD_DEFAULT 1
#endif
#define HEAP_LIB "libsmartmap_heap.so.1"

static char **find_var(char **env, const char *name)
{
    size_t n = strlen(name);
    for (char **e = env; *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return e;
    return NULL;
}

/* 1 on, 0 off, -1 unset. */
static int wanted(char **env)
{
    char **e = find_var(env, "SMAP_PRELOAD");
    if (!e)
        return -1;
    const char *v = *e + sizeof "SMAP_PRELOAD";
    if (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "off") || !strcmp(v, "false"))
        return 0;
    return 1;
}

/* The library beside this smrun: the installed layout, then the build
 * tree's (bin/ and lib/ side by side).  0, or -1 when there is none. */
static int heap_lib_path(char *out, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    static const char *const rel[] = { SMRUN_LIBDIR_REL, "../lib" };
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char path[PATH_MAX + 64];
        int n = rel[i][0] == '/' ? snprintf(path, sizeof path, "%s/%s", rel[i], HEAP_LIB)
                                 : snprintf(path, sizeof path, "%s/%s/%s", self, rel[i], HEAP_LIB);
        if (n > 0 && (size_t)n < sizeof path && access(path, R_OK) == 0 && realpath(path, out) && strlen(out) < len)
            return 0;
    }
    return -1;
}

int smrun_preload_apply(char ***envp)
{
    char **env = *envp;
    int want = wanted(env);
    if (want == 0 || (want < 0 && !SMRUN_PRELOAD_DEFAULT))
        return 0;
    char lib[PATH_MAX];
    if (heap_lib_path(lib, sizeof lib) != 0) {
        if (want > 0)
            smrun_msg("warning: SMAP_PRELOAD=1 but %s is not beside smrun; not preloaded", HEAP_LIB);
        return 0;
    }
    char **old = find_var(env, "LD_PRELOAD");
    const char *prev = old ? *old + sizeof "LD_PRELOAD" : "";
    if (strstr(prev, "libsmartmap_heap.so"))
        return 0;   /* the user chose one already */
    char *entry = NULL;
    if (asprintf(&entry, "LD_PRELOAD=%s%s%s", prev, *prev ? ":" : "", lib) < 0)
        return -1;
    if (old) {
        free(*old);
        *old = entry;
        return 0;
    }
    size_t n = 0;
    while (env[n])
        n++;
    char **grown = realloc(env, (n + 2) * sizeof *grown);
    if (!grown) {
        free(entry);
        return -1;
    }
    grown[n] = entry;
    grown[n + 1] = NULL;
    *envp = grown;
    return 0;
}
