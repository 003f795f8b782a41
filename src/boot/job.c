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
    char id[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(id, sizeof id, f))
            id[0] = 0;
        fclose(f);
    }
    id[strcspn(id, "\n/@ \t")] = 0;
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

/* Whether they are one machine and both bound to the same single CPU. */
static int same_cpu(const char *a, const char *b)
{
    size_t la = strcspn(a, "/"), lb = strcspn(b, "/");
    const char *at = memchr(a, '@', la);
    return same_machine(a, b) && la == lb && at && at[1] != '*' && strncmp(a, b, la) == 0;
}

/* Publishes our machine and node name (the host name unless
 * SMAP_NODE_NAME says otherwise), then groups ranks by node name in order
 * of first appearance, so node ids and local ranks agree on every rank;
 * counts the ranks on our machine (smap_wait_machine_ranks) and those
 * bound to our CPU (smap_wait_cpu_shared). */
static int learn_node_layout(const char *node_name, char *err, size_t errlen)
{
    char key[64], val[320], me[320];
    int n = smap_job.size, machine = 0, cpu_mates = 0;
    machine_id(me, sizeof me);
    snprintf(me + strlen(me), sizeof me - strlen(me), "%s", node_name);
    snprintf(key, sizeof key, "smap.host.%d", smap_job.rank);
    if (smap_boot_put(key, me) || smap_boot_fence()) {
        snprintf(err, errlen, "could not publish the host name through PMI");
        return -1;
    }
    char **hosts = calloc((size_t)n, sizeof *hosts);
    smap_job.node_of = calloc((size_t)n, sizeof(int));
    smap_job.local_ranks = calloc((size_t)n, sizeof(int));
    if (!hosts || !smap_job.node_of || !smap_job.local_ranks) {
        free(hosts);
        snprintf(err, errlen, "out of memory learning the node layout");
        return -1;
    }
    int nnodes = 0, rc = 0;
    for (int r = 0; r < n && rc == 0; r++) {
        snprintf(key, sizeof key, "smap.host.%d", r);
        if (r == smap_job.rank)
            snprintf(val, sizeof val, "%s", me);
        else if (smap_boot_get(key, val, sizeof val) != 0) {
            snprintf(err, errlen, "rank %d's host name is missing from the PMI key-value space", r);
            rc = -1;
            break;
        }
        machine += same_machine(me, val);
        cpu_mates += r != smap_job.rank && same_cpu(me, val);
        const char *name = strchr(val, '/') ? strchr(val, '/') + 1 : val;
        int node = node_index_of(hosts, nnodes, name);
        if (node < 0) {
            node = nnodes;
            hosts[nnodes++] = strdup(name);
        }
        smap_job.node_of[r] = node;
    }
    for (int i = 0; i < nnodes; i++)
        free(hosts[i]);
    free(hosts);
    if (rc)
        return rc;
    smap_job.nnodes = nnodes;
    smap_wait_machine_ranks = machine;
    smap_wait_cpu_shared = cpu_mates > 0;
    if (cpu_mates)
        smap_log(SMAP_LOG_INFO, "job rank %d: %d other rank(s) of this machine are bound to "
                                "its CPU: its waits yield at once", smap_job.rank, cpu_mates);
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
