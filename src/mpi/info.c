#include "mpi/info.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/free_later.h"
#include "boot/boot.h"
#include "mpi/comm.h"
#include "mpi/runtime.h"

static struct MPI_ABI_Info *env_info;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static void build_env(void)
{
    env_info = smap_info_new_env(0, NULL);
    if (env_info)
        env_info->read_only = 1;
}

struct MPI_ABI_Info *smap_info_get(MPI_Info h)
{
    if (h == MPI_INFO_ENV) {
        pthread_once(&env_once, build_env);
        return env_info;
    }
    if (!smap_plausible_object(h, _Alignof(struct MPI_ABI_Info)))
        return NULL;
    struct MPI_ABI_Info *info = h;
    return info->magic == SMAP_INFO_MAGIC ? info : NULL;
}

MPI_Info smap_info_handle(struct MPI_ABI_Info *info)
{
    return info && info == env_info ? MPI_INFO_ENV : info;
}

struct MPI_ABI_Info *smap_info_new(void)
{
    struct MPI_ABI_Info *info = calloc(1, sizeof *info);
    if (info)
        info->magic = SMAP_INFO_MAGIC;
    return info;
}

void smap_info_free(struct MPI_ABI_Info *info)
{
    if (!info || info->read_only)
        return;
    for (int i = 0; i < info->n; i++) {
        free(info->e[i].key);
        free(info->e[i].value);
    }
    free(info->e);
    info->magic = 0;
    smap_free_later(info);   /* a stale handle reads the cleared magic for a while */
}

static int find(const struct MPI_ABI_Info *info, const char *key)
{
    for (int i = 0; i < info->n; i++)
        if (strcmp(info->e[i].key, key) == 0)
            return i;
    return -1;
}

int smap_info_set(struct MPI_ABI_Info *info, const char *key, const char *value)
{
    char *v = strdup(value);
    if (!v)
        return -1;
    int i = find(info, key);
    if (i >= 0) {
        free(info->e[i].value);
        info->e[i].value = v;
        return 0;
    }
    if (info->n == info->cap) {
        int cap = info->cap ? 2 * info->cap : 8;
        struct smap_info_entry *e = realloc(info->e, (size_t)cap * sizeof *e);
        if (!e) {
            free(v);
            return -1;
        }
        info->e = e;
        info->cap = cap;
    }
    char *k = strdup(key);
    if (!k) {
        free(v);
        return -1;
    }
    info->e[info->n++] = (struct smap_info_entry){ k, v };
    return 0;
}

const char *smap_info_lookup(const struct MPI_ABI_Info *info, const char *key)
{
    int i = find(info, key);
    return i >= 0 ? info->e[i].value : NULL;
}

int smap_info_remove(struct MPI_ABI_Info *info, const char *key)
{
    int i = find(info, key);
    if (i < 0)
        return -1;
    free(info->e[i].key);
    free(info->e[i].value);
    memmove(&info->e[i], &info->e[i + 1], (size_t)(info->n - i - 1) * sizeof info->e[0]);
    info->n--;
    return 0;
}

struct MPI_ABI_Info *smap_info_dup(const struct MPI_ABI_Info *info)
{
    struct MPI_ABI_Info *d = smap_info_new();
    for (int i = 0; d && i < info->n; i++)
        if (smap_info_set(d, info->e[i].key, info->e[i].value) != 0) {
            smap_info_free(d);
            d = NULL;
        }
    return d;
}

/* ---- MPI_INFO_ENV / MPI_Info_create_env ---- */

/* Appends s to buf (space-separated), truncating at MPI_MAX_INFO_VAL - 1. */
static void append_word(char *buf, size_t cap, const char *s)
{
    size_t len = strlen(buf);
    if (len && len + 1 < cap)
        buf[len++] = ' ';
    snprintf(buf + len, cap - len, "%s", s);
}

static void command_line(int argc, char **argv, char *cmd, char *args, size_t cap)
{
    cmd[0] = args[0] = '\0';
    if (argv && argc > 0) {
        if (argv[0])
            snprintf(cmd, cap, "%s", argv[0]);
        for (int i = 1; i < argc && argv[i]; i++)
            append_word(args, cap, argv[i]);
        return;
    }
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f)
        return;
    char word[MPI_MAX_INFO_VAL];
    size_t n = 0;
    int c, index = 0;
    while ((c = fgetc(f)) != EOF) {
        if (c != '\0') {
            if (n + 1 < sizeof word)
                word[n++] = (char)c;
            continue;
        }
        word[n] = '\0';
        if (index++ == 0)
            snprintf(cmd, cap, "%s", word);
        else
            append_word(args, cap, word);
        n = 0;
    }
    fclose(f);
}

static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return NULL;
    }
}

/* The keys MPI-5.0 section 11.2.2 lists for MPI_INFO_ENV, where we know
 * them: command, argv, maxprocs, host, arch, wdir, thread_level ("soft"
 * and "file" have no meaning for smrun's command line). */
struct MPI_ABI_Info *smap_info_new_env(int argc, char **argv)
{
    struct MPI_ABI_Info *info = smap_info_new();
    if (!info)
        return NULL;
    int ok = 1;
    char *cmd = malloc(MPI_MAX_INFO_VAL), *args = malloc(MPI_MAX_INFO_VAL);
    if (!cmd || !args) {
        free(cmd);
        free(args);
        smap_info_free(info);
        return NULL;
    }
    command_line(argc, argv, cmd, args, MPI_MAX_INFO_VAL);
    if (cmd[0])
        ok &= smap_info_set(info, "command", cmd) == 0;
    if (args[0])
        ok &= smap_info_set(info, "argv", args) == 0;
    free(cmd);
    free(args);

    char buf[MPI_MAX_INFO_VAL];
    const char *pmi_size = getenv("PMI_SIZE");
    int maxprocs = smap_running() ? smap_job.size : pmi_size ? atoi(pmi_size) : 1;
    snprintf(buf, sizeof buf, "%d", maxprocs > 0 ? maxprocs : 1);
    ok &= smap_info_set(info, "maxprocs", buf) == 0;

    if (smap_running() && smap_job.hostname[0])
        snprintf(buf, sizeof buf, "%s", smap_job.hostname);
    else if (gethostname(buf, sizeof buf) != 0)
        buf[0] = '\0';
    buf[sizeof buf - 1] = '\0';
    if (buf[0])
        ok &= smap_info_set(info, "host", buf) == 0;

    struct utsname u;
    if (uname(&u) == 0 && u.machine[0])
        ok &= smap_info_set(info, "arch", u.machine) == 0;

    if (getcwd(buf, sizeof buf))
        ok &= smap_info_set(info, "wdir", buf) == 0;

    /* Present before MPI_Init and after MPI_Finalize too, so that the keys
     * never change: the level provided (MPI_THREAD_SINGLE until an init
     * chose one, the last one chosen after finalize). */
    const char *level = thread_level_name(smap_thread_provided);
    if (level)
        ok &= smap_info_set(info, "thread_level", level) == 0;

    if (!ok) {
        smap_info_free(info);
        return NULL;
    }
    return info;
}
