/* What the copy engine may and can do on this machine (DESIGN.md D4):
 * the level SMAP_COPY allows, whether CMA (process_vm_readv/writev) works
 * and why not, and whether shmem transparent huge pages can back the heap.
 *
 * This file depends on nothing but libc and config.c, because smartmap_info
 * (which is not a rank) links it from the static smap_internal archive to
 * report the same facts with the same words as a rank logs them.  The probe
 * against a real node peer lives in copy.c, next to the peer table. */
#define _GNU_SOURCE
#include "smap/smap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

struct smap_caps smap_caps = {
    .copy_level = SMAP_COPY_DIRECT,
    .cma_ok = 0,
    .cma_why = "not probed yet",
    .shmem_thp = 0,
    .thp_why = "not checked yet",
};

const char *smap_copy_level_name(int level)
{
    switch (level) {
    case SMAP_COPY_DIRECT: return "direct";
    case SMAP_COPY_CMA: return "cma";
    case SMAP_COPY_BOUNCE: return "bounce";
    default: return "?";
    }
}

int smap_yama_scope(void)
{
    char buf[16];
    if (smap_read_small_file("/proc/sys/kernel/yama/ptrace_scope", buf, sizeof buf) != 0)
        return -1;
    return buf[0] >= '0' && buf[0] <= '9' ? buf[0] - '0' : -1;
}

void smap_cma_reason(int err, char *why, size_t whylen)
{
    int yama = smap_yama_scope();
    switch (err) {
    case EPERM:
    case EACCES:
        if (yama > 0)
            snprintf(why, whylen, "not permitted (ptrace; Yama ptrace_scope=%d)", yama);
        else
            snprintf(why, whylen, "not permitted (ptrace)");
        break;
    case ENOSYS:
        snprintf(why, whylen, "not available (seccomp or kernel: ENOSYS)");
        break;
    case EFAULT:
        snprintf(why, whylen, "probe address not mapped in the peer (EFAULT)");
        break;
    case ESRCH:
        snprintf(why, whylen, "peer process not found (ESRCH)");
        break;
    default:
        snprintf(why, whylen, "failed (%s)", strerror(err));
        break;
    }
}

int smap_cma_try(pid_t pid, const void *addr, size_t len, char *why, size_t whylen)
{
    char buf[64];
    if (len > sizeof buf)
        len = sizeof buf;
    struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };
    ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (n == (ssize_t)len) {
        snprintf(why, whylen, "works");
        return 1;
    }
    smap_cma_reason(n < 0 ? errno : EFAULT, why, whylen);
    return 0;
}

/* The selected word of a sysfs choice list: "always [never] advise" -> never. */
static int selected_word(const char *list, char *out, size_t len)
{
    const char *o = strchr(list, '['), *c = o ? strchr(o, ']') : NULL;
    if (!o || !c || (size_t)(c - o - 1) >= len)
        return -1;
    memcpy(out, o + 1, (size_t)(c - o - 1));
    out[c - o - 1] = '\0';
    return 0;
}

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define THP_HINT "admin: echo advise > " THP_DIR "/shmem_enabled"

void smap_caps_check_thp(void)
{
    char list[256], mode[32], sized[32];
    if (smap_read_small_file(THP_DIR "/shmem_enabled", list, sizeof list) != 0 ||
        selected_word(list, mode, sizeof mode) != 0) {
        smap_caps.shmem_thp = 0;
        snprintf(smap_caps.thp_why, sizeof smap_caps.thp_why,
                 "not supported by this kernel - heap uses 4 KiB pages");
        return;
    }
    /* Since Linux 6.11 the 2 MiB size has its own switch; "inherit" defers
     * to the global one. */
    if (smap_read_small_file(THP_DIR "/hugepages-2048kB/shmem_enabled", list, sizeof list) == 0 &&
        selected_word(list, sized, sizeof sized) == 0 && strcmp(sized, "inherit") != 0)
        snprintf(mode, sizeof mode, "%s", sized);
    if (strcmp(mode, "never") == 0 || strcmp(mode, "deny") == 0) {
        smap_caps.shmem_thp = 0;
        snprintf(smap_caps.thp_why, sizeof smap_caps.thp_why,
                 "%.16s - heap uses 4 KiB pages (%s)", mode, THP_HINT);
    } else {
        smap_caps.shmem_thp = 1;
        snprintf(smap_caps.thp_why, sizeof smap_caps.thp_why,
                 "%.16s - heap may use 2 MiB pages", mode);
    }
}

int smap_caps_configure(const char *copy, const char *expose, char *err, size_t errlen)
{
    if (copy && *copy) {
        int level = smap_parse_copy_level(copy);
        if (level < 0) {
            snprintf(err, errlen, "SMAP_COPY='%s': expected direct|cma|bounce", copy);
            return -1;
        }
        smap_caps.copy_level = level;
    } else {
        smap_caps.copy_level = SMAP_COPY_DIRECT;
    }
    const char *bad = NULL;
    size_t badlen = 0;
    if (expose && smap_parse_expose(expose, &bad, &badlen) < 0) {
        snprintf(err, errlen,
                 "SMAP_EXPOSE='%s': '%.*s' is not one of all|none|heap|data|stack|threads "
                 "(a comma-separated list)", expose, (int)badlen, bad);
        return -1;
    }
    smap_caps_check_thp();
    return 0;
}
