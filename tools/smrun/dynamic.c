/* Dynamic processes (DESIGN.md D17) on smrun's side: the PMI-1 spawn
 * request and the name service of one job.
 *
 * Spawn: MPICH's multi-line form, one block per command
 *     mcmd=spawn / nprocs= / execname= / totspawns= / spawnssofar= /
 *     argcnt= / argN= / preput_num= / preput_key_i= / preput_val_i= /
 *     info_num= / info_key_i= / info_val_i= / endcmd
 * and one `cmd=spawn_result rc=0` once the last block is in.  The
 * children are a job of their own: a nested smrun (this executable) with
 * one MPMD part per command, started here as a child of this smrun; its
 * exit is judged like a rank's (a child job that fails stops this job with
 * its code), it is stopped with the ranks, and this smrun waits for it
 * before exiting.  The preput keys reach the nested smrun's key-value
 * space through SMRUN_SPAWN_KVS ("KEY=VALUE ..."), and its ranks get
 * PMI_SPAWNED=1.  Info keys: wdir (-wdir), host (-host), hostfile (its
 * hosts become the command's -host), path (where the program is looked
 * for first), soft (accepted: maxprocs are started), arch (ignored).
 *
 * Across hosts (this smrun is an agent) the nested smrun is the head of
 * a job over the parents' hosts: the head's host list (`set job-hosts`)
 * with --map-by node, so that children go round-robin over the hosts,
 * the head's launcher, and this host's address toward the head as its
 * own head address (where its agents connect).  A command with a host or
 * hostfile key goes to those hosts instead. */
#include "smrun.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"

struct smrun_spawn_req {
    int total, sofar;          /* totspawns, spawnssofar of the block being read */
    int blocks;                /* blocks read */
    char ikey[64];             /* the info key waiting for its value */
    char **argv;               /* the nested smrun's command line so far */
    int argc, cap;
    char kvs[SMAP_PMI_MAXLINE];    /* preputs, "K=V K2=V2" */
    /* the block being read */
    int nprocs, nargs;
    char *exec, *wdir, *host, *hostfile, *path;
    int first_host;            /* the first command names its hosts (they are global then) */
    char **args;
    int bad;                   /* the request is malformed */
    char why[160];
};

static int push(struct smrun_spawn_req *q, const char *s)
{
    if (q->argc + 2 > q->cap) {
        int cap = q->cap ? 2 * q->cap : 32;
        char **a = realloc(q->argv, (size_t)cap * sizeof *a);
        if (!a)
            return -1;
        q->argv = a;
        q->cap = cap;
    }
    if (!(q->argv[q->argc] = strdup(s)))
        return -1;
    q->argv[++q->argc] = NULL;
    return 0;
}

static void block_free(struct smrun_spawn_req *q)
{
    for (int i = 0; q->args && i < q->nargs; i++)
        free(q->args[i]);
    free(q->args), free(q->exec), free(q->wdir), free(q->host), free(q->hostfile), free(q->path);
    q->args = NULL;
    q->exec = q->wdir = q->host = q->hostfile = q->path = NULL;
    q->nargs = q->nprocs = 0;
}

static void req_free(struct smrun_spawn_req *q)
{
    if (!q)
        return;
    block_free(q);
    for (int i = 0; i < q->argc; i++)
        free(q->argv[i]);
    free(q->argv);
    free(q);
}

static void set_bad(struct smrun_spawn_req *q, const char *why)
{
    if (!q->bad)
        snprintf(q->why, sizeof q->why, "%s", why);
    q->bad = 1;
}

/* The program of a block: `path` info first, then as smrun finds it. */
static int resolve(struct smrun_spawn_req *q, char *out, size_t len)
{
    return smrun_resolve_program_in(q->exec, q->path, out, len);
}

/* The hosts of a block: its host key, else its hostfile's hosts, else
 * (across hosts) the job's when the first command named others.  NULL:
 * the job's, through the nested smrun's global --host. */
static const char *block_hosts(const struct smrun_job *job, struct smrun_spawn_req *q,
                               char *buf, size_t len)
{
    if (q->host)
        return q->host;
    if (q->hostfile) {
        if (smrun_hostfile_list(q->hostfile, buf, len) != 0) {
            set_bad(q, "bad_hostfile");
            return NULL;
        }
        return buf;
    }
    return q->blocks > 1 && q->first_host && job->opt ? job->opt->job_hosts : NULL;
}

/* endcmd: the block becomes an MPMD part of the nested command line. */
static void end_block(const struct smrun_job *job, struct smrun_spawn_req *q)
{
    char n[16], prog[PATH_MAX], list[SMAP_PMI_MAXLINE];
    if (!q->exec || q->nprocs <= 0)
        set_bad(q, "a spawn block without execname or a positive nprocs");
    else if (resolve(q, prog, sizeof prog) != 0)
        set_bad(q, "program_not_found");
    const char *hosts = q->bad ? NULL : block_hosts(job, q, list, sizeof list);
    if (q->bad) {
        block_free(q);
        return;
    }
    if (q->blocks == 1)
        q->first_host = hosts != NULL;
    snprintf(n, sizeof n, "%d", q->nprocs);
    int rc = (q->blocks > 1 ? push(q, ":") : 0) | push(q, "-n") | push(q, n);
    if (q->wdir)
        rc |= push(q, "-wdir") | push(q, q->wdir);
    if (hosts)
        rc |= push(q, "-host") | push(q, hosts);
    rc |= push(q, prog);
    for (int i = 0; i < q->nargs; i++)
        rc |= push(q, q->args[i] ? q->args[i] : "");
    if (rc)
        set_bad(q, "out_of_memory");
    block_free(q);
}

static void info(struct smrun_spawn_req *q, const char *key, const char *val)
{
    char **slot = !strcmp(key, "wdir") ? &q->wdir : !strcmp(key, "host") ? &q->host
                : !strcmp(key, "hostfile") ? &q->hostfile : !strcmp(key, "path") ? &q->path : NULL;
    if (slot) {
        free(*slot);
        *slot = strdup(val);
    }
    /* soft: every maxprocs is started, which any soft set allows;
     * arch and unknown keys are ignored (MPI 5.0 11.3.4) */
}

/* Across hosts: the options that make the nested smrun the head of a
 * job over the parents' hosts (see the top), inserted after argv[2]
 * ("smrun --bind-to none").  0, or -1 when out of memory or this host
 * has no address toward the head. */
static int across_hosts(struct smrun_job *job, struct smrun_spawn_req *q)
{
    const struct smrun_options *o = job->opt;
    char addr[64];
    if (!job->agent || !o)
        return 0;
    if (smrun_agent_local_addr(job, addr, sizeof addr) != 0)
        return -1;
    const char *launch = o->launch == SMRUN_LAUNCH_FORK ? "fork"
                       : o->launch == SMRUN_LAUNCH_SLURM ? "slurm"
                       : o->launch == SMRUN_LAUNCH_RSH ? o->launcher : NULL;
    const char *words[10];
    int n = 0;
    words[n++] = "--head-addr", words[n++] = addr, words[n++] = "--map-by", words[n++] = "node";
    if (launch)
        words[n++] = "--launcher", words[n++] = launch;
    if (!q->first_host && o->job_hosts)
        words[n++] = "--host", words[n++] = o->job_hosts;
    int at = q->argc;
    for (int i = 0; i < n; i++)
        if (push(q, words[i]) != 0)
            return -1;
    /* rotate the pushed words to just after "smrun --bind-to none" */
    char *tmp[10];
    memcpy(tmp, q->argv + at, (size_t)n * sizeof *tmp);
    memmove(q->argv + 3 + n, q->argv + 3, (size_t)(at - 3) * sizeof *q->argv);
    memcpy(q->argv + 3, tmp, (size_t)n * sizeof *tmp);
    return 0;
}

/* Starts the nested smrun; its pid, or -1 (fork or exec path failed),
 * -2 (across hosts: no address toward the head, or out of memory). */
static pid_t launch(struct smrun_job *job, struct smrun_spawn_req *q)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    if (across_hosts(job, q) != 0)
        return -2;
    self[n] = '\0';
    free(q->argv[0]);
    q->argv[0] = strdup(self);
    if (job->opt && job->opt->verbose)
        for (int i = 0; i < q->argc; i++)
            smap_debug("spawn argv[%d] = %s", i, q->argv[i]);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    /* its own process group: stopping the job signals the group */
    setpgid(0, 0);
    /* it dies with us, and reads no input of ours */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0)
        dup2(null, STDIN_FILENO);
    smrun_signals_reset_in_child();
    setenv("SMRUN_SPAWN_KVS", q->kvs, 1);
    execv(self, q->argv);
    dprintf(STDERR_FILENO, "smrun: cannot start the spawned job: %s\n", strerror(errno));
    _exit(SMRUN_EXIT_NOEXEC);
}

static int spawn_done(struct smrun_job *job, struct smrun_rank *r, struct smrun_spawn_req *q)
{
    const char *msg = q->bad ? q->why : NULL;
    pid_t pid = -1;
    if (!q->bad && (pid = launch(job, q)) < 0)
        msg = pid == -2 ? "no_address_toward_the_head_for_the_children" : "fork_failed";
    if (pid > 0) {
        struct smrun_kid *k = realloc(job->kids, ((size_t)job->nkids + 1) * sizeof *k);
        if (k) {
            job->kids = k;
            job->kids[job->nkids++] = (struct smrun_kid){ .pid = pid, .alive = 1 };
            job->alive++;
        }
        smap_debug("rank %d spawned a job (smrun pid %d)", r->rank, (int)pid);
    }
    char line[256];
    if (msg)
        snprintf(line, sizeof line, "cmd=spawn_result rc=-1 msg=%s\n", msg);
    else
        snprintf(line, sizeof line, "cmd=spawn_result rc=0\n");
    for (char *c = line + strlen("cmd=spawn_result rc=-1 msg="); msg && *c && *c != '\n'; c++)
        if (*c == ' ')
            *c = '_';
    if (r->pmi.fd >= 0 && smap_pmi_writef(r->pmi.fd, "%s", line) != 0)
        return -1;
    return 0;
}

int smrun_spawn_line(struct smrun_job *job, struct smrun_rank *r, char *line, const char **why)
{
    struct smrun_spawn_req *q = r->spawn;
    if (!q) {
        if (!(q = r->spawn = calloc(1, sizeof *q)) || push(q, "smrun") || push(q, "--bind-to") ||
            push(q, "none")) {
            *why = "out of memory for a spawn request";
            return -1;
        }
    }
    char *eq = strchr(line, '=');
    const char *key = line, *val = eq ? eq + 1 : "";
    if (eq)
        *eq = '\0';
    if (!strcmp(key, "mcmd")) {
        if (strcmp(val, "spawn") != 0) {
            *why = "mcmd other than spawn";
            return -1;
        }
    } else if (!strcmp(key, "nprocs")) {
        q->nprocs = atoi(val);
    } else if (!strcmp(key, "execname")) {
        free(q->exec);
        q->exec = strdup(val);
    } else if (!strcmp(key, "totspawns")) {
        q->total = atoi(val);
    } else if (!strcmp(key, "spawnssofar")) {
        q->sofar = atoi(val);
    } else if (!strcmp(key, "preput_num") || !strcmp(key, "info_num")) {
        /* counts: the keys that follow say it all */
    } else if (!strcmp(key, "argcnt")) {
        int n = atoi(val);
        if (n < 0 || n > 4096) {
            *why = "argcnt out of range";
            return -1;
        }
        for (int i = 0; q->args && i < q->nargs; i++)
            free(q->args[i]);
        free(q->args);
        q->args = calloc((size_t)n + 1, sizeof *q->args);
        q->nargs = q->args ? n : 0;
    } else if (!strncmp(key, "arg", 3) && key[3] >= '1' && key[3] <= '9') {
        int i = atoi(key + 3);
        if (i >= 1 && i <= q->nargs) {
            free(q->args[i - 1]);
            q->args[i - 1] = strdup(val);
        }
    } else if (!strncmp(key, "preput_key_", 11) || !strncmp(key, "preput_val_", 11)) {
        /* the same preputs come with every block: the first block's count */
        size_t at = strlen(q->kvs);
        int is_key = key[7] == 'k';
        if (q->blocks == 0 && at + strlen(val) + 2 < sizeof q->kvs)
            snprintf(q->kvs + at, sizeof q->kvs - at, "%s%s%s", is_key && at ? " " : "", val,
                     is_key ? "=" : "");
    } else if (!strncmp(key, "info_key_", 9)) {
        snprintf(q->ikey, sizeof q->ikey, "%s", val);
    } else if (!strncmp(key, "info_val_", 9)) {
        info(q, q->ikey, val);
        q->ikey[0] = '\0';
    } else if (!strcmp(key, "endcmd")) {
        q->blocks++;
        end_block(job, q);
        if (q->sofar >= q->total) {
            r->spawn = NULL;
            int rc = spawn_done(job, r, q);
            req_free(q);
            if (rc)
                *why = "the rank does not read its PMI responses";
            return rc;
        }
    } else {
        set_bad(q, "unknown_spawn_key");
    }
    return 0;
}

struct smrun_kid *smrun_kid_of(struct smrun_job *job, pid_t pid)
{
    for (int i = 0; i < job->nkids; i++)
        if (job->kids[i].pid == pid)
            return &job->kids[i];
    return NULL;
}

/* ---- the name service ------------------------------------------------- */

static struct smrun_name **name_find(struct smrun_job *job, const char *service)
{
    struct smrun_name **pp = &job->names;
    while (*pp && strcmp((*pp)->service, service) != 0)
        pp = &(*pp)->next;
    return pp;
}

void smrun_names_answer(struct smrun_job *job, const char *cmd, const char *service,
                        const char *port, char *out, size_t len)
{
    /* jobs sharing a name server (nameserver.c) ask it; an smrun that
     * is the name server answers from its table */
    const char *ns = getenv("SMRUN_NAMESERVER");
    const char *verb = !strcmp(cmd, "publish_name") ? "publish" : !strcmp(cmd, "unpublish_name")
                                                                   ? "unpublish" : "lookup";
    if (ns && *ns && job->ranks) {
        char req[SMAP_PMI_MAXLINE];
        snprintf(req, sizeof req, "cmd=%s service=%s%s%s", cmd, service, port ? " port=" : "",
                 port ? port : "");
        if (smrun_nameserver_ask(ns, req, out, len) != 0)
            snprintf(out, len, "cmd=%s_result rc=-1 msg=name_server_%s_unreachable", verb, ns);
        return;
    }
    struct smrun_name **pp = name_find(job, service), *n = *pp;
    if (!strcmp(cmd, "publish_name")) {
        if (!port)
            snprintf(out, len, "cmd=publish_result rc=-1 msg=no_port");
        else if (n)
            snprintf(out, len, "cmd=publish_result rc=-1 msg=already_published");
        else if (!(n = calloc(1, sizeof *n)) || !(n->service = strdup(service)) ||
                 !(n->port = strdup(port)))
            snprintf(out, len, "cmd=publish_result rc=-1 msg=out_of_memory");
        else {
            n->next = job->names;
            job->names = n;
            snprintf(out, len, "cmd=publish_result rc=0 msg=success");
        }
    } else if (!strcmp(cmd, "unpublish_name")) {
        if (!n) {
            snprintf(out, len, "cmd=unpublish_result rc=-1 msg=not_published");
            return;
        }
        *pp = n->next;
        free(n->service), free(n->port), free(n);
        snprintf(out, len, "cmd=unpublish_result rc=0 msg=success");
    } else if (n) {
        snprintf(out, len, "cmd=lookup_result rc=0 port=%s", n->port);
    } else {
        snprintf(out, len, "cmd=lookup_result rc=-1 msg=not_published");
    }
}

void smrun_dynamic_free(struct smrun_job *job)
{
    while (job->names) {
        struct smrun_name *n = job->names;
        job->names = n->next;
        free(n->service), free(n->port), free(n);
    }
    free(job->kids);
    job->kids = NULL;
    job->nkids = 0;
}
