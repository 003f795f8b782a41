/* smartmap_info — what this smartmap is, where it lives, and every tunable
 * (DESIGN.md D4, D10).  One function per section of the report; see README.md. */
#include "base/tunables.h"
#include "net/engine.h"
#include "smap_config.h"
#include "smap_section.h"

#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The MPI standard and the standard ABI this build implements (D1).  The
 * tools_info test checks them against include/mpi.h. */
#define INFO_MPI_VERSION    5
#define INFO_MPI_SUBVERSION 0
#define INFO_ABI_VERSION    1
#define INFO_ABI_SUBVERSION 0

/* From CMake: this program's directory relative to the prefix, and the
 * installation's library directory (the build tree uses lib/). */
#ifndef SMAP_INFO_BIN_TO_PREFIX
#define SMAP_INFO_BIN_TO_PREFIX ".."
#endif
#ifndef SMAP_INFO_LIBDIR
#define SMAP_INFO_LIBDIR "lib"
#endif

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
            "Usage: %s [--tunables | --version | --help]\n"
            "\n"
            "Prints smartmap's version, the MPI standard and ABI it implements, its\n"
            "build options, where it is installed, which network engine a job spanning\n"
            "nodes would load (and whether its plugin loads), which copy levels it can\n"
            "use, and every tunable: the environment variable SMAP_<NAME>, its type,\n"
            "default, current value (from the environment when set) and what it does.\n"
            "\n"
            "  --tunables   print only the table of tunables\n"
            "  --version    print only smartmap's version\n"
            "  --help       print this help\n",
            prog);
}

/* ---- section: versions -------------------------------------------------- */
static void print_versions(void)
{
    printf("smartmap version:     %s\n", SMAP_VERSION_STRING);
    printf("MPI standard:         %d.%d\n", INFO_MPI_VERSION, INFO_MPI_SUBVERSION);
    printf("MPI standard ABI:     %d.%d (libmpi_abi.so.%d)\n", INFO_ABI_VERSION,
           INFO_ABI_SUBVERSION, INFO_ABI_VERSION);
}

/* ---- section: build options ---------------------------------------------- */
static void print_build(void)
{
    printf("build options:        %s\n", SMAP_BUILD_OPTIONS);
}

/* ---- section: installation ------------------------------------------------ */
/* The prefix, found from this program's own location; 0 or -1. */
static int find_prefix(char *out, size_t len)
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
    char guess[PATH_MAX + sizeof SMAP_INFO_BIN_TO_PREFIX + 1];
    if (SMAP_INFO_BIN_TO_PREFIX[0] == '/')
        snprintf(guess, sizeof guess, "%s", SMAP_INFO_BIN_TO_PREFIX);
    else
        snprintf(guess, sizeof guess, "%s/%s", self, SMAP_INFO_BIN_TO_PREFIX);
    char real[PATH_MAX];
    if (!realpath(guess, real))
        return -1;
    snprintf(out, len, "%s", real);
    return 0;
}

/* The directory holding libmpi_abi.so.N below the prefix: 0, or -1. */
static int find_libdir(const char *prefix, char *out, size_t len)
{
    /* The installed tree uses GNUInstallDirs' libdir, the build tree lib/. */
    static const char *const libdirs[] = { SMAP_INFO_LIBDIR, "lib" };
    for (size_t i = 0; i < sizeof libdirs / sizeof libdirs[0]; i++) {
        char dir[PATH_MAX + 64], lib[PATH_MAX + 128];
        if (libdirs[i][0] == '/')
            snprintf(dir, sizeof dir, "%s", libdirs[i]);
        else
            snprintf(dir, sizeof dir, "%s/%s", prefix, libdirs[i]);
        snprintf(lib, sizeof lib, "%s/libmpi_abi.so.%d", dir, INFO_ABI_VERSION);
        if (access(lib, F_OK) == 0) {
            snprintf(out, len, "%s", dir);
            return 0;
        }
    }
    return -1;
}

/* libdir: where the library lies, or "" when unknown. */
static void print_install(char *libdir, size_t len)
{
    char prefix[PATH_MAX];
    libdir[0] = '\0';
    if (find_prefix(prefix, sizeof prefix) != 0) {
        printf("install prefix:       (unknown: cannot resolve /proc/self/exe)\n");
        return;
    }
    printf("install prefix:       %s\n", prefix);
    if (find_libdir(prefix, libdir, len) != 0) {
        libdir[0] = '\0';
        printf("library:              (libmpi_abi.so.%d not found under %s)\n", INFO_ABI_VERSION,
               prefix);
        return;
    }
    printf("library:              %s/libmpi_abi.so.%d\n", libdir, INFO_ABI_VERSION);
}

/* ---- section: network engine ------------------------------------------------
 * The engine a rank of a job spanning nodes would load (the same choice,
 * src/net/load.c), its plugin file, and whether it loads here: a missing
 * libfabric shows now rather than at a multi-node job's MPI_Init.  Loading
 * it here is harmless (this program is no rank; nothing is called). */
static void print_net_engine(const char *libdir)
{
    char why[1024], err[PATH_MAX + 1024], path[PATH_MAX + 64];
    const char *name, *fallback;
    if (!*libdir) {
        name = smap_net_engine_choose(getenv("SMAP_NET_ENGINE"), &fallback, why, sizeof why, err,
                                      sizeof err);
        if (!name)
            printf("network engine:       (none: %s)\n", err);
        else
            printf("network engine:       %s (%s; loaded only by jobs that span nodes)\n"
                   "engine plugin:        (unknown: the library was not found)\n", name, why);
        return;
    }
    /* the same choice and fallback as a rank's (net/net.c) */
    smap_net_engine_entry_fn *entry;
    if (smap_net_engine_find(getenv("SMAP_NET_ENGINE"), libdir, &name, path, sizeof path, &entry,
                             why, sizeof why, err, sizeof err)) {
        printf("network engine:       %s (%s; loaded only by jobs that span nodes)\n", name, why);
        printf("engine plugin:        %s (loads)\n", path);
    } else if (!name) {
        printf("network engine:       (none: %s)\n", err);
    } else {
        printf("network engine:       %s (%s; loaded only by jobs that span nodes)\n", name, why);
        printf("engine plugin:        %s (does not load: %s)\n", path, err);
    }
}

/* ---- section: SMARTMAP ------------------------------------------------------
 * Exposure, copy levels (direct / CMA / bounce) with the reason for each one
 * that is off, the CMA probe and shmem THP: see smap_section.c. */
static void print_copy_levels(void)
{
    print_smartmap_section();
}

/* ---- section: tunables ----------------------------------------------------- */
/* Writes a parsed value of type t into buf. */
static void format_value(enum smap_tunable_type t, const void *v, char *buf, size_t len)
{
    switch (t) {
    case SMAP_TUNABLE_INT: snprintf(buf, len, "%" PRId64, *(const int64_t *)v); break;
    case SMAP_TUNABLE_SIZE: snprintf(buf, len, "%" PRIu64, *(const uint64_t *)v); break;
    case SMAP_TUNABLE_BOOL: snprintf(buf, len, "%s", *(const bool *)v ? "true" : "false"); break;
    case SMAP_TUNABLE_STR: snprintf(buf, len, "\"%s\"", *(const char *const *)v); break;
    }
}

/* Prints the table; returns the number of rows whose default is malformed
 * (a bug in tunables.def), so that the caller can fail. */
static int print_tunables(void)
{
    int bad_defaults = 0;
    printf("tunables (%zu; each read from the environment variable shown):\n", smap_tunable_count);
    for (size_t i = 0; i < smap_tunable_count; i++) {
        const struct smap_tunable_desc *d = &smap_tunable_table[i];
        /* Room for any of the four types. */
        union { int64_t i; uint64_t u; bool b; const char *s; } val;
        char var[128], shown[256];
        snprintf(var, sizeof var, "SMAP_%s", d->name);
        printf("  %-26s %-6s default: %s\n", var, smap_tunable_type_name(d->type), d->def);
        if (smap_tunable_parse(d->type, d->def, &val) != 0) {
            printf("      (invalid default: '%s' is not a valid %s; fix tunables.def)\n", d->def,
                   smap_tunable_type_name(d->type));
            bad_defaults++;
        }
        const char *env = getenv(var);
        if (!env) {
            printf("      current: %s (default)\n", d->def);
        } else if (smap_tunable_parse(d->type, env, &val) != 0) {
            printf("      current: (invalid: '%s' is not a valid %s)\n", env,
                   smap_tunable_type_name(d->type));
        } else {
            format_value(d->type, &val, shown, sizeof shown);
            printf("      current: %s (from the environment, = %s)\n", env, shown);
        }
        printf("      %s\n", d->doc);
    }
    return bad_defaults;
}

int main(int argc, char **argv)
{
    const char *prog = argc > 0 ? argv[0] : "smartmap_info";
    bool only_tunables = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout, prog);
            return 0;
        } else if (strcmp(argv[i], "--version") == 0) {
            printf("smartmap_info (smartmap) %s\n", SMAP_VERSION_STRING);
            return 0;
        } else if (strcmp(argv[i], "--tunables") == 0) {
            only_tunables = true;
        } else {
            fprintf(stderr, "%s: unknown option '%s'\n", prog, argv[i]);
            usage(stderr, prog);
            return 2;
        }
    }
    if (!only_tunables) {
        print_versions();
        print_build();
        char libdir[PATH_MAX + 64];
        print_install(libdir, sizeof libdir);
        print_net_engine(libdir);
        print_copy_levels();
        printf("\n");
    }
    int bad = print_tunables();
    return bad ? 1 : 0;
}
