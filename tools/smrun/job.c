/* The job's life after the fork: one poll() loop over the signal self-pipe,
 * smrun's stdin, and every rank's PMI socket, stdout and stderr.  It reaps
 * ranks, decides the exit code (the first failure wins), stops the job
 * (SIGTERM, SIGKILL after SMRUN_KILL_GRACE_S) and ends when every rank is
 * reaped and its output drained. */
#include "smrun.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "base/timer.h"

/* ---- stopping ------------------------------------------------------------ */

void smrun_job_signal(struct smrun_job *job, int sig)
{
    /* spawned jobs: their smrun relays the signal to its ranks */
    for (int i = 0; i < job->nkids; i++)
        if (job->kids[i].alive && kill(-job->kids[i].pid, sig) != 0)
            kill(job->kids[i].pid, sig);
    for (int i = 0; i < job->n; i++) {
        const struct smrun_rank *r = &job->ranks[i];
        if (r->pid <= 0)
            continue;
        /* The group also holds the rank's children; it outlives the rank
         * while any of them is left. */
        if (kill(-r->pid, sig) != 0 && r->alive)
            kill(r->pid, sig);
    }
}

/* text: why, for the user (NULL: the cause speaks for itself).  An agent
 * tells the head instead, which decides for the whole job. */
static void stop(struct smrun_job *job, int code, int sig, const char *text)
{
    if (job->stopping)
        return;
    if (job->agent)
        smrun_agent_fail(job, code, text ? text : "");
    else if (text)
        smrun_msg("%s", text);
    job->stopping = 1;
    job->exit_code = code;
    smap_debug("stopping the job (exit code %d) with signal %d", code, sig);
    smrun_job_signal(job, sig);
    job->kill_at = smap_now() + SMRUN_KILL_GRACE_S;
}

void smrun_job_stop_with(struct smrun_job *job, int code)
{
    stop(job, code, SIGTERM, NULL);
}

void smrun_job_stop_signal(struct smrun_job *job, int code, int sig)
{
    struct smrun_agent *agent = job->agent;
    job->agent = NULL;   /* the head asked: nothing to tell it */
    stop(job, code, sig, NULL);
    job->agent = agent;
}

void smrun_job_fail(struct smrun_job *job, int code, const char *fmt, ...)
{
    if (job->stopping)
        return;
    char text[3072];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    stop(job, code, SIGTERM, text);
}

static void kill_now(struct smrun_job *job)
{
    smrun_job_signal(job, SIGKILL);
    job->kill_at = 0;
}

/* A peer that notices a rank's death may abort before we reap the dead
 * rank, though the dead rank is reapable by then (a pidfd turns readable
 * once its process is a zombie).  So an abort waits for the reaping at
 * the top of the next loop round: the death, the cause, is reported. */
void smrun_job_abort(struct smrun_job *job, int code, const char *fmt, ...)
{
    if (job->stopping || job->abort_pending)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(job->abort_text, sizeof job->abort_text, fmt, ap);
    va_end(ap);
    job->abort_code = code;
    job->abort_pending = 1;
}

static void apply_abort(struct smrun_job *job)
{
    if (!job->abort_pending)
        return;
    job->abort_pending = 0;
    smrun_job_fail(job, job->abort_code, "%s", job->abort_text);
}

/* ---- ranks exiting ----------------------------------------------------- */

static struct smrun_rank *rank_of(struct smrun_job *job, pid_t pid)
{
    for (int i = 0; i < job->n; i++)
        if (job->ranks[i].pid == pid)
            return &job->ranks[i];
    return NULL;
}

static void judge_exit(struct smrun_job *job, const struct smrun_rank *r)
{
    int st = r->status;
    if (!WIFSIGNALED(st))
        apply_abort(job);   /* asked before: the aborting rank's own exit comes after it */
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        smap_debug("rank %d (pid %d) exited with 0", r->rank, (int)r->pid);
        smrun_pmi_check_barrier(job);
    } else if (WIFEXITED(st)) {
        smrun_job_fail(job, WEXITSTATUS(st), "rank %d (pid %d) exited with code %d", r->rank,
                       (int)r->pid, WEXITSTATUS(st));
    } else if (WIFSIGNALED(st)) {
        char name[32];
        int sig = WTERMSIG(st);
        smrun_job_fail(job, 128 + sig, "rank %d (pid %d) killed by signal %d (%s)%s", r->rank,
                       (int)r->pid, sig, smrun_signame(sig, name, sizeof name),
                       WCOREDUMP(st) ? ", core dumped" : "");
    }
}

/* Ranks reaped together are judged signals first: a peer that noticed a
 * killed rank and exited, or aborted, did so because of it. */
static void judge_reaped(struct smrun_job *job)
{
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < job->n; i++) {
            struct smrun_rank *r = &job->ranks[i];
            if (r->unjudged && (pass || WIFSIGNALED(r->status))) {
                r->unjudged = 0;
                judge_exit(job, r);
            }
        }
}

static void reap(struct smrun_job *job)
{
    int st, reaped = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        struct smrun_rank *r = rank_of(job, pid);
        struct smrun_kid *k = r ? NULL : smrun_kid_of(job, pid);
        if (k && k->alive) {
            /* a spawned job is judged like a rank (its smrun's code) */
            k->alive = 0;
            job->alive--;
            if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
                smrun_job_fail(job, WEXITSTATUS(st), "a spawned job (smrun pid %d) exited with "
                               "code %d", (int)pid, WEXITSTATUS(st));
            else if (WIFSIGNALED(st))
                smrun_job_fail(job, 128 + WTERMSIG(st), "a spawned job (smrun pid %d) was "
                               "killed by signal %d", (int)pid, WTERMSIG(st));
            continue;
        }
        if (!r || !r->alive)
            continue;
        r->alive = 0;
        r->status = st;
        job->alive--;
        /* What the rank said before dying comes first: an abort request
         * explains its exit code, its last output precedes our verdict. */
        smrun_pmi_drain(job, r);
        smrun_stream_drain(job, &r->out);
        smrun_stream_drain(job, &r->err);
        if (r->rank == 0)
            smrun_stdin_close(job);
        if (!job->stopping)
            smrun_check_uninitialized(job, r);
        if (job->agent)
            smrun_agent_exit(job, r);
        r->unjudged = 1;
        reaped = 1;
    }
    if (reaped)
        judge_reaped(job);
}

/* ---- signals and timers -------------------------------------------------- */

static void handle_signals(struct smrun_job *job)
{
    int nterm;
    int sig = smrun_signals_take(&nterm);
    reap(job);
    apply_abort(job);
    if (!sig)
        return;
    int was_stopping = job->stopping;
    if (!was_stopping) {
        char name[32], text[96];
        snprintf(text, sizeof text, "caught %s, stopping the job", smrun_signame(sig, name, sizeof name));
        stop(job, 128 + sig, sig, text);   /* the ranks get the same signal */
    }
    if (was_stopping || nterm > 1) {
        smap_debug("second signal: killing the job now");
        kill_now(job);
    }
}

static int streams_open(const struct smrun_job *job)
{
    for (int i = 0; i < job->n; i++)
        if (job->ranks[i].out.fd >= 0 || job->ranks[i].err.fd >= 0)
            return 1;
    return 0;
}

static void close_streams(struct smrun_job *job)
{
    for (int i = 0; i < job->n; i++) {
        smrun_stream_close(job, &job->ranks[i].out);
        smrun_stream_close(job, &job->ranks[i].err);
    }
}

static double earliest(double a, double b)
{
    if (a == 0)
        return b;
    if (b == 0)
        return a;
    return a < b ? a : b;
}

/* Once every rank is reaped, output pipes may still be held by the ranks'
 * children: wait a little, then kill them, then stop waiting. */
static double drain_timer(struct smrun_job *job, double now)
{
    if (job->alive > 0)
        return 0;
    if (!job->drain_until) {
        job->drain_until = now + SMRUN_DRAIN_S;
    } else if (now >= job->drain_until) {
        if (!job->leftovers_killed) {
            smap_debug("output still open after the ranks exited: killing their children");
            smrun_job_signal(job, SIGKILL);
            job->leftovers_killed = 1;
            job->drain_until = now + SMRUN_DRAIN_S;
        } else {
            close_streams(job);
            return 0;
        }
    }
    return job->drain_until;
}

/* Fires what is due; returns the next time something is due (0: nothing). */
static double run_timers(struct smrun_job *job)
{
    double now = smap_now();
    if (job->timeout_at && !job->stopping && job->alive > 0 && now >= job->timeout_at)
        smrun_job_fail(job, SMRUN_EXIT_TIMEOUT, "job timed out after %g s", job->opt->timeout_s);
    if (job->kill_at && now >= job->kill_at) {
        smap_debug("grace period over: SIGKILL");
        kill_now(job);
    }
    double next = job->stopping ? 0 : job->timeout_at;
    next = earliest(next, job->kill_at);
    next = earliest(next, drain_timer(job, now));
    for (int i = 0; i < job->n; i++) {
        next = earliest(next, smrun_stream_tick(job, &job->ranks[i].out, now));
        next = earliest(next, smrun_stream_tick(job, &job->ranks[i].err, now));
    }
    return next;
}

static int poll_timeout_ms(double next)
{
    if (next == 0)
        return -1;
    double ms = ceil((next - smap_now()) * 1000.0);
    if (ms < 0)
        return 0;
    return ms > 60000 ? 60000 : (int)ms + 1;
}

/* ---- the loop -------------------------------------------------------------- */

enum slot_kind { SLOT_WAKE, SLOT_STDIN, SLOT_STDIN_OUT, SLOT_PMI, SLOT_OUT, SLOT_ERR, SLOT_HEAD };

struct slot {
    enum slot_kind kind;
    struct smrun_rank *r;
};

static void add(struct pollfd *pfd, struct slot *slots, int *n, int fd, short events,
                enum slot_kind kind, struct smrun_rank *r)
{
    if (fd < 0)
        return;
    pfd[*n] = (struct pollfd){ .fd = fd, .events = events };
    slots[*n] = (struct slot){ .kind = kind, .r = r };
    (*n)++;
}

static int build_pollset(struct smrun_job *job, struct pollfd *pfd, struct slot *slots)
{
    int n = 0;
    add(pfd, slots, &n, job->wake_fd, POLLIN, SLOT_WAKE, NULL);
    if (job->agent) {
        short events = 0;
        int fd = smrun_agent_fd(job, &events);
        add(pfd, slots, &n, fd, events, SLOT_HEAD, NULL);
    }
    if (job->in.dst >= 0) {
        if (job->in.len > job->in.off)
            add(pfd, slots, &n, job->in.dst, POLLOUT, SLOT_STDIN_OUT, NULL);
        else
            add(pfd, slots, &n, job->in.src, POLLIN, SLOT_STDIN, NULL);
    }
    for (int i = 0; i < job->n; i++) {
        struct smrun_rank *r = &job->ranks[i];
        add(pfd, slots, &n, r->pmi.fd, POLLIN, SLOT_PMI, r);
        add(pfd, slots, &n, r->out.fd, POLLIN, SLOT_OUT, r);
        add(pfd, slots, &n, r->err.fd, POLLIN, SLOT_ERR, r);
    }
    return n;
}

static void dispatch(struct smrun_job *job, const struct pollfd *p, const struct slot *s)
{
    switch (s->kind) {
    case SLOT_WAKE:
        break;   /* handled at the top of the loop */
    case SLOT_HEAD:
        smrun_agent_event(job);
        break;
    case SLOT_STDIN:
        if (p->revents & POLLNVAL)
            smrun_stdin_close(job);
        else if (job->in.src == p->fd)
            smrun_stdin_readable(job);
        break;
    case SLOT_STDIN_OUT:
        if (job->in.dst == p->fd)
            smrun_stdin_writable(job);
        break;
    case SLOT_PMI:
        if (s->r->pmi.fd == p->fd)
            smrun_pmi_readable(job, s->r);
        break;
    case SLOT_OUT:
        if (s->r->out.fd == p->fd)
            smrun_stream_readable(job, &s->r->out);
        break;
    case SLOT_ERR:
        if (s->r->err.fd == p->fd)
            smrun_stream_readable(job, &s->r->err);
        break;
    }
}

int smrun_job_run(struct smrun_job *job)
{
    size_t cap = 4 + 3 * (size_t)job->n;
    struct pollfd *pfd = calloc(cap, sizeof *pfd);
    struct slot *slots = calloc(cap, sizeof *slots);
    if (!pfd || !slots) {
        smrun_job_fail(job, SMRUN_EXIT_FAILURE, "out of memory");
        kill_now(job);
    }
    job->start = smap_now();
    if (job->opt->timeout_s > 0)
        job->timeout_at = job->start + job->opt->timeout_s;
    for (;;) {
        handle_signals(job);
        double next = run_timers(job);
        if (job->alive == 0 && !streams_open(job))
            break;
        if (!pfd || !slots) {   /* no memory for the loop: wait for the kill */
            usleep(10000);
            continue;
        }
        int n = build_pollset(job, pfd, slots);
        int rc = poll(pfd, (nfds_t)n, poll_timeout_ms(next));
        if (rc < 0 && errno != EINTR) {
            smrun_job_fail(job, SMRUN_EXIT_FAILURE, "poll: %s", strerror(errno));
            kill_now(job);
            continue;
        }
        for (int i = 0; i < n && rc > 0; i++)
            if (pfd[i].revents)
                dispatch(job, &pfd[i], &slots[i]);
    }
    free(pfd);
    free(slots);
    /* Children of ranks that closed their output are part of the job too. */
    smrun_job_signal(job, SIGKILL);
    return job->stopping ? job->exit_code : 0;
}
