/* Pitfall §3.9: a core dump reads every page of shared shmem mappings and
 * so allocates every hole of every peer's 64 GiB slot.  Every peer view
 * must carry MADV_DONTDUMP ("dd" in VmFlags of /proc/self/smaps). */
#include "peers_test.h"

int g_var = 1;

static int smaps_header(const char *line)
{
    unsigned long a, b;
    return sscanf(line, "%lx-%lx ", &a, &b) == 2 && strchr(line, ' ') > strchr(line, '-');
}

/* VmFlags of the mapping that holds addr, or "" when none. */
static void vmflags_of(uintptr_t addr, char *out, size_t len)
{
    char line[512];
    int in = 0;
    out[0] = '\0';
    FILE *f = fopen("/proc/self/smaps", "r");
    CHECK(f != NULL, "cannot read /proc/self/smaps");
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        if (smaps_header(line) && sscanf(line, "%lx-%lx", &a, &b) == 2) {
            in = addr >= a && addr < b;
        } else if (in && strncmp(line, "VmFlags:", 8) == 0) {
            snprintf(out, len, "%.200s", line + 8);
            break;
        }
    }
    fclose(f);
}

/* Number of "smartmap-ctl" mappings, and how many of them are no-dump. */
static void ctl_views(int *total, int *dd)
{
    char line[512];
    int in = 0;
    *total = *dd = 0;
    FILE *f = fopen("/proc/self/smaps", "r");
    CHECK(f != NULL, "cannot read /proc/self/smaps");
    while (fgets(line, sizeof line, f)) {
        if (smaps_header(line)) {
            in = strstr(line, "/memfd:smartmap-ctl") != NULL;
            *total += in;
        } else if (in && strncmp(line, "VmFlags:", 8) == 0) {
            *dd += strstr(line, " dd") != NULL;
        }
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    int s_var = 2;
    CHECK_RC(MPI_Init(&argc, &argv));
    int lr = smap_local_rank(), n = smap_local_size();
    int *h = malloc(64);
    uintptr_t a[3] = { (uintptr_t)h, (uintptr_t)&g_var, (uintptr_t)&s_var };
    const char *kinds[3] = { "heap", "data", "stack" };
    info_write("nodump", lr, a, 3);
    CHECK(smap_node_barrier() == 0, "node barrier");
    int views = 0;
    for (int peer = 0; peer < n; peer++) {
        if (peer == lr)
            continue;
        struct peer_info pi = info_read("nodump", peer);
        for (int k = 0; k < 3; k++) {
            char *v = smap_remote(peer, (void *)pi.addr[k], 1);
            if (!v) {
                CHECK(!kind_exposed(kinds[k]), "%s of local rank %d not mapped", kinds[k], peer);
                continue;
            }
            char flags[256];
            vmflags_of((uintptr_t)v, flags, sizeof flags);
            CHECK(strstr(flags, " dd") != NULL, "view of local rank %d's %s at %p lacks dd: %s",
                  peer, kinds[k], (void *)v, flags);
            views++;
        }
    }
    int total, dd;
    ctl_views(&total, &dd);
    CHECK(total == n, "%d smartmap-ctl mappings for %d ranks", total, n);
    CHECK(dd >= n - 1, "only %d of %d peers' control views are no-dump", dd, n - 1);
    if (lr == 0)
        printf("nodump ok: %d heap/data/stack views and %d control views marked dd\n", views, dd);
    CHECK(smap_node_barrier() == 0, "node barrier");
    free(h);
    CHECK_RC(MPI_Finalize());
    return 0;
}
