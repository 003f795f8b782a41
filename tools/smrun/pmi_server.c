/* The PMI-1 server: MPICH's "simple" wire protocol, as spoken by
 * mpiexec.hydra, over one socketpair per rank (PMI_FD).  Requests are lines
 * of key=value pairs parsed by the shared codec (boot/pmi_wire.h); each gets
 * one response line, except barrier_in (answered when every rank is in) and
 * abort (answered by stopping the job).
 *
 * A rank that breaks the protocol (malformed or oversized line, unknown
 * command, request before init, not reading its responses) is treated as a
 * failed rank: the job stops.  A rank that merely closes the socket is not:
 * its exit status decides. */
#include "smrun.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"

typedef int (*pmi_handler)(struct smrun_job *, struct smrun_rank *, const struct smap_pmi_msg *,
                           const char **why);

struct pmi_command {
    const char *name;
    pmi_handler fn;
};

void smrun_pmi_close(struct smrun_rank *r)
{
    if (r->pmi.fd >= 0)
        close(r->pmi.fd);
    r->pmi.fd = -1;
}

static void protocol_error(struct smrun_job *job, struct smrun_rank *r, const char *why)
{
    smrun_job_fail(job, SMRUN_EXIT_FAILURE, "rank %d: PMI protocol error: %s", r->rank, why);
    /* Stop listening: a flooding rank now gets EPIPE instead of our time. */
    smrun_pmi_close(r);
}

/* Sends one response line.  A full socket means the rank sends requests
 * without reading the answers: a protocol error, reported through *why.
 * A rank that has gone away is not an error here; its exit status counts. */
static int reply(struct smrun_rank *r, const char **why, const char *fmt, ...) SMAP_PRINTF_LIKE(3, 4);
static int reply(struct smrun_rank *r, const char **why, const char *fmt, ...)
{
    if (r->pmi.fd < 0)
        return 0;
    char line[SMAP_PMI_MAXLINE + 1];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    smap_debug("rank %d <- %s", r->rank, line);
    if (smap_pmi_writef(r->pmi.fd, "%s\n", line) == 0)
        return 0;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
        *why = "the rank does not read its PMI responses";
        return -1;
    }
    smrun_pmi_close(r);
    return 0;
}

/* ---- commands ---------------------------------------------------------- */

static int do_init(struct smrun_job *job, struct smrun_rank *r, const struct smap_pmi_msg *m,
                   const char **why)
{
    (void)job;
    const char *v = smap_pmi_get(m, "pmi_version");
    if (v && strcmp(v, "1") != 0)
        return reply(r, why, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1 "
                             "msg=only_PMI-1_is_served");
    r->pmi.initialized = 1;
    return reply(r, why, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
}

static int do_maxes(struct smrun_job *job, struct smrun_rank *r, const struct smap_pmi_msg *m,
                    const char **why)
{
    (void)job, (void)m;
    return reply(r, why, "cmd=maxes kvsname_max=%d keylen_max=%d vallen_max=%d rc=0",
                 SMAP_PMI_KVSNAME_MAX, SMAP_PMI_KEYLEN_MAX, SMAP_PMI_VALLEN_MAX);
}

static int do_appnum(struct smrun_job *job, struct smrun_rank *r, const struct smap_pmi_msg *m,
                     const char **why)
{
    (void)job, (void)m;
    return reply(r, why, "cmd=appnum appnum=%d rc=0", r->app);
}

static int do_kvsname(struct smrun_job *job, struct smrun_rank *r, const struct smap_pmi_msg *m,
                      const char **why)
{
    (void)m;
    return reply(r, why, "cmd=my_kvsname kvsname=%s rc=0", job->kvsname);
}

static int do_universe(struct smrun_job *job, struct smrun_rank *r, const struct smap_pmi_msg *m,
                       const char **why)
{
    (void)m;
    return reply(r, why, "cmd=universe_size size=%d rc=0", job->universe);
}

/* kvsname and key present and well-formed, else a protocol error. */
static int kvs_args(const struct smap_pmi_msg *m, const char **kvsname, const char **key,
                    const char **why)
{
    *kvsname = smap_pmi_get(m, "kvsname");
    *key = smap_pmi_get(m, "key");
    if (!*kvsname || !*key) {
        *why = "missing kvsname= or key=";
        return -1;
    }
    if (!smap_pmi_valid_key(*key)) {
        *why = "invalid key";
        return -1;
    }
    return 0;
}

static int do_put(struct smrun_job *job, struct smrun_rank *r, const struct smap_pmi_msg *m,
                  const char **why)
{
    const char *kvsname, *key, *value = smap_pmi_get(m, "value");
    if (kvs_args(m, &kvsname, &key, why) != 0)
        return -1;
    if (!value || !smap_pmi_valid_value(value)) {
        *why = value ? "invalid value" : "put without value=";
        return -1;
    }
    if (strcmp(kvsname, job->kvsname) != 0)
        return reply(r, why, "cmd=put_result rc=-1 msg=unknown_kvsname");
    if (smrun_kvs_put(&job->kvs, key, value) != 0)
        return reply(r, why, "cmd=put_result rc=-1 msg=key-value_space_full");
    if (job->agent)
        smrun_agent_put(job, key, value);   /* the other hosts get it at the next barrier */
    return reply(r, why, "cmd=put_result rc=0 msg=success");
}

static int do_get(struct smrun_job *job, struct smrun_rank *r, const struct smap_pmi_msg *m,
                  const char **why)
{
    const char *kvsname, *key;
    if (kvs_args(m, &kvsname, &key, why) != 0)
        return -1;
    if (strcmp(kvsname, job->kvsname) != 0)
        return reply(r, why, "cmd=get_result rc=-1 msg=unknown_kvsname");
    const char *value = smrun_kvs_get(&job->kvs, key);
    if (!value)
        return reply(r, why, "cmd=get_result rc=-1 msg=key_not_found");
    return reply(r, why, "cmd=get_result rc=0 msg=success value=%s", value);
}

static int barrier_release(struct smrun_job *job, const char **why_out, struct smrun_rank **bad)
{
    job->barrier_waiting = 0;
    int rc = 0;
    for (int i = 0; i < job->n; i++) {
        struct smrun_rank *q = &job->ranks[i];
        if (!q->pmi.in_barrier)
            continue;
        q->pmi.in_barrier = 0;
        const char *why = NULL;
        if (reply(q, &why, "cmd=barrier_out rc=0") != 0 && rc == 0) {
            *why_out = why;
            *bad = q;
            rc = -1;
        }
    }
    return rc;
}

static int do_barrier(struct smrun_job *job, struct smrun_rank *r, const struct smap_pmi_msg *m,
                      const char **why)
{
    (void)m;
    if (r->pmi.in_barrier) {
        *why = "barrier_in while already waiting in the barrier";
        return -1;
    }
    r->pmi.in_barrier = 1;
    job->barrier_waiting++;
    smap_debug("barrier: %d of %d ranks in", job->barrier_waiting, job->n);
    if (job->barrier_waiting == job->n) {
        if (job->agent)
            smrun_agent_barrier(job);   /* the head answers when every host is in */
        else
            smrun_pmi_barrier_release(job);
        return 0;
    }
    smrun_pmi_check_barrier(job);
    return 0;
}

void smrun_pmi_barrier_release(struct smrun_job *job)
{
    struct smrun_rank *bad = NULL;
    const char *bad_why = NULL;
    if (barrier_release(job, &bad_why, &bad) != 0)
        protocol_error(job, bad, bad_why);
}

static int do_finalize(struct smrun_job *job, struct smrun_rank *r, const struct smap_pmi_msg *m,
                       const char **why)
{
    (void)job, (void)m;
    r->pmi.finalized = 1;
    return reply(r, why, "cmd=finalize_ack rc=0");
}

/* Name service (publish_name, unpublish_name, lookup_name): the job's
 * table (dynamic.c), the head's across hosts (answered later, when the
 * head's name_result comes: the rank waits for it), or the name server. */
static int do_names(struct smrun_job *job, struct smrun_rank *r, const struct smap_pmi_msg *m,
                    const char **why)
{
    const char *service = smap_pmi_get(m, "service");
    if (!service) {
        *why = "a name service request without service=";
        return -1;
    }
    const char *ns = getenv("SMRUN_NAMESERVER");
    if (job->agent && !(ns && *ns)) {
        /* the head holds the job's table: its answer is the reply */
        smrun_agent_name(job, r, smap_pmi_get(m, "cmd"), service, smap_pmi_get(m, "port"));
        return 0;
    }
    char line[SMAP_PMI_MAXLINE];
    smrun_names_answer(job, smap_pmi_get(m, "cmd"), service, smap_pmi_get(m, "port"), line,
                       sizeof line);
    return reply(r, why, "%s", line);
}

static const struct pmi_command commands[] = {
    { "init", do_init },
    { "get_maxes", do_maxes },
    { "get_appnum", do_appnum },
    { "get_my_kvsname", do_kvsname },
    { "get_universe_size", do_universe },
    { "put", do_put },
    { "get", do_get },
    { "barrier_in", do_barrier },
    { "finalize", do_finalize },
    { "publish_name", do_names },
    { "unpublish_name", do_names },
    { "lookup_name", do_names },
};

static void dispatch(struct smrun_job *job, struct smrun_rank *r, const struct smap_pmi_msg *m)
{
    const char *cmd = smap_pmi_get(m, "cmd");
    static char why_buf[160];
    const char *why = NULL;
    smap_debug("rank %d -> cmd=%s (%d pairs)", r->rank, cmd, m->npairs);
    for (size_t i = 0; i < SMAP_ARRAY_SIZE(commands); i++) {
        if (strcmp(cmd, commands[i].name) != 0)
            continue;
        if (!r->pmi.initialized && commands[i].fn != do_init) {
            snprintf(why_buf, sizeof why_buf, "cmd=%.64s before cmd=init", cmd);
            protocol_error(job, r, why_buf);
        } else if (commands[i].fn(job, r, m, &why) != 0) {
            protocol_error(job, r, why);
        }
        return;
    }
    snprintf(why_buf, sizeof why_buf, "unknown command '%.64s'", cmd);
    protocol_error(job, r, why_buf);
}

/* ---- abort --------------------------------------------------------------
 * "cmd=abort exitcode=N [error_msg=free text]".  The message may contain
 * spaces (MPICH and Flux clients send it so), which the key=value codec
 * rightly rejects, so abort lines are taken from the buffer before it. */

static const char *abort_text(char *line)
{
    static const char *const keys[] = { " error_msg=", " msg=", " message=" };
    for (size_t i = 0; i < SMAP_ARRAY_SIZE(keys); i++) {
        char *p = strstr(line, keys[i]);
        if (p) {
            *p = '\0';
            p += strlen(keys[i]);
            return *p ? p : NULL;
        }
    }
    return NULL;
}

/* N as the job's exit status: like exit(N), but an abort never reads as
 * success unless N itself is 0. */
static int abort_exit_code(const char *line)
{
    const char *p = strstr(line, " exitcode=");
    if (!p)
        return 1;
    char *end;
    long v = strtol(p + strlen(" exitcode="), &end, 10);
    if (*end && *end != ' ')
        return 1;
    int code = (int)(v & 0xff);
    return (code == 0 && v != 0) ? 1 : code;
}

static void handle_abort(struct smrun_job *job, struct smrun_rank *r, char *line)
{
    for (char *c = line; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c == 0x7f)
            *c = '?';
    const char *text = abort_text(line);
    int code = abort_exit_code(line);
    if (text)
        smrun_job_abort(job, code, "rank %d aborted the job with code %d: %s", r->rank, code, text);
    else
        smrun_job_abort(job, code, "rank %d called MPI_Abort with code %d", r->rank, code);
}

/* Abort's error_msg runs to the end of the line with spaces in it, so its
 * line is taken verbatim instead of being parsed into pairs. */
static int take_abort_line(struct smap_pmi_reader *rd, char *line, size_t cap)
{
    return smap_pmi_reader_peek_cmd(rd, "abort") && smap_pmi_reader_take_line(rd, line, cap);
}

/* ---- reading ------------------------------------------------------------ */

/* The next buffered line is complete and starts with "mcmd=" (a
 * multi-line spawn request begins). */
static int peek_mcmd(const struct smap_pmi_reader *rd)
{
    return rd->len > 5 && memchr(rd->buf, '\n', rd->len) && strncmp(rd->buf, "mcmd=", 5) == 0;
}

static void process_buffered(struct smrun_job *job, struct smrun_rank *r)
{
    while (r->pmi.fd >= 0) {
        char line[SMAP_PMI_MAXLINE + 1];
        if ((r->spawn || peek_mcmd(&r->pmi.rd)) &&
            smap_pmi_reader_take_line(&r->pmi.rd, line, sizeof line)) {
            const char *why = "malformed spawn request";
            if (!r->pmi.initialized)
                protocol_error(job, r, "mcmd=spawn before cmd=init");
            else if (smrun_spawn_line(job, r, line, &why) != 0)
                protocol_error(job, r, why);
            continue;
        }
        if (r->spawn)
            return;   /* the rest of the spawn request is not in yet */
        if (take_abort_line(&r->pmi.rd, line, sizeof line)) {
            handle_abort(job, r, line);
            continue;
        }
        struct smap_pmi_msg m;
        const char *why = "malformed line";
        int rc = smap_pmi_reader_next(&r->pmi.rd, &m, &why);
        if (rc == 0)
            return;
        if (rc < 0) {
            protocol_error(job, r, why);
            return;
        }
        dispatch(job, r, &m);
    }
}

/* Returns 1 while more may be readable right now. */
static int read_once(struct smrun_job *job, struct smrun_rank *r)
{
    ssize_t n = smap_pmi_reader_fill(&r->pmi.rd, r->pmi.fd);
    int err = n < 0 ? errno : 0;
    if (err == EAGAIN || err == EWOULDBLOCK || err == EINTR)
        return 0;
    process_buffered(job, r);   /* also reports a full buffer without newline */
    if (r->pmi.fd >= 0 && (n == 0 || (n < 0 && err != EMSGSIZE))) {
        smap_debug("rank %d closed its PMI socket%s", r->rank,
                   r->pmi.finalized ? "" : " without finalize");
        smrun_pmi_close(r);
        return 0;
    }
    return r->pmi.fd >= 0;
}

void smrun_pmi_readable(struct smrun_job *job, struct smrun_rank *r)
{
    /* One read per wake-up keeps a flooding rank from starving the others. */
    if (r->pmi.fd >= 0)
        read_once(job, r);
}

void smrun_pmi_drain(struct smrun_job *job, struct smrun_rank *r)
{
    /* Bounded: a descendant still holding the socket could write forever. */
    for (int i = 0; i < 1024 && r->pmi.fd >= 0 && read_once(job, r); i++)
        ;
}

void smrun_pmi_check_barrier(struct smrun_job *job)
{
    if (job->stopping || job->barrier_waiting == 0)
        return;
    for (int i = 0; i < job->n; i++) {
        const struct smrun_rank *q = &job->ranks[i];
        if (q->pid > 0 && !q->alive && !q->pmi.in_barrier) {
            smrun_job_fail(job, SMRUN_EXIT_FAILURE,
                           "rank %d (pid %d) exited without joining the PMI barrier that %d "
                           "other rank(s) wait in", q->rank, (int)q->pid, job->barrier_waiting);
            return;
        }
    }
}

/* A spawned job: its parents' preput keys (dynamic.c), in every host's
 * KVS (an agent of a spawned job has them from the head's environment;
 * gets are answered locally). */
static void load_preputs(struct smrun_job *job)
{
    const char *pre = getenv("SMRUN_SPAWN_KVS");
    char buf[SMAP_PMI_MAXLINE + 1];
    snprintf(buf, sizeof buf, "%s", pre ? pre : "");
    for (char *save = NULL, *kv = strtok_r(buf, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(kv, '=');
        if (eq && eq != kv) {
            *eq = '\0';
            if (smap_pmi_valid_key(kv) && smap_pmi_valid_value(eq + 1))
                smrun_kvs_put(&job->kvs, kv, eq + 1);
        }
    }
}

void smrun_pmi_setup(struct smrun_job *job)
{
    load_preputs(job);
    if (job->agent)
        return;   /* the head named the KVS and sent the node layout */
    /* The library names its abstract sockets after the KVS: a random part
     * keeps other local users from taking them first (DESIGN D18). */
    char rnd[17];
    smrun_random_hex(rnd, 8);
    snprintf(job->kvsname, sizeof job->kvsname, "smap-%d-%s", (int)job->launcher_pid, rnd);
    /* MPICH's clients read the node layout from this key (hydra's format:
     * one block of n ranks starting on node 0). */
    char mapping[64];
    snprintf(mapping, sizeof mapping, "(vector,(0,1,%d))", job->n);
    smrun_kvs_put(&job->kvs, "PMI_process_mapping", mapping);
}
