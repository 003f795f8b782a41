/* PMIx client, for launchers that speak only PMIx (Open MPI's mpirun, Slurm's
 * srun --mpi=pmix).  libpmix is opened with dlopen when the environment says
 * a PMIx server started us (PMIX_NAMESPACE, PMIX_RANK), so the library has
 * no link-time dependency on it and runs where it is missing.  Only the
 * subset boot needs: init (rank, size), put/commit, fence (collecting the
 * data), get from any rank, spawn, abort, finalize.  The headers are needed
 * to build this file (Debian libpmix-dev); without them the client reports
 * that it is not built. */
#include "boot/pmix_client.h"

#include "base/program.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A spawned child finds the keys its parent gave the launcher for it (the
 * PMI-1 spawn's preput keys) in its environment under this prefix. */
#define PREPUT_ENV "SMAP_PMIX_PREPUT_"

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
    pmix_status_t (*spawn)(const pmix_info_t *, size_t, const pmix_app_t *, size_t, char *);
    const char *(*error_string)(pmix_status_t);
    pmix_status_t (*publish)(const pmix_info_t *, size_t);
    pmix_status_t (*lookup)(pmix_pdata_t *, size_t, const pmix_info_t *, size_t);
    pmix_status_t (*unpublish)(char **, const pmix_info_t *, size_t);
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
    *(void **)&px.spawn = dlsym(lib, "PMIx_Spawn");   /* checked when used */
    *(void **)&px.error_string = dlsym(lib, "PMIx_Error_string");
    *(void **)&px.publish = dlsym(lib, "PMIx_Publish");
    *(void **)&px.lookup = dlsym(lib, "PMIx_Lookup");
    *(void **)&px.unpublish = dlsym(lib, "PMIx_Unpublish");
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

/* A uint32 attribute of this process (its appnum). */
static int proc_u32(const char *key, uint32_t *out)
{
    pmix_value_t *v = NULL;
    if (px.get(&me, key, NULL, 0, &v) != PMIX_SUCCESS || !v)
        return -1;
    int rc = v->type == PMIX_UINT32 ? 0 : -1;
    if (rc == 0)
        *out = v->data.uint32;
    else if (v->type == PMIX_STRING)
        free(v->data.string);
    free(v);
    return rc;
}

int smap_pmix_init(char *kvsname, size_t kvslen, int *appnum, int *universe)
{
    uint32_t u = 0, a = 0;
    snprintf(kvsname, kvslen, "%s", me.nspace);
    /* the command of a spawn_multiple (Open MPI's mpirun: the MPMD part) */
    *appnum = proc_u32(PMIX_APPNUM, &a) == 0 ? (int)a : 0;
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
    char name[256];
    snprintf(name, sizeof name, PREPUT_ENV "%s", key);
    const char *pre = getenv(name);
    if (pre) {   /* a key our parent gave us when it spawned us (smap_pmix_spawn) */
        if (strlen(pre) >= len)
            return -1;
        memcpy(value, pre, strlen(pre) + 1);
        return 0;
    }
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

/* ---- spawn (src/spawn through smap_pmi_spawn, DESIGN D17) ---------------- */

/* The program of a spawn command as an absolute path: a name with a '/'
 * relative to our working directory (where the program that wrote it
 * runs; the launcher resolves it in its own), else in the `path` info's
 * directories (':'-separated), then in our PATH.  Open MPI 4.1's mpirun
 * ends the whole job, parents included, when a spawned program cannot be
 * started, and PMIx_Spawn never answers (so does Open MPI's own
 * MPI_Comm_spawn there): a program that is not there is found out here,
 * before the launcher is asked, and becomes the parents' MPI_ERR_SPAWN. */
static int resolve_program(const char *cmd, const char *path, char *out, size_t len)
{
    char cwd[PATH_MAX], rel[PATH_MAX];
    if (smap_find_program(cmd, path, rel, sizeof rel) != 0)
        return -1;
    if (rel[0] == '/')
        return (size_t)snprintf(out, len, "%s", rel) < len ? 0 : -1;
    return getcwd(cwd, sizeof cwd) && (size_t)snprintf(out, len, "%s/%s", cwd, rel) < len ? 0 : -1;
}

/* The MPI info keys of one command as PMIx directives: host, hostfile and
 * wdir are what Open MPI 4.1's PMIx server takes for an application
 * (PMIX_HOST, PMIX_HOSTFILE, PMIX_WDIR: orte/orted/pmix/pmix_server_dyn.c;
 * any other key makes it print a "bad key" notice).  path chose the
 * program above (PMIX_PREFIX is the launcher's own installation prefix
 * there, not a search path); soft is met by starting maxprocs, which every
 * soft set allows, and arch is ignored, as smrun does.  A relative hostfile
 * or wdir names one in our working directory, as with smrun, not in
 * mpirun's.  Strings are ours: PMIx_Spawn copies what it sends. */
struct px_app {
    pmix_info_t info[3];
    char prog[PATH_MAX], dir[2][PATH_MAX];
    char **argv, **env;
};

static const char *absolute(const char *v, char *buf, size_t len)
{
    char cwd[PATH_MAX];
    if (v[0] == '/' || !getcwd(cwd, sizeof cwd) || (size_t)snprintf(buf, len, "%s/%s", cwd, v) >= len)
        return v;
    return buf;
}

static size_t app_info(struct px_app *a, const struct smap_spawn_cmd *c, const char **path)
{
    size_t n = 0;
    *path = NULL;
    for (int i = 0; i < c->ninfo; i++) {
        const char *k = c->info_keys[i], *v = c->info_vals[i], *pk = NULL;
        if (!strcmp(k, "path"))
            *path = v;
        else if (!strcmp(k, "host"))
            pk = PMIX_HOST;
        else if (!strcmp(k, "hostfile"))
            pk = PMIX_HOSTFILE, v = absolute(v, a->dir[0], sizeof a->dir[0]);
        else if (!strcmp(k, "wdir"))
            pk = PMIX_WDIR, v = absolute(v, a->dir[1], sizeof a->dir[1]);
        if (!pk || n == sizeof a->info / sizeof a->info[0])
            continue;
        pmix_info_t *in = &a->info[n++];
        memset(in, 0, sizeof *in);
        snprintf(in->key, sizeof in->key, "%s", pk);
        in->value.type = PMIX_STRING;
        in->value.data.string = (char *)v;
    }
    return n;
}

/* argv[0] is the program, then the command's arguments; env tells the
 * children they were spawned (PMI_SPAWNED=1, MPICH's word, which
 * src/spawn reads) and carries the preput keys: Open MPI 4.1's server
 * passes an application's env to its processes but no PMIX_PARENT_ID nor
 * job info of ours to the new namespace, so the environment is the one
 * channel that reaches them there (smap_pmix_get reads it first). */
static int app_vectors(struct px_app *a, const struct smap_spawn_cmd *c, const char *const *pkeys,
                       const char *const *pvals, int npre)
{
    int argc = 0;
    while (c->argv && c->argv[argc])
        argc++;
    if (!(a->argv = calloc((size_t)argc + 2, sizeof *a->argv)) ||
        !(a->env = calloc((size_t)npre + 2, sizeof *a->env)))
        return -1;
    a->argv[0] = a->prog;
    for (int i = 0; i < argc; i++)
        a->argv[i + 1] = c->argv[i];
    if (!(a->env[0] = strdup("PMI_SPAWNED=1")))
        return -1;
    for (int i = 0; i < npre; i++) {
        size_t n = strlen(PREPUT_ENV) + strlen(pkeys[i]) + strlen(pvals[i]) + 2;
        if (!(a->env[i + 1] = malloc(n)))
            return -1;
        snprintf(a->env[i + 1], n, PREPUT_ENV "%s=%s", pkeys[i], pvals[i]);
    }
    return 0;
}

static void apps_free(struct px_app *a, pmix_app_t *pa, int count)
{
    for (int i = 0; a && i < count; i++) {
        for (int k = 0; a[i].env && a[i].env[k]; k++)
            free(a[i].env[k]);
        free(a[i].argv), free(a[i].env);
    }
    free(a), free(pa);
}

int smap_pmix_spawn(const struct smap_spawn_cmd *cmds, int count, const char *const *pkeys,
                    const char *const *pvals, int npre, char *err, size_t errlen)
{
    if (!active || !px.spawn) {
        snprintf(err, errlen, "the PMIx library has no PMIx_Spawn");
        return -1;
    }
    struct px_app *a = calloc((size_t)count, sizeof *a);
    pmix_app_t *pa = calloc((size_t)count, sizeof *pa);
    int rc = a && pa ? 0 : -1;
    if (rc)
        snprintf(err, errlen, "out of memory");
    for (int i = 0; i < count && rc == 0; i++) {
        const char *path;
        size_t ninfo = app_info(&a[i], &cmds[i], &path);
        if (resolve_program(cmds[i].cmd, path, a[i].prog, sizeof a[i].prog) != 0) {
            snprintf(err, errlen, "program '%s' of command %d not found or not executable "
                     "(Open MPI's mpirun would end the whole job)", cmds[i].cmd, i);
            rc = -1;
        } else if (app_vectors(&a[i], &cmds[i], pkeys, pvals, npre) != 0) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        } else {
            pa[i] = (pmix_app_t){ .cmd = a[i].prog, .argv = a[i].argv, .env = a[i].env,
                                  .maxprocs = cmds[i].nprocs, .info = ninfo ? a[i].info : NULL,
                                  .ninfo = ninfo };
        }
    }
    char nspace[PMIX_MAX_NSLEN + 1] = "";
    pmix_status_t st = rc ? PMIX_SUCCESS : px.spawn(NULL, 0, pa, (size_t)count, nspace);
    if (rc == 0 && st != PMIX_SUCCESS) {
        /* Open MPI 4.1 answers with its own (ORTE) codes, which libpmix
         * cannot name: the number says it then */
        const char *name = px.error_string ? px.error_string(st) : NULL;
        if (!name || strstr(name, "NOT FOUND"))
            name = "the launcher could not place or start the children";
        snprintf(err, errlen, "the launcher refused the spawn: PMIx_Spawn: %s (status %d)", name,
                 (int)st);
        rc = -1;
    }
    apps_free(a, pa, count);
    return rc;
}

/* ---- names (src/spawn's MPI_Publish_name & co. through smap_pmi_*) ------- */

/* Open MPI 4.1's mpirun keeps published names in its data server, for
 * every job it started (the parents and their spawned children alike).
 * It accepts a second publish of a name and an unpublish of a name nobody
 * published without complaint (PMIx_Publish/Unpublish return success),
 * where MPI wants MPI_ERR_SERVICE: a lookup first finds both cases. */
int smap_pmix_lookup(const char *service, char *port, size_t len)
{
    pmix_pdata_t pd;
    memset(&pd, 0, sizeof pd);
    if (!active || !px.lookup || strlen(service) > PMIX_MAX_KEYLEN)
        return -1;
    snprintf(pd.key, sizeof pd.key, "%s", service);
    if (px.lookup(&pd, 1, NULL, 0) != PMIX_SUCCESS)
        return -1;
    int rc = -1;
    if (pd.value.type == PMIX_STRING && pd.value.data.string) {
        if (strlen(pd.value.data.string) < len) {
            memcpy(port, pd.value.data.string, strlen(pd.value.data.string) + 1);
            rc = 0;
        }
        free(pd.value.data.string);
    }
    return rc;
}

int smap_pmix_publish(const char *service, const char *port)
{
    char old[512];
    if (!px.publish || smap_pmix_lookup(service, old, sizeof old) == 0)
        return -1;
    pmix_info_t in;
    memset(&in, 0, sizeof in);
    snprintf(in.key, sizeof in.key, "%s", service);
    in.value.type = PMIX_STRING;
    in.value.data.string = (char *)port;   /* sent, not kept */
    return px.publish(&in, 1) == PMIX_SUCCESS ? 0 : -1;
}

int smap_pmix_unpublish(const char *service)
{
    char old[512];
    char *keys[2] = { (char *)service, NULL };
    if (!px.unpublish || smap_pmix_lookup(service, old, sizeof old) != 0)
        return -1;
    return px.unpublish(keys, NULL, 0) == PMIX_SUCCESS ? 0 : -1;
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
int smap_pmix_spawn(const struct smap_spawn_cmd *cmds, int count, const char *const *pkeys,
                    const char *const *pvals, int npre, char *err, size_t errlen)
{
    (void)cmds, (void)count, (void)pkeys, (void)pvals, (void)npre;
    snprintf(err, errlen, "this build has no PMIx client");
    return -1;
}
int smap_pmix_publish(const char *service, const char *port) { (void)service, (void)port; return -1; }
int smap_pmix_unpublish(const char *service) { (void)service; return -1; }
int smap_pmix_lookup(const char *service, char *port, size_t len)
{
    (void)service, (void)port, (void)len;
    return -1;
}
void smap_pmix_abort(int code, const char *msg) { (void)code, (void)msg; }
int smap_pmix_finalize(void) { return 0; }

#endif
