/* The agent: "smrun --agent ADDR PORT NODE COOKIE", started on a host by
 * the head through the launcher (ssh HOST smrun --agent ...).  It connects
 * back to the head over TCP, receives the job (program, environment,
 * options, its ranks, the node layout key), and then runs its ranks with the
 * same machinery as a one-node smrun, except that:
 *   - PMI puts go to the head too, and a PMI barrier completes when the head
 *     says every host is in (it then sends the other hosts' puts first);
 *   - every failure, abort and exit goes to the head, which decides the exit
 *     code and tells every agent to stop;
 *   - stdout/stderr go to the agent's own, i.e. back through the launcher
 *     to the head, already tagged with global ranks;
 *   - losing the head kills the ranks at once.
 * The ranks' environment: the agent's own (what the remote shell gave it),
 * plus every variable of the head's environment it lacks, plus -x/-genv,
 * plus SMAP_NODE_NAME naming this host as placed. */
#include "smrun.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/log.h"
#include "base/timer.h"

#define AGENT_SETUP_S 60.0

struct smrun_agent {
    struct smrun_link link;
    int lost;                /* the head went away */
};

static struct smrun_agent agent;

/* ---- hooks called by the rank machinery --------------------------------- */

void smrun_agent_put(struct smrun_job *job, const char *key, const char *value)
{
    smrun_link_send(&job->agent->link, "put", key, value, NULL);
}

void smrun_agent_barrier(struct smrun_job *job)
{
    smrun_link_send(&job->agent->link, "barrier", NULL);
}

void smrun_agent_exit(struct smrun_job *job, const struct smrun_rank *r)
{
    char rank[16], st[16], joined[4];
    snprintf(rank, sizeof rank, "%d", r->rank);
    snprintf(st, sizeof st, "%d", r->status);
    snprintf(joined, sizeof joined, "%d", r->pmi.in_barrier);
    smrun_link_send(&job->agent->link, "exit", rank, st, joined, NULL);
}

void smrun_agent_fail(struct smrun_job *job, int code, const char *text)
{
    char c[16];
    snprintf(c, sizeof c, "%d", code);
    smrun_link_send(&job->agent->link, "fail", c, text, NULL);
}

void smrun_agent_name(struct smrun_job *job, const struct smrun_rank *r, const char *cmd,
                      const char *service, const char *port)
{
    char rank[16];
    snprintf(rank, sizeof rank, "%d", r->rank);
    smrun_link_send(&job->agent->link, "name", rank, cmd, service, port ? port : "", NULL);
}

int smrun_agent_local_addr(const struct smrun_job *job, char *out, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (job->agent->link.fd < 0 || getsockname(job->agent->link.fd, (struct sockaddr *)&ss, &sl) != 0)
        return -1;
    const void *a = ss.ss_family == AF_INET6 ? (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr
                                             : (const void *)&((struct sockaddr_in *)&ss)->sin_addr;
    return inet_ntop(ss.ss_family, a, out, (socklen_t)len) ? 0 : -1;
}

int smrun_agent_fd(const struct smrun_job *job, short *events)
{
    const struct smrun_link *l = &job->agent->link;
    *events = (short)(POLLIN | (smrun_link_pending(l) ? POLLOUT : 0));
    return l->fd;
}

static void head_lost(struct smrun_job *job)
{
    smrun_link_close(&job->agent->link);
    if (!job->agent->lost && !job->stopping)
        smrun_msg("lost the connection to the head smrun: killing the ranks");
    job->agent->lost = 1;
    smrun_job_stop_signal(job, SMRUN_EXIT_FAILURE, SIGKILL);
}

static void on_message(struct smrun_job *job, const struct smrun_link_msg *m)
{
    const char *v = m->w[0];
    if (strcmp(v, "kv") == 0) {
        if (smrun_kvs_put(&job->kvs, m->w[1], m->w[2]) != 0)
            smrun_job_fail(job, SMRUN_EXIT_FAILURE, "the key-value space is full");
    } else if (strcmp(v, "name_result") == 0) {   /* name_result RANK LINE */
        for (int i = 0; i < job->n; i++) {
            struct smrun_rank *r = &job->ranks[i];
            if (r->rank == atoi(m->w[1]) && r->pmi.fd >= 0 &&
                smap_pmi_writef(r->pmi.fd, "%s\n", m->w[2]) != 0)
                smrun_job_fail(job, SMRUN_EXIT_FAILURE,
                               "rank %d: PMI protocol error: the rank does not read its PMI responses",
                               r->rank);
        }
    } else if (strcmp(v, "barrier_out") == 0) {
        smrun_pmi_barrier_release(job);
    } else if (strcmp(v, "stop") == 0) {
        int sig = atoi(m->w[1]);
        smrun_job_stop_signal(job, 128 + sig, sig > 0 && sig < 65 ? sig : SIGTERM);
    }
}

void smrun_agent_event(struct smrun_job *job)
{
    struct smrun_link *l = &job->agent->link;
    if (l->fd < 0)
        return;
    if (smrun_link_flush(l) != 0) {
        head_lost(job);
        return;
    }
    int rc = smrun_link_fill(l);
    struct smrun_link_msg m;
    int got = 0;
    while (l->fd >= 0 && (got = smrun_link_next(l, &m)) > 0)
        on_message(job, &m);
    if (rc < 0 || (l->fd >= 0 && got < 0))
        head_lost(job);
}

/* ---- setup -------------------------------------------------------------- */

struct setup {
    struct smrun_options opt;
    char **argv;
    int argc;
    int *ranks;
    int *rank_app;           /* MPMD: each rank's part */
    struct smrun_app *apps;  /* MPMD parts (napps > 0), argv and env malloc'd */
    int *app_argc;
    int napps;
    int n, size;
    char kvsname[64];
    char node_name[256];
    char place[3][64];       /* --bind-to, --map-by, --rank-by as given ("-": not) */
    char **kv;
    int nkv;
    char *launcher;          /* the head's remote shell (set launch) */
    int go;
};

static int push(char ***list, int *n, const char *s)
{
    char **l = realloc(*list, (size_t)(*n + 2) * sizeof *l);
    if (!l)
        return -1;
    *list = l;
    if (!(l[*n] = strdup(s)))
        return -1;
    l[++*n] = NULL;
    return 0;
}

/* Variables of the head that say where the head runs, not the job. */
static int host_specific(const char *entry)
{
    static const char *const names[] = { "HOSTNAME=", "PWD=", "OLDPWD=", "SHLVL=", "_=",
                                         "SSH_", "DISPLAY=", "TMPDIR=" };
    for (size_t i = 0; i < SMAP_ARRAY_SIZE(names); i++)
        if (strncmp(entry, names[i], strlen(names[i])) == 0)
            return 1;
    return 0;
}

/* "set NAME VALUE": the head's options beyond the "job" message. */
static int apply_setting(struct setup *s, const char *name, const char *value)
{
    struct smrun_options *o = &s->opt;
    char **str = strcmp(name, "output-dir") == 0 ? &o->output_dir
               : strcmp(name, "outfile-pattern") == 0 ? &o->outfile_pattern
               : strcmp(name, "errfile-pattern") == 0 ? &o->errfile_pattern : NULL;
    if (str) {
        free(*str);
        *str = strdup(value);
        return *str ? 0 : -1;
    }
    if (strcmp(name, "job-hosts") == 0) {
        free(o->job_hosts);
        return (o->job_hosts = strdup(value)) ? 0 : -1;
    }
    if (strcmp(name, "launch") == 0) {
        /* as the head was told: the agent's own copy of the word */
        free(s->launcher);
        s->launcher = NULL;
        o->launch = !strcmp(value, "fork") ? SMRUN_LAUNCH_FORK
                  : !strcmp(value, "slurm") ? SMRUN_LAUNCH_SLURM
                  : *value ? SMRUN_LAUNCH_RSH : SMRUN_LAUNCH_DEFAULT;
        if (o->launch == SMRUN_LAUNCH_RSH && !(s->launcher = strdup(value)))
            return -1;
        o->launcher = s->launcher;
        return 0;
    }
    if (strcmp(name, "universe") == 0)
        o->universe = atoi(value) > 0 ? atoi(value) : 0;
    else if (strcmp(name, "envnone") == 0)
        o->envnone = atoi(value) != 0;
    else if (strcmp(name, "machine-slice") == 0 &&
             (sscanf(value, "%d:%d", &o->slice_first, &o->slice_total) != 2 ||
              o->slice_first < 0 || o->slice_total < 0 || o->slice_first > o->slice_total))
        o->slice_first = o->slice_total = 0;
    else if (strcmp(name, "output-nocopy") == 0)
        o->output_nocopy = atoi(value) != 0;
    else if (strcmp(name, "output-nojobid") == 0)
        o->output_nojobid = atoi(value) != 0;
    return 0;   /* an unknown name: a newer head; its option is not applied */
}

/* MPMD parts: "app A WDIR ENVNONE" (in order), "aarg A WORD", "aenv A E". */
static int part_message(struct setup *s, const struct smrun_link_msg *m)
{
    int a = atoi(m->w[1]);
    if (strcmp(m->w[0], "app") == 0) {
        if (a != s->napps || a >= 65536)
            return -1;
        struct smrun_app *apps = realloc(s->apps, (size_t)(a + 1) * sizeof *apps);
        int *argc = apps ? realloc(s->app_argc, (size_t)(a + 1) * sizeof *argc) : NULL;
        if (apps)
            s->apps = apps;
        if (!argc)
            return -1;
        s->app_argc = argc;
        memset(&apps[a], 0, sizeof apps[a]);
        argc[a] = 0;
        apps[a].envnone = atoi(m->w[3]);
        s->napps++;
        if (*m->w[2] && !(apps[a].wdir = strdup(m->w[2])))
            return -1;
        apps[a].argv = calloc(1, sizeof *apps[a].argv);   /* empty, NULL-terminated */
        return apps[a].argv ? 0 : -1;
    }
    if (a < 0 || a >= s->napps)
        return -1;
    struct smrun_app *app = &s->apps[a];
    if (strcmp(m->w[0], "aarg") == 0)
        return push(&app->argv, &s->app_argc[a], m->w[2]);
    return push(&app->env, &app->nenv, m->w[2]);
}

static int setup_message(struct setup *s, const struct smrun_link_msg *m)
{
    const char *v = m->w[0];
    if (strcmp(v, "arg") == 0)
        return push(&s->argv, &s->argc, m->w[1]);
    if (strcmp(v, "env") == 0)
        return push(&s->opt.env, &s->opt.nenv, m->w[1]);
    if (strcmp(v, "henv") == 0) {
        const char *eq = strchr(m->w[1], '=');
        if (eq && !host_specific(m->w[1])) {
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(eq - m->w[1]), m->w[1]);
            setenv(name, eq + 1, 0);   /* the host's own value wins */
        }
        return 0;
    }
    if (strcmp(v, "cwd") == 0) {
        if (chdir(m->w[1]) != 0)
            smap_debug("cannot enter %s here: %s", m->w[1], strerror(errno));
        return 0;
    }
    if (strcmp(v, "job") == 0) {   /* job SIZE KVSNAME NODE_NAME TAG BIND VERBOSE REPORT MAP RANKBY */
        s->size = atoi(m->w[1]);
        snprintf(s->kvsname, sizeof s->kvsname, "%s", m->w[2]);
        snprintf(s->node_name, sizeof s->node_name, "%s", m->w[3]);
        s->opt.tag_output = atoi(m->w[4]);
        s->opt.verbose = atoi(m->w[6]);
        s->opt.report_bindings = atoi(m->w[7]);
        /* the words live in the message: keep copies */
        for (int k = 0; k < 3; k++)
            snprintf(s->place[k], sizeof s->place[k], "%s", m->w[k == 0 ? 5 : 7 + k]);
        return smrun_options_placement(&s->opt, s->place[0], s->place[1], s->place[2]) ? -1 : 0;
    }
    if (strcmp(v, "rank") == 0) {   /* rank R [APP] */
        int *r = realloc(s->ranks, (size_t)(s->n + 1) * sizeof *r);
        int *ra = r ? realloc(s->rank_app, (size_t)(s->n + 1) * sizeof *ra) : NULL;
        if (r)
            s->ranks = r;
        if (!ra)
            return -1;
        s->rank_app = ra;
        s->rank_app[s->n] = atoi(m->w[2]);
        if (s->rank_app[s->n] < 0 || s->rank_app[s->n] >= (s->napps ? s->napps : 1))
            return -1;
        s->ranks[s->n++] = atoi(m->w[1]);
        return 0;
    }
    if (strcmp(v, "app") == 0 || strcmp(v, "aarg") == 0 || strcmp(v, "aenv") == 0)
        return part_message(s, m);
    if (strcmp(v, "kv") == 0)
        return push(&s->kv, &s->nkv, m->w[1]) || push(&s->kv, &s->nkv, m->w[2]) ? -1 : 0;
    if (strcmp(v, "set") == 0)
        return apply_setting(s, m->w[1], m->w[2]);
    if (strcmp(v, "go") == 0) {
        s->go = 1;
        return 0;
    }
    return 0;   /* "stop" before "go", or unknown: the checks below decide */
}

static int receive_setup(struct setup *s)
{
    double until = smap_now() + AGENT_SETUP_S;
    while (!s->go) {
        struct smrun_link_msg m;
        int got = 0;
        while (!s->go && (got = smrun_link_next(&agent.link, &m)) > 0)
            if (setup_message(s, &m) != 0)
                return -1;
        if (s->go)
            break;
        if (got < 0 || smap_now() > until)
            return -1;
        struct pollfd p = { .fd = agent.link.fd, .events = POLLIN };
        poll(&p, 1, 1000);
        if (smrun_link_fill(&agent.link) < 0)
            return -1;
    }
    return s->n > 0 && s->argc > 0 && s->size >= s->n ? 0 : -1;
}

/* ADDR is numeric, IPv4 or IPv6 (the head's listening address). */
static int connect_head(const char *addr, const char *port)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV }, *res;
    char *end;
    long p = strtol(port, &end, 10);
    if (*end || p < 1 || p > 65535 || getaddrinfo(addr, port, &hints, &res) != 0)
        return -1;
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
        if (fd >= 0)
            close(fd);
        freeaddrinfo(res);
        return -1;
    }
    freeaddrinfo(res);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static void free_setup(struct setup *s)
{
    for (int a = 0; a < s->napps; a++) {
        for (char **w = s->apps[a].argv; w && *w; w++)
            free(*w);
        free(s->apps[a].argv);
        free((char *)s->apps[a].wdir);
        if (a == 0) {
            for (int i = 0; i < s->apps[0].nenv; i++)
                free(s->apps[0].env[i]);
            free(s->apps[0].env);
        }
    }
    /* The parts themselves go with the options. */
    s->opt.apps = s->apps;
    s->opt.napps = s->napps;
    free(s->app_argc);
    free(s->rank_app);
    for (int i = 0; i < s->argc; i++)
        free(s->argv[i]);
    free(s->argv);
    for (int i = 0; i < s->nkv; i++)
        free(s->kv[i]);
    free(s->kv);
    free(s->ranks);
    free(s->launcher);
    smrun_options_free(&s->opt);
}

/* MPMD: the programs of the parts that have ranks here, found before any
 * starts; the options take the parts (free_setup frees their words). */
static int resolve_parts(struct setup *s)
{
    unsigned char *used = calloc((size_t)s->napps, 1);
    if (!used)
        return SMRUN_EXIT_FAILURE;
    for (int i = 0; i < s->n; i++)
        used[s->rank_app[i]] = 1;
    int rc = 0;
    for (int a = 0; a < s->napps && rc == 0; a++)
        if (used[a] && !s->app_argc[a])
            rc = SMRUN_EXIT_FAILURE;   /* a part without a program: a broken head */
    s->opt.apps = s->apps;
    s->opt.napps = s->napps;
    if (rc == 0)
        rc = smrun_resolve_parts(&s->opt, used);
    free(used);
    return rc;
}

int smrun_agent_main(int argc, char **argv)
{
    if (argc != 6) {
        smrun_msg("--agent ADDR PORT NODE COOKIE: internal use by a head smrun");
        return SMRUN_EXIT_USAGE;
    }
    smap_log_set_name("smrun-agent");
    int fd = connect_head(argv[2], argv[3]);
    if (fd < 0) {
        smrun_msg("agent: cannot connect to the head at %s:%s: %s", argv[2], argv[3], strerror(errno));
        return SMRUN_EXIT_FAILURE;
    }
    smrun_link_init(&agent.link, fd);
    char boot_id[64];
    smrun_machine_id(boot_id, sizeof boot_id);
    smrun_link_send(&agent.link, "hello", argv[4], argv[5], boot_id, NULL);
    smrun_link_flush_blocking(&agent.link, 10.0);
    static struct setup s;
    if (receive_setup(&s) != 0) {
        /* The head is gone, stopping, or broken: nothing was started. */
        free_setup(&s);
        smrun_link_close(&agent.link);
        return SMRUN_EXIT_FAILURE;
    }
    if (s.opt.verbose)
        smap_log_set_level(SMAP_LOG_DEBUG);
    int flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    s.opt.argv = s.argv;
    s.opt.nranks = s.n;
    char program[PATH_MAX] = "";
    int rc = s.napps > 1 ? resolve_parts(&s) : smrun_resolve_program(s.argv[0], program, sizeof program);
    if (rc != 0) {
        char text[PATH_MAX + 64];
        snprintf(text, sizeof text, "host %s: cannot start %s", s.node_name, s.argv[0]);
        smrun_link_send(&agent.link, "fail", rc == SMRUN_EXIT_NOTFOUND ? "127" : "126", text, NULL);
    } else {
        struct smrun_share share = { .agent = &agent, .n = s.n, .size = s.size, .ranks = s.ranks,
                                     .kvsname = s.kvsname, .node_name = s.node_name,
                                     .node = atoi(argv[4]),
                                     .rank_app = s.napps > 1 ? s.rank_app : NULL,
                                     .kv = s.kv, .nkv = s.nkv };
        rc = smrun_run_ranks(&s.opt, program, &share);
    }
    smrun_link_send(&agent.link, "done", NULL);
    smrun_link_flush_blocking(&agent.link, 5.0);
    smrun_link_close(&agent.link);
    free_setup(&s);
    return rc;
}
