/* Job identity and the bootstrap services of boot.h, over PMI-1 or, for a
 * singleton, locally. */
#define _GNU_SOURCE 1   /* sched_getaffinity, CPU_COUNT */
#include "boot/boot.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/machine.h"
#include "base/wait.h"
#include "base/tunables.h"
#include "boot/pmi.h"
#include "boot/pmi_wire.h"
#include "boot/pmix_client.h"
#include "boot/singleton_kvs.h"

struct smap_job smap_job;

static int node_index_of(char **hosts, int upto, const char *host)
{
    for (int i = 0; i < upto; i++)
        if (strcmp(hosts[i], host) == 0)
            return i;
    return -1;
}

/* The CPU this process is bound to, or -1 when it may run on several. */
static int bound_cpu(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) != 1)
        return -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            return c;
    return -1;
}

/* The machine we run on and the CPU we are bound to, as "<kernel boot
 * id>@<cpu>/" ("@*": not bound to one): several emulated nodes (network
 * namespaces, containers) on one machine share its CPUs, and the waiting
 * policy must count all their ranks and know when two of them are bound
 * to one CPU (base/wait.h).  "-@.../" when the machine is unknown: then
 * nothing is shared beyond the node. */
static void machine_id(char *buf, size_t len)
{
    char id[64];
    smap_machine_boot_id(id, sizeof id);
    int cpu = bound_cpu();
    if (cpu >= 0)
        snprintf(buf, len, "%s@%d/", id[0] ? id : "-", cpu);
    else
        snprintf(buf, len, "%s@*/", id[0] ? id : "-");
}

/* Whether two published values ("<machine>@<cpu>/<node name>") are one
 * machine. */
static int same_machine(const char *a, const char *b)
{
    size_t la = strcspn(a, "@/");
    return a[0] != '-' && la == strcspn(b, "@/") && strncmp(a, b, la) == 0;
}

/* Groups ranks by node name in order of first appearance, so node ids
 * and local ranks agree on every rank; machine[r] is rank r's machine
 * group (ranks whose published machine ids match; -1: unknown), cpu[r]
 * the one CPU it is bound to (-1: several), shared[r] whether another
 * rank of its machine is bound to that CPU too (base/wait.h). */
struct layout {
    int n, nnodes;
    int *node_of, *machine, *cpu, *shared;
};

static int by_cpu(const void *x, const void *y, void *arg)
{
    const struct layout *l = arg;
    int a = *(const int *)x, b = *(const int *)y;
    if (l->machine[a] != l->machine[b])
        return l->machine[a] < l->machine[b] ? -1 : 1;
    return l->cpu[a] < l->cpu[b] ? -1 : l->cpu[a] > l->cpu[b];
}

/* shared[] from machine[] and cpu[]: ranks sorted by (machine, cpu), so
 * equal pairs are neighbours (n log n: rank 0 does it for the job). */
static int mark_shared_cpus(struct layout *l)
{
    int *order = malloc((size_t)l->n * sizeof *order);
    if (!order)
        return -1;
    for (int r = 0; r < l->n; r++)
        order[r] = r, l->shared[r] = 0;
    qsort_r(order, (size_t)l->n, sizeof *order, by_cpu, l);
    for (int i = 1; i < l->n; i++) {
        int a = order[i - 1], b = order[i];
        if (l->machine[a] >= 0 && l->cpu[a] >= 0 && l->machine[a] == l->machine[b] &&
            l->cpu[a] == l->cpu[b])
            l->shared[a] = l->shared[b] = 1;
    }
    free(order);
    return 0;
}

/* Reads every rank's "<machine>@<cpu>/<node name>" (ours is `me`) into l. */
static int read_hosts(struct layout *l, const char *me, char *err, size_t errlen)
{
    char key[64], val[320];
    char **hosts = calloc((size_t)l->n, sizeof *hosts), **mids = calloc((size_t)l->n, sizeof *mids);
    int nm = 0, rc = 0;
    if (!hosts || !mids) {
        snprintf(err, errlen, "out of memory learning the node layout");
        rc = -1;
    }
    for (int r = 0; r < l->n && rc == 0; r++) {
        snprintf(key, sizeof key, "smap.host.%d", r);
        if (r == smap_job.rank)
            snprintf(val, sizeof val, "%s", me);
        else if (smap_boot_get(key, val, sizeof val) != 0) {
            snprintf(err, errlen, "rank %d's host name is missing from the PMI key-value space", r);
            rc = -1;
            break;
        }
        const char *name = strchr(val, '/') ? strchr(val, '/') + 1 : val;
        int node = node_index_of(hosts, l->nnodes, name);
        if (node < 0) {
            node = l->nnodes;
            if (!(hosts[l->nnodes++] = strdup(name)))
                rc = -1;
        }
        l->node_of[r] = node;
        const char *at = strchr(val, '@');
        l->cpu[r] = at && at[1] >= '0' && at[1] <= '9' ? atoi(at + 1) : -1;
        l->machine[r] = -1;
        for (int m = 0; val[0] != '-' && m < nm && l->machine[r] < 0; m++)
            if (same_machine(val, mids[m]))
                l->machine[r] = m;
        if (val[0] != '-' && l->machine[r] < 0 && rc == 0) {
            l->machine[r] = nm;
            if (!(mids[nm++] = strdup(val)))
                rc = -1;
        }
    }
    for (int i = 0; hosts && i < l->nnodes; i++)
        free(hosts[i]);
    for (int i = 0; mids && i < nm; i++)
        free(mids[i]);
    free(hosts);
    free(mids);
    if (!rc && mark_shared_cpus(l) != 0)
        rc = -1;
    if (rc && !*err)
        snprintf(err, errlen, "out of memory learning the node layout");
    return rc;
}

/* Above this many ranks, rank 0 alone reads every rank's host and
 * publishes the layout, which the others read in a few values: each rank
 * reading all n hosts is n^2 round trips to the PMI server (a launcher's
 * single thread), which made start-up grow faster than the rank count.
 * One more fence is cheaper than that from here on. */
#define LAYOUT_GATHER_MIN 9
#define LAYOUT_CHUNK (SMAP_PMI_VALLEN_MAX - 32)
/* Room for the text of n ranks' runs (each at most 4 numbers) */
#define LAYOUT_TEXT_MAX(n) (64 + (size_t)(n) * 48)

/* The layout as text: "NNODES;" then runs "node*machine*shared*count,"
 * over the ranks (usually one run per node). */
static char *layout_encode(const struct layout *l)
{
    size_t cap = LAYOUT_TEXT_MAX(l->n), len = 0;
    char *t = malloc(cap);
    if (!t)
        return NULL;
    len += (size_t)snprintf(t, cap, "%d;", l->nnodes);
    for (int r = 0; r < l->n;) {
        int k = r;
        while (k < l->n && l->node_of[k] == l->node_of[r] && l->machine[k] == l->machine[r] &&
               l->shared[k] == l->shared[r])
            k++;
        len += (size_t)snprintf(t + len, cap - len, "%d*%d*%d*%d,", l->node_of[r], l->machine[r],
                                l->shared[r], k - r);
        r = k;
    }
    return t;
}

static int layout_decode(struct layout *l, const char *t)
{
    char *end;
    long nn = strtol(t, &end, 10);
    if (*end != ';' || nn < 1 || nn > l->n)
        return -1;
    l->nnodes = (int)nn;
    const char *p = end + 1;
    int r = 0;
    while (*p && r < l->n) {
        int node, mach, shared, cnt, used;
        if (sscanf(p, "%d*%d*%d*%d,%n", &node, &mach, &shared, &cnt, &used) != 4 || node < 0 ||
            node >= l->nnodes || mach < -1 || (shared != 0 && shared != 1) || cnt < 1 ||
            cnt > l->n - r)
            return -1;
        for (int k = 0; k < cnt; k++, r++)
            l->node_of[r] = node, l->machine[r] = mach, l->shared[r] = shared;
        p += used;
    }
    return r == l->n && !*p ? 0 : -1;
}

/* Rank 0 publishes the layout in chunks "smap.layout.<i>", the first
 * prefixed by the chunk count; after a fence every rank reads them. */
static int gather_layout(struct layout *l, const char *me, char *err, size_t errlen)
{
    char key[64], val[SMAP_PMI_VALLEN_MAX + 1];
    int rc = 0;
    if (smap_job.rank == 0) {
        char *t = NULL;
        rc = read_hosts(l, me, err, errlen);
        if (!rc && !(t = layout_encode(l))) {
            snprintf(err, errlen, "out of memory learning the node layout");
            rc = -1;
        }
        /* published even after a failure, so nobody waits for it */
        size_t len = t ? strlen(t) : 0;
        int chunks = rc ? 1 : (int)((len + LAYOUT_CHUNK - 1) / LAYOUT_CHUNK);
        for (int i = 0; i < chunks; i++) {
            snprintf(key, sizeof key, "smap.layout.%d", i);
            if (i == 0)
                snprintf(val, sizeof val, "%d|%.*s", rc ? 0 : chunks, LAYOUT_CHUNK,
                         t ? t : "");
            else
                snprintf(val, sizeof val, "%.*s", LAYOUT_CHUNK, t + (size_t)i * LAYOUT_CHUNK);
            if (smap_boot_put(key, val) != 0 && !rc) {
                snprintf(err, errlen, "could not publish the node layout through PMI");
                rc = -1;
            }
        }
        free(t);
    }
    if (smap_boot_fence() != 0) {
        snprintf(err, errlen, "could not exchange the node layout through PMI");
        return -1;
    }
    if (smap_job.rank == 0 || rc)
        return rc;
    size_t cap = LAYOUT_TEXT_MAX(l->n), len = 0;
    char *t = malloc(cap);
    int chunks = 0;
    for (int i = 0; t && (i == 0 || i < chunks); i++) {
        snprintf(key, sizeof key, "smap.layout.%d", i);
        if (smap_boot_get(key, val, sizeof val) != 0)
            break;
        const char *body = val;
        if (i == 0) {
            chunks = atoi(val);
            body = strchr(val, '|') ? strchr(val, '|') + 1 : "";
        }
        size_t bl = strlen(body);
        if (len + bl + 1 > cap)
            break;
        memcpy(t + len, body, bl + 1);
        len += bl;
        if (i + 1 == chunks && layout_decode(l, t) == 0) {
            free(t);
            return 0;
        }
    }
    free(t);
    snprintf(err, errlen, chunks == 0 ? "rank 0 could not learn the node layout"
                                      : "the node layout published by rank 0 is malformed");
    return -1;
}

/* Publishes our machine and node name (the host name unless
 * SMAP_NODE_NAME says otherwise), then learns every rank's node and how
 * many ranks share our machine (smap_wait_machine_ranks). */
static int learn_node_layout(const char *node_name, char *err, size_t errlen)
{
    char key[64], me[320];
    int n = smap_job.size;
    machine_id(me, sizeof me);
    snprintf(me + strlen(me), sizeof me - strlen(me), "%s", node_name);
    snprintf(key, sizeof key, "smap.host.%d", smap_job.rank);
    if (smap_boot_put(key, me) || smap_boot_fence()) {
        snprintf(err, errlen, "could not publish the host name through PMI");
        return -1;
    }
    struct layout l = { .n = n };
    l.node_of = smap_job.node_of = calloc((size_t)n, sizeof(int));
    smap_job.local_ranks = calloc((size_t)n, sizeof(int));
    l.machine = calloc((size_t)n, sizeof(int));
    l.cpu = calloc((size_t)n, sizeof(int));
    l.shared = calloc((size_t)n, sizeof(int));
    int rc = 0;
    if (!l.machine || !l.cpu || !l.shared || !smap_job.node_of || !smap_job.local_ranks) {
        snprintf(err, errlen, "out of memory learning the node layout");
        rc = -1;
    } else {
        err[0] = 0;
        rc = n >= LAYOUT_GATHER_MIN && !smap_job.singleton ? gather_layout(&l, me, err, errlen)
                                                           : read_hosts(&l, me, err, errlen);
    }
    int mine = rc ? -1 : l.machine[smap_job.rank], machine = 0;
    for (int r = 0; r < n && mine >= 0; r++)
        machine += l.machine[r] == mine;
    int shared = rc ? 0 : l.shared[smap_job.rank];
    free(l.machine);
    free(l.cpu);
    free(l.shared);
    if (rc)
        return rc;
    smap_job.nnodes = l.nnodes;
    smap_wait_machine_ranks = machine;
    smap_wait_cpu_shared = shared;
    if (shared)
        smap_log(SMAP_LOG_INFO, "job rank %d: another rank of this machine is bound to its CPU: "
                                "its waits yield at once", smap_job.rank);
    smap_job.node = smap_job.node_of[smap_job.rank];
    smap_job.local_size = 0;
    for (int r = 0; r < n; r++) {
        if (smap_job.node_of[r] != smap_job.node)
            continue;
        if (r == smap_job.rank)
            smap_job.local_rank = smap_job.local_size;
        smap_job.local_ranks[smap_job.local_size++] = r;
    }
    return 0;
}

/* MPICH's node-layout key, "(vector,(start,nodes,per_node),...)": blocks of
 * ranks per node, repeated while ranks remain.  Returns the node index of
 * rank, or -1 when the text is not such a layout. */
static int node_from_mapping(const char *map, int rank)
{
    const char *p = strstr(map, "vector");
    if (!p)
        return -1;
    int r = 0;
    for (int round = 0; round < 65536; round++) {
        const char *q = p;
        int any = 0;
        while ((q = strchr(q, '(')) != NULL) {
            int start, nodes, per;
            if (sscanf(q, "(%d,%d,%d)", &start, &nodes, &per) != 3 || start < 0 || nodes < 1 ||
                per < 1)
                return -1;
            for (int n = 0; n < nodes; n++, r += per)
                if (rank < r + per)
                    return start + n;
            any = 1;
            q++;
        }
        if (!any)
            return -1;
    }
    return -1;
}

/* The node as the launcher placed us: smrun's agents say it in
 * SMAP_NODE_NAME; hydra and other PMI-1 launchers in PMI_process_mapping;
 * PMIx launchers as the process's PMIX_HOSTNAME.
 * Only without either is the host name the node (a launcher may start two
 * "hosts" on one machine: they must stay two nodes). */
static const char *placed_node_name(char *buf, size_t len)
{
    if (smap_tun.node_name && *smap_tun.node_name)
        return smap_tun.node_name;
    /* PMIx launchers (Open MPI's mpirun, srun --mpi=pmix) name it. */
    if (smap_pmix_active())
        return smap_pmix_node_name(buf, len) == 0 ? buf : smap_job.hostname;
    char map[SMAP_PMI_VALLEN_MAX + 1];
    int node;
    if (!smap_job.singleton && smap_boot_get("PMI_process_mapping", map, sizeof map) == 0 &&
        (node = node_from_mapping(map, smap_job.rank)) >= 0) {
        snprintf(buf, len, "pmi-node-%d", node);   /* compared within the job only */
        return buf;
    }
    return smap_job.hostname;
}

static int init_singleton(char *err, size_t errlen)
{
    smap_job.singleton = 1;
    smap_job.rank = 0;
    smap_job.size = 1;
    smap_job.appnum = 0;
    smap_job.universe_size = 1;
    snprintf(smap_job.kvsname, sizeof smap_job.kvsname, "singleton-%ld", (long)getpid());
    (void)err;
    (void)errlen;
    return 0;
}

int smap_boot_init(char *err, size_t errlen)
{
    memset(&smap_job, 0, sizeof smap_job);
    if (gethostname(smap_job.hostname, sizeof smap_job.hostname - 1) != 0)
        snprintf(smap_job.hostname, sizeof smap_job.hostname, "localhost");
    int launched = smap_pmi_detect(&smap_job.rank, &smap_job.size, err, errlen);
    if (launched < 0)
        return -1;
    if (launched == 0) {
        if (init_singleton(err, errlen))
            return -1;
    } else if (smap_pmi_init(smap_job.kvsname, sizeof smap_job.kvsname, &smap_job.appnum,
                             &smap_job.universe_size, err, errlen)) {
        return -1;
    } else {
        smap_boot_flush_on_stop();
    }
    if (smap_job.universe_size < smap_job.size)
        smap_job.universe_size = smap_job.size;
    char placed[64];
    const char *node_name = placed_node_name(placed, sizeof placed);
    if (!smap_pmi_valid_value(node_name)) {
        snprintf(err, errlen, "node name '%s' cannot be exchanged (empty, spaces or too long)", node_name);
        return -1;
    }
    return learn_node_layout(node_name, err, errlen);
}

void smap_boot_finalize(void)
{
    if (!smap_job.singleton)
        smap_pmi_finalize();
    smap_singleton_kvs_clear();
    free(smap_job.node_of);
    free(smap_job.local_ranks);
    smap_job.node_of = smap_job.local_ranks = NULL;
}

int smap_boot_put(const char *key, const char *value)
{
    if (smap_job.singleton)
        return smap_singleton_kvs_put(key, value);
    return smap_pmi_kvs_put(smap_job.kvsname, key, value);
}

int smap_boot_fence(void)
{
    return smap_job.singleton ? 0 : smap_pmi_barrier();
}

int smap_boot_get(const char *key, char *value, size_t len)
{
    if (smap_job.singleton)
        return smap_singleton_kvs_get(key, value, len);
    return smap_pmi_kvs_get(smap_job.kvsname, key, value, len);
}

int smap_boot_barrier(void)
{
    return smap_job.singleton ? 0 : smap_pmi_barrier();
}

/* Until the SMARTMAP layer provides a shared-memory barrier, the node
 * barrier is the job barrier: a superset, so it is correct, only slower. */
int smap_boot_node_barrier(void)
{
    return smap_boot_barrier();
}

void smap_boot_abort(int code, const char *msg)
{
    if (msg && *msg)
        smap_log(SMAP_LOG_ERROR, "%s", msg);
    /* Before the launcher hears of it: it stops every rank at once. */
    smap_boot_flush_output();
    smap_pmi_abort(code);
    /* The exit status carries the code too (launchers without PMI abort, and
     * singletons); 0 would read as success, so it becomes 1. */
    int status = code & 0xff;
    _exit(status ? status : 1);
}

/* Only MPI_Abort(comm, 0), the program's own word, may end a job with 0;
 * launchers keep the code's low byte (exit status), some of them only it. */
void smap_boot_abort_error(int cls, const char *msg)
{
    smap_boot_abort((cls & 0xff) ? cls : 1, msg);
}

const char *smap_boot_session_dir(void)
{
    const char *d = getenv("SMAP_SESSION_DIR");
    return (d && *d) ? d : NULL;
}
