/* PMIx client, for launchers that speak only PMIx (Open MPI's mpirun, Slurm's
 * srun --mpi=pmix).  libpmix is opened with dlopen when the environment says
 * a PMIx server started us (PMIX_NAMESPACE, PMIX_RANK), so the library has
 * no link-time dependency on it and runs where it is missing.  Only the
 * subset boot needs: init (rank, size), put/commit, fence (collecting the
 * data), get from any rank, abort, finalize.  The headers are needed to
 * build this file (Debian libpmix-dev); without them the client reports
 * that it is not built. */
#include "boot/pmix_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SMAP_HAVE_PMIX_H
#include <dlfcn.h>
#include <pmix.h>

static struct {
    pmix_status_t (*init)(pmix_proc_t *, pmix_info_t *, size_t);
    pmix_status_t (*finalize)(const pmix_info_t *, size_t);
    pmix_status_t (*abort)(int, const char *, pmix_proc_t *, size_t);
    pmix_status_t (*put)(pmix_scope_t, const char *, pmix_value_t *);
    pmix_status_t (*commit)(void);
    pmix_status_t (*fence)(const pmix_proc_t *, size_t, const pmix_info_t *, size_t);
    pmix_status_t (*get)(const pmix_proc_t *, const char *, const pmix_info_t *, size_t,
                         pmix_value_t **);
} px;
static void *lib;
static pmix_proc_t me;
static int active;

static int load(char *err, size_t errlen)
{
    static const char *const names[] = { "libpmix.so.2", "libpmix.so" };
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++)
        lib = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        snprintf(err, errlen, "started by a PMIx launcher, but libpmix cannot be loaded: %s", dlerror());
        return -1;
    }
    *(void **)&px.init = dlsym(lib, "PMIx_Init");
    *(void **)&px.finalize = dlsym(lib, "PMIx_Finalize");
    *(void **)&px.abort = dlsym(lib, "PMIx_Abort");
    *(void **)&px.put = dlsym(lib, "PMIx_Put");
    *(void **)&px.commit = dlsym(lib, "PMIx_Commit");
    *(void **)&px.fence = dlsym(lib, "PMIx_Fence");
    *(void **)&px.get = dlsym(lib, "PMIx_Get");
    if (!px.init || !px.finalize || !px.abort || !px.put || !px.commit || !px.fence || !px.get) {
        snprintf(err, errlen, "libpmix lacks PMIx_Init/Get/Put/Commit/Fence/Abort/Finalize");
        return -1;
    }
    return 0;
}

/* A uint32 job attribute (size, universe size) of our namespace. */
static int job_u32(const char *key, uint32_t *out)
{
    pmix_proc_t wild;
    memset(&wild, 0, sizeof wild);
    snprintf(wild.nspace, sizeof wild.nspace, "%s", me.nspace);
    wild.rank = PMIX_RANK_WILDCARD;
    pmix_value_t *v = NULL;
    if (px.get(&wild, key, NULL, 0, &v) != PMIX_SUCCESS || !v)
        return -1;
    int rc = 0;
    if (v->type == PMIX_UINT32)
        *out = v->data.uint32;
    else if (v->type == PMIX_UINT16)
        *out = v->data.uint16;
    else
        rc = -1;
    free(v);   /* a scalar: nothing inside to release */
    return rc;
}

int smap_pmix_detect(int *rank, int *size, char *err, size_t errlen)
{
    if (!getenv("PMIX_NAMESPACE") || !getenv("PMIX_RANK"))
        return 0;
    if (load(err, errlen) != 0)
        return -1;
    if (px.init(&me, NULL, 0) != PMIX_SUCCESS) {
        snprintf(err, errlen, "PMIx_Init failed (is the PMIx server of the launcher reachable?)");
        return -1;
    }
    uint32_t n = 0;
    if (job_u32(PMIX_JOB_SIZE, &n) != 0 || n < 1 || me.rank >= n) {
        snprintf(err, errlen, "PMIx: cannot read the job size");
        return -1;
    }
    *rank = (int)me.rank;
    *size = (int)n;
    active = 1;
    return 1;
}

int smap_pmix_active(void)
{
    return active;
}

int smap_pmix_init(char *kvsname, size_t kvslen, int *appnum, int *universe)
{
    uint32_t u = 0;
    snprintf(kvsname, kvslen, "%s", me.nspace);
    *appnum = 0;
    *universe = job_u32(PMIX_UNIV_SIZE, &u) == 0 ? (int)u : 0;
    return 0;
}

int smap_pmix_put(const char *key, const char *value)
{
    pmix_value_t v;
    memset(&v, 0, sizeof v);
    v.type = PMIX_STRING;
    v.data.string = (char *)value;   /* copied by PMIx_Put */
    if (px.put(PMIX_GLOBAL, key, &v) != PMIX_SUCCESS)
        return -1;
    return px.commit() == PMIX_SUCCESS ? 0 : -1;
}

int smap_pmix_fence(void)
{
    pmix_info_t info;
    memset(&info, 0, sizeof info);
    snprintf(info.key, sizeof info.key, "%s", PMIX_COLLECT_DATA);
    info.value.type = PMIX_BOOL;
    info.value.data.flag = true;
    return px.fence(NULL, 0, &info, 1) == PMIX_SUCCESS ? 0 : -1;
}

/* Keys are per rank in PMIx; boot's keys name the rank that put them as
 * their last ".<rank>" part ("smap.host.3"), so that rank is asked; any
 * other key is looked up on every rank until one has it. */
int smap_pmix_get(const char *key, char *value, size_t len, int size)
{
    pmix_proc_t p;
    memset(&p, 0, sizeof p);
    snprintf(p.nspace, sizeof p.nspace, "%s", me.nspace);
    const char *dot = strrchr(key, '.');
    char *end = NULL;
    long owner = dot ? strtol(dot + 1, &end, 10) : -1;
    int first = 0, last = size - 1;
    if (dot && end && !*end && end != dot + 1 && owner >= 0 && owner < size)
        first = last = (int)owner;
    for (int r = first; r <= last; r++) {
        p.rank = (pmix_rank_t)r;
        pmix_value_t *v = NULL;
        if (px.get(&p, key, NULL, 0, &v) != PMIX_SUCCESS || !v)
            continue;
        int rc = -1;
        if (v->type == PMIX_STRING && v->data.string && strlen(v->data.string) < len) {
            memcpy(value, v->data.string, strlen(v->data.string) + 1);
            rc = 0;
        }
        if (v->type == PMIX_STRING)
            free(v->data.string);
        free(v);
        if (rc == 0)
            return 0;
    }
    return -1;
}

/* The node the launcher placed us on (PMIX_HOSTNAME of our own process,
 * served locally).  PMI-1's PMI_process_mapping does not exist in PMIx,
 * and asking a remote rank for a key nobody put blocks for ever (the
 * server waits for it to appear), so boot asks this instead. */
int smap_pmix_node_name(char *buf, size_t len)
{
    pmix_value_t *v = NULL;
    if (!active || px.get(&me, PMIX_HOSTNAME, NULL, 0, &v) != PMIX_SUCCESS || !v)
        return -1;
    int rc = -1;
    if (v->type == PMIX_STRING && v->data.string && *v->data.string) {
        snprintf(buf, len, "pmix-%s", v->data.string);
        rc = 0;
    }
    if (v->type == PMIX_STRING)
        free(v->data.string);
    free(v);
    return rc;
}

void smap_pmix_abort(int code, const char *msg)
{
    if (active)
        px.abort(code, msg ? msg : "MPI_Abort", NULL, 0);
}

int smap_pmix_finalize(void)
{
    if (!active)
        return 0;
    active = 0;
    return px.finalize(NULL, 0) == PMIX_SUCCESS ? 0 : -1;
}

#else   /* built without the PMIx headers */

int smap_pmix_detect(int *rank, int *size, char *err, size_t errlen)
{
    (void)rank, (void)size;
    if (!getenv("PMIX_NAMESPACE") || !getenv("PMIX_RANK") || getenv("PMI_FD"))
        return 0;
    snprintf(err, errlen, "started by a PMIx launcher, but this build has no PMIx client "
                          "(build with Debian's libpmix-dev installed)");
    return -1;
}
int smap_pmix_active(void) { return 0; }
int smap_pmix_init(char *kvsname, size_t kvslen, int *appnum, int *universe)
{
    (void)kvsname, (void)kvslen, (void)appnum, (void)universe;
    return -1;
}
int smap_pmix_put(const char *key, const char *value) { (void)key, (void)value; return -1; }
int smap_pmix_fence(void) { return -1; }
int smap_pmix_node_name(char *buf, size_t len) { (void)buf, (void)len; return -1; }
int smap_pmix_get(const char *key, char *value, size_t len, int size)
{
    (void)key, (void)value, (void)len, (void)size;
    return -1;
}
void smap_pmix_abort(int code, const char *msg) { (void)code, (void)msg; }
int smap_pmix_finalize(void) { return 0; }

#endif
