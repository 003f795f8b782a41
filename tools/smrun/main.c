/* smrun: start N ranks on this node, serve them PMI-1, forward their stdio,
 * and leave nothing behind.  Orchestration only; see README.md for which
 * file does what. */
#include "smrun.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/log.h"

/* Our pipes must never land on 0-2 (a rank's dup2 onto stdio would clobber
 * them), so closed standard descriptors are filled with /dev/null. */
static void ensure_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) < 0)
            _exit(SMRUN_EXIT_FAILURE);
}

/* Three descriptors per rank stay open in smrun (PMI socket, two pipes),
 * three more around each fork. */
static int raise_fd_limit(int nranks)
{
    rlim_t need = (rlim_t)nranks * 3 + 32;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= need)
        return 0;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
        smrun_msg("%d ranks need %lu open files, but the hard limit is %lu (ulimit -n)", nranks,
                  (unsigned long)need, (unsigned long)rl.rlim_max);
        return -1;
    }
    rl.rlim_cur = need;
    return setrlimit(RLIMIT_NOFILE, &rl);
}

static int job_init(struct smrun_job *job, const struct smrun_options *opt, const char *program,
                    const struct smrun_share *share)
{
    memset(job, 0, sizeof *job);
    job->opt = opt;
    job->program = program;
    job->n = share ? share->n : opt->nranks;
    job->size = share ? share->size : job->n;
    if (share) {
        job->agent = share->agent;
        job->node_name = share->node_name;
        snprintf(job->kvsname, sizeof job->kvsname, "%s", share->kvsname);
    }
    job->launcher_pid = getpid();
    job->node_index = share ? share->node : 0;
    if (gethostname(job->host_name, sizeof job->host_name - 1) != 0)
        snprintf(job->host_name, sizeof job->host_name, "localhost");
    job->devnull = job->wake_fd = -1;
    job->in.src = job->in.dst = job->in.child_fd = -1;
    job->ranks = calloc((size_t)job->n, sizeof *job->ranks);
    if (!job->ranks)
        return -1;
    for (int i = 0, app = 0, first = 0; i < job->n; i++) {
        struct smrun_rank *r = &job->ranks[i];
        r->rank = share ? share->ranks[i] : i;
        while (!share && app + 1 < opt->napps && i >= first + opt->apps[app].nranks)
            first += opt->apps[app++].nranks;
        r->app = share ? (share->rank_app ? share->rank_app[i] : 0) : app;
        r->cpulist = NULL;
        r->pmi.fd = r->child_pmi_fd = r->child_out_fd = r->child_err_fd = -1;
        smrun_stream_init(&r->out, -1, STDOUT_FILENO, i);
        smrun_stream_init(&r->err, -1, STDERR_FILENO, i);
    }
    job->ncpus = smrun_allowed_cpus(&job->cpus);
    /* MPI_UNIVERSE_SIZE: -usize, or the slots the head counted (agent);
     * one node: the CPUs smrun was given; never below the job */
    job->universe = opt->universe > 0 ? opt->universe : share ? job->size : job->ncpus;
    if (job->universe < job->size)
        job->universe = job->size;
    return 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static void job_free(struct smrun_job *job)
{
    for (int i = 0; job->ranks && i < job->n; i++) {
        struct smrun_rank *r = &job->ranks[i];
        smrun_pmi_close(r);
        smrun_stream_close(job, &r->out);
        smrun_stream_close(job, &r->err);
        close_fd(&r->child_pmi_fd);
        close_fd(&r->child_out_fd);
        close_fd(&r->child_err_fd);
        free(r->cpulist);
    }
    smrun_stdin_close(job);
    close_fd(&job->in.child_fd);
    close_fd(&job->devnull);
    free(job->ranks);
    free(job->cpus);
    smrun_env_free(job->env);
    smrun_env_free(job->env_bare);
    smrun_kvs_free(&job->kvs);
    smrun_dynamic_free(job);
}

static void display_map(const struct smrun_job *job)
{
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    int *ranks = malloc((size_t)job->n * sizeof *ranks);
    if (!ranks)
        return;
    for (int i = 0; i < job->n; i++)
        ranks[i] = job->ranks[i].rank;
    smrun_map_print(host, ranks, job->n);
    free(ranks);
}

int smrun_run_ranks(const struct smrun_options *opt, const char *program,
                    const struct smrun_share *share)
{
    static struct smrun_job job;   /* holds the 64 KiB stdin buffer */
    if (raise_fd_limit(share ? share->n : opt->nranks) != 0)
        return SMRUN_EXIT_FAILURE;
    if (job_init(&job, opt, program, share) != 0) {
        smrun_msg("out of memory");
        return SMRUN_EXIT_FAILURE;
    }
    /* Before the first fork, so no SIGCHLD is missed. */
    job.wake_fd = smrun_signals_install();
    if (job.wake_fd < 0) {
        smrun_msg("cannot set up signal handling: %s", strerror(errno));
        job_free(&job);
        return SMRUN_EXIT_FAILURE;
    }
    if (smrun_session_create(&job.session) != 0) {
        job_free(&job);
        return SMRUN_EXIT_FAILURE;
    }
    smap_debug("session directory %s, %d CPUs", job.session.path, job.ncpus);
    smrun_pmi_setup(&job);
    for (int i = 0; share && i + 1 < share->nkv; i += 2)
        smrun_kvs_put(&job.kvs, share->kv[i], share->kv[i + 1]);
    if (opt->display_map && !share)
        display_map(&job);
    smrun_spawn_all(&job);   /* a failure there stops the ranks already started */
    int rc = smrun_job_run(&job);
    smrun_session_remove(&job.session);
    job_free(&job);
    return rc;
}

/* -wdir: smrun itself moves there, so the ranks (and, across hosts, the
 * agents, which take smrun's directory) start in it, and a program named
 * by a relative path is found there, as with hydra.  A relative hostfile
 * was named from where smrun started. */
static int change_dir(struct smrun_options *o)
{
    static char hostfile[PATH_MAX];
    if (o->hostfile && o->hostfile[0] != '/') {
        if (!realpath(o->hostfile, hostfile)) {
            smrun_msg("--hostfile %s: %s", o->hostfile, strerror(errno));
            return SMRUN_EXIT_FAILURE;
        }
        o->hostfile = hostfile;
    }
    if (chdir(o->wdir) != 0) {
        smrun_msg("-wdir %s: %s", o->wdir, strerror(errno));
        return SMRUN_EXIT_FAILURE;
    }
    return -1;   /* go on */
}

/* Each MPMD part's program, found before any rank starts (a typo in the
 * last part must not leave the first parts running).  A relative path is
 * taken from the part's -wdir, where the rank will start. */
int smrun_app_of(const struct smrun_options *o, int r)
{
    int a = 0;
    for (int first = 0; a + 1 < o->napps && r >= first + o->apps[a].nranks; a++)
        first += o->apps[a].nranks;
    return a;
}

int smrun_resolve_parts(struct smrun_options *o, const unsigned char *used)
{
    for (int a = 0; a < o->napps; a++) {
        struct smrun_app *app = &o->apps[a];
        if (used && !used[a])
            continue;
        char name[PATH_MAX], path[PATH_MAX];
        const char *prog = app->argv[0];
        if (app->wdir && strchr(prog, '/') && prog[0] != '/')
            snprintf(name, sizeof name, "%s/%s", app->wdir, prog);
        else
            snprintf(name, sizeof name, "%s", prog);
        int rc = smrun_resolve_program(name, path, sizeof path);
        if (rc != 0)
            return rc;
        char abs[PATH_MAX];
        app->path = strdup(realpath(path, abs) ? abs : path);
        if (!app->path)
            return SMRUN_EXIT_FAILURE;
    }
    return 0;
}

/* The batch allocation (alloc.c) replaces a host list.  One whose nodes
 * are all this machine needs no agent: the job stays a one-node job, with
 * as many ranks as slots unless -n says otherwise. */
static int use_allocation(struct smrun_options *o)
{
    int rc = smrun_alloc_read(o);
    if (rc != 0 || o->nalloc == 0)
        return rc ? rc : -1;
    long slots = 0;
    for (int i = 0; i < o->nalloc; i++) {
        if (!smrun_is_local_host(o->alloc[i].name) && o->launch != SMRUN_LAUNCH_FORK)
            return -1;   /* across hosts */
        slots += o->alloc[i].slots;
    }
    if (o->launch == SMRUN_LAUNCH_FORK && o->nalloc > 1)
        return -1;       /* several nodes, all started here */
    if (!o->nranks_given)
        o->nranks = slots > 65536 ? 65536 : (int)slots;
    if (!o->universe)   /* MPI_UNIVERSE_SIZE: the allocation's slots */
        o->universe = slots > 65536 ? 65536 : (int)slots;
    smap_debug("%s: every node is this host: no agents", o->alloc_src);
    smrun_alloc_free(o);
    return -1;
}

/* One node: every rank's output file exists before any rank starts. */
static int prepare_outfiles(const struct smrun_options *o)
{
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    struct smrun_outfile_where w = { .host = host, .node = 0, .size = o->nranks };
    return smrun_outfiles_prepare(o, &w, NULL, o->nranks);
}

int main(int argc, char **argv)
{
    smap_log_set_name("smrun");
    ensure_std_fds();
    if (argc > 1 && strcmp(argv[1], "--agent") == 0)
        return smrun_agent_main(argc, argv);
    if (argc > 1 && strcmp(argv[1], "--name-server") == 0)
        return smrun_nameserver_main(argc, argv);
    struct smrun_options opt;
    int rc = smrun_options_parse(argc, argv, &opt);
    if (rc < 0)
        rc = use_allocation(&opt);
    if (rc < 0 && opt.wdir)
        rc = change_dir(&opt);
    if (rc < 0) {
        if (opt.verbose)
            smap_log_set_level(SMAP_LOG_DEBUG);
        char program[PATH_MAX];
        if (smrun_across_hosts(&opt)) {
            rc = smrun_head_run(&opt);   /* the program is looked up on each host */
        } else {
            rc = smrun_resolve_program(opt.argv[0], program, sizeof program);
            if (rc == 0 && opt.napps > 1)
                rc = smrun_resolve_parts(&opt, NULL);
            if (rc == 0 && smrun_outfiles_wanted(&opt))
                rc = prepare_outfiles(&opt);
            if (rc == 0)
                rc = smrun_run_ranks(&opt, program, NULL);
        }
    }
    smrun_options_free(&opt);
    return rc;
}
