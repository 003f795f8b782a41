/* Starting the ranks: finding the program (before any fork, so a typo gives
 * one message instead of N), the environment, the CPU binding, and the
 * fork/exec with everything a rank needs set up in the child. */
#include "smrun.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/program.h"

extern char **environ;

/* ---- the program ------------------------------------------------------ */

static int report_exec_error(const char *name, int err)
{
    smrun_msg("%s: %s", name, strerror(err));
    return (err == ENOENT || err == ENOTDIR) ? SMRUN_EXIT_NOTFOUND : SMRUN_EXIT_NOEXEC;
}

int smrun_resolve_program(const char *name, char *path, size_t len)
{
    return smrun_resolve_program_in(name, NULL, path, len);
}

int smrun_resolve_program_in(const char *name, const char *first, char *path, size_t len)
{
    int err = smap_find_program(name, first, path, len);
    if (err == ENOENT && !strchr(name, '/')) {
        smrun_msg("%s: command not found", name);
        return SMRUN_EXIT_NOTFOUND;
    }
    return err ? report_exec_error(name, err) : 0;
}

/* ---- CPUs ------------------------------------------------------------- */

int smrun_allowed_cpus(int **cpus)
{
    for (int ncpu = 1024; ncpu <= (1 << 20); ncpu *= 2) {
        cpu_set_t *set = CPU_ALLOC(ncpu);
        size_t size = CPU_ALLOC_SIZE(ncpu);
        if (!set)
            break;
        CPU_ZERO_S(size, set);
        if (sched_getaffinity(0, size, set) == 0) {
            int count = CPU_COUNT_S(size, set), k = 0;
            *cpus = malloc((size_t)(count ? count : 1) * sizeof **cpus);
            if (*cpus)
                for (int c = 0; c < ncpu && k < count; c++)
                    if (CPU_ISSET_S(c, size, set))
                        (*cpus)[k++] = c;
            CPU_FREE(set);
            if (*cpus && k > 0)
                return k;
            break;
        }
        CPU_FREE(set);
        if (errno != EINVAL)
            break;
    }
    /* Unknown: behave as one CPU that ranks are not pinned to. */
    free(*cpus);
    *cpus = NULL;
    return 1;
}

/* ---- environment ------------------------------------------------------ */

/* Set per rank by smrun, or inherited from an enclosing launcher where they
 * would point a PMI client at the wrong server. */
static const char *const owned_vars[] = {
    "PMI_FD", "PMI_RANK", "PMI_SIZE", "PMI_PORT", "PMI_ID", "PMI_SPAWNED",
    "SMAP_SESSION_DIR", "SMAP_LAUNCHER", "SMAP_NODE_CPUS", "SMAP_LOCAL_RANK",
    "SMAP_NODE_NAME", "SMRUN_SPAWN_KVS",
};

static int name_matches(const char *entry, const char *name)
{
    size_t n = strlen(name);
    return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

static int overridden(const char *entry, const struct smrun_options *o, int agent)
{
    for (size_t i = 0; i < SMAP_ARRAY_SIZE(owned_vars); i++)
        if ((agent || strcmp(owned_vars[i], "SMAP_NODE_NAME") != 0) && name_matches(entry, owned_vars[i]))
            return 1;
    for (int i = 0; i < o->nenv; i++) {
        size_t n = strcspn(o->env[i], "=");
        if (strncmp(entry, o->env[i], n) == 0 && entry[n] == '=')
            return 1;
    }
    return 0;
}

static char *format_var(const char *name, const char *fmt, ...) SMAP_PRINTF_LIKE(2, 3);
static char *format_var(const char *name, const char *fmt, ...)
{
    char value[PATH_MAX + 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    char *s = NULL;
    if (asprintf(&s, "%s=%s", name, value) < 0)
        return NULL;
    return s;
}

/* smrun's environment (unless inherit is 0: -genvnone), then -x/-genv, then
 * the job-wide variables of smrun.  PMI_FD and PMI_RANK are added per rank
 * in the child. */
static char **build_env(const struct smrun_job *job, int inherit)
{
    size_t n = 0;
    while (inherit && environ[n])
        n++;
    char **env = calloc(n + (size_t)job->opt->nenv + 8, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!overridden(environ[i], job->opt, job->node_name != NULL) && !(env[k++] = strdup(environ[i])))
            goto oom;
    for (int i = 0; i < job->opt->nenv; i++)
        if (!(env[k++] = strdup(job->opt->env[i])))
            goto oom;
    /* An agent's ranks learn their node from the placement, never from the
     * host name: two hosts may share a kernel (emulated hosts). */
    if (job->node_name && !(env[k++] = format_var("SMAP_NODE_NAME", "%s", job->node_name)))
        goto oom;
    if (!(env[k++] = format_var("PMI_SIZE", "%d", job->size)) ||
        !(env[k++] = format_var("SMAP_SESSION_DIR", "%s", job->session.path)) ||
        !(env[k++] = format_var("SMAP_LAUNCHER", "smrun")) ||
        !(env[k++] = format_var("SMAP_NODE_CPUS", "%d", job->ncpus)))
        goto oom;
    /* a job spawned by another (dynamic.c): MPICH's convention */
    if (getenv("SMRUN_SPAWN_KVS") && !(env[k++] = format_var("PMI_SPAWNED", "1")))
        goto oom;
    return env;
oom:
    smrun_env_free(env);
    return NULL;
}

void smrun_env_free(char **env)
{
    if (!env)
        return;
    for (char **e = env; *e; e++)
        free(*e);
    free(env);
}

/* ---- fork/exec -------------------------------------------------------- */

static _Noreturn void child_fail(const char *what)
{
    dprintf(STDERR_FILENO, "smrun: %s: %s\n", what, strerror(errno));
    _exit(SMRUN_EXIT_NOEXEC);
}

/* Runs in the child: everything here must be done before exec. */
static _Noreturn void exec_rank(struct smrun_job *job, struct smrun_rank *r)
{
    /* Own process group: smrun signals the rank and its children together,
     * and a ^C at the terminal reaches only smrun, which decides. */
    setpgid(0, 0);
    /* Die with the launcher; if it died before prctl, getppid() shows it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != job->launcher_pid)
        _exit(SMRUN_EXIT_FAILURE);
    smrun_signals_reset_in_child();
    int in = r->rank == 0 ? job->in.child_fd : job->devnull;
    if (dup2(in, STDIN_FILENO) < 0 || dup2(r->child_out_fd, STDOUT_FILENO) < 0 ||
        dup2(r->child_err_fd, STDERR_FILENO) < 0)
        child_fail("dup2");
    if (job->bind && r->cpulist)
        smrun_topo_bind_self(r->cpulist);
    /* Every other descriptor smrun made is close-on-exec; this one stays. */
    if (fcntl(r->child_pmi_fd, F_SETFD, 0) != 0)
        child_fail("PMI_FD");
    const struct smrun_app *app = job->opt->napps > 1 ? &job->opt->apps[r->app] : NULL;
    if (app && app->wdir && chdir(app->wdir) != 0)
        child_fail(app->wdir);
    int none = app && app->envnone >= 0 ? app->envnone : job->opt->envnone;
    char **base = none ? job->env_bare : job->env;
    size_t n = 0;
    while (base[n])
        n++;
    int nlocal = app ? app->nenv : 0;
    char **env = calloc(n + (size_t)nlocal + 4, sizeof *env);
    if (!env)
        child_fail("environment");
    /* The part's own variables first: getenv takes the first match. */
    if (nlocal)
        memcpy(env, app->env, (size_t)nlocal * sizeof *env);
    memcpy(env + nlocal, base, n * sizeof *env);
    n += (size_t)nlocal;
    env[n] = format_var("PMI_FD", "%d", r->child_pmi_fd);
    env[n + 1] = format_var("PMI_RANK", "%d", r->rank);
    /* The rank's index among this smrun's ranks is its node-local index,
     * which picks the rank's heap slot before MPI_Init runs. */
    env[n + 2] = format_var("SMAP_LOCAL_RANK", "%d", (int)(r - job->ranks));
    char **argv = app ? app->argv : job->opt->argv;
    execve(app ? app->path : job->program, argv, env);
    int err = errno;
    dprintf(STDERR_FILENO, "smrun: %s: %s\n", argv[0], strerror(err));
    _exit(err == ENOENT ? SMRUN_EXIT_NOTFOUND : SMRUN_EXIT_NOEXEC);
}

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Our ends are non-blocking: the loop must never wait on one rank. */
static int make_channels(struct smrun_rank *r)
{
    int sv[2], po[2], pe[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return -1;
    if (pipe2(po, O_CLOEXEC) != 0) {
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (pipe2(pe, O_CLOEXEC) != 0) {
        close(sv[0]);
        close(sv[1]);
        close(po[0]);
        close(po[1]);
        return -1;
    }
    r->pmi.fd = sv[0];
    r->child_pmi_fd = sv[1];
    smrun_stream_init(&r->out, po[0], STDOUT_FILENO, r->rank);
    r->child_out_fd = po[1];
    smrun_stream_init(&r->err, pe[0], STDERR_FILENO, r->rank);
    r->child_err_fd = pe[1];
    set_nonblock(r->pmi.fd);
    set_nonblock(r->out.fd);
    set_nonblock(r->err.fd);
    return 0;
}

static void close_child_ends(struct smrun_rank *r)
{
    close(r->child_pmi_fd);
    close(r->child_out_fd);
    close(r->child_err_fd);
    r->child_pmi_fd = r->child_out_fd = r->child_err_fd = -1;
}

static int make_stdin(struct smrun_job *job)
{
    int p[2];
    job->devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (job->devnull < 0 || pipe2(p, O_CLOEXEC) != 0)
        return -1;
    job->in.child_fd = p[0];
    job->in.dst = p[1];
    job->in.src = STDIN_FILENO;
    set_nonblock(job->in.dst);
    return 0;
}

static void report_binding(const struct smrun_job *job, const struct smrun_rank *r)
{
    const char *host = job->node_name ? job->node_name : "this host";
    if (r->cpulist && job->topo_foreign)
        smrun_msg("rank %d (pid %d) on %s: would be bound to CPU%s %s (--bind-to %s; the "
                  "topology is not this machine's: not applied)",
                  r->rank, (int)r->pid, host, strpbrk(r->cpulist, ",-") ? "s" : "", r->cpulist,
                  smrun_level_name(job->bind_level));
    else if (r->cpulist)
        smrun_msg("rank %d (pid %d) on %s: bound to CPU%s %s (--bind-to %s)", r->rank,
                  (int)r->pid, host, strpbrk(r->cpulist, ",-") ? "s" : "", r->cpulist,
                  smrun_level_name(job->bind_level));
    else if (job->opt->bind_level == SMRUN_LV_NONE)
        smrun_msg("rank %d (pid %d) on %s: not bound (--bind-to none)", r->rank, (int)r->pid,
                  host);
    else
        smrun_msg("rank %d (pid %d) on %s: not bound (%d ranks%s, %d %s)", r->rank, (int)r->pid,
                  host, job->machine_ranks > job->n ? job->machine_ranks : job->n,
                  job->machine_ranks > job->n ? " on this machine's hosts" : "",
                  job->ncores ? job->ncores : job->ncpus,
                  job->ncores ? "cores" : "CPUs");
}

static char **make_env(const struct smrun_job *job, int inherit)
{
    char **env = build_env(job, inherit);
    if (env && smrun_preload_apply(&env) != 0) {   /* interpreters' heap */
        smrun_env_free(env);
        env = NULL;
    }
    return env;
}

/* -genvnone, or an MPMD part's -envnone. */
static int wants_bare(const struct smrun_job *job)
{
    if (job->opt->envnone)
        return 1;
    for (int a = 0; a < job->opt->napps && job->opt->apps; a++)
        if (job->opt->apps[a].envnone == 1)
            return 1;
    return 0;
}

int smrun_spawn_all(struct smrun_job *job)
{
    int rc = smrun_topo_place(job);
    if (rc) {
        smrun_job_fail(job, rc, "%s", smrun_topo_why());
        return -1;
    }
    job->env = make_env(job, 1);
    if (job->env && wants_bare(job))
        job->env_bare = make_env(job, 0);
    if (!job->env || (wants_bare(job) && !job->env_bare) || make_stdin(job) != 0) {
        smrun_job_fail(job, SMRUN_EXIT_FAILURE, "cannot set up the job: %s", strerror(errno));
        return -1;
    }
    for (int i = 0; i < job->n; i++) {
        struct smrun_rank *r = &job->ranks[i];
        if (make_channels(r) != 0) {
            smrun_job_fail(job, SMRUN_EXIT_FAILURE, "cannot create the channels of rank %d: %s",
                           i, strerror(errno));
            return -1;
        }
        if (smrun_outfiles_attach(job, r) != 0) {
            close_child_ends(r);
            return -1;
        }
        pid_t pid = fork();
        if (pid < 0) {
            smrun_job_fail(job, SMRUN_EXIT_FAILURE, "cannot start rank %d: fork: %s", i, strerror(errno));
            close_child_ends(r);
            return -1;
        }
        if (pid == 0)
            exec_rank(job, r);
        setpgid(pid, pid);   /* also here, so signals never miss a fresh rank */
        r->pid = pid;
        r->alive = 1;
        job->alive++;
        close_child_ends(r);
        smap_debug("rank %d: pid %d, cpus %s", i, (int)pid, r->cpulist ? r->cpulist : "any");
        if (job->opt->report_bindings)
            report_binding(job, r);
    }
    close(job->in.child_fd);
    job->in.child_fd = -1;
    if (job->ranks[0].rank != 0)
        smrun_stdin_close(job);   /* an agent without rank 0: its stdin goes nowhere */
    return 0;
}
