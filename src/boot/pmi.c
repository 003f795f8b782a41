#include "boot/pmi.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/tunables.h"
#include "boot/pmi2.h"
#include "boot/pmi_wire.h"
#include "boot/pmix_client.h"

static int pmi_fd = -1;
static int pmi2;       /* the launcher speaks PMI-2 (pmi2.c) */
static int job_size;
static int pmi_rank;   /* for PMIx gets, which name the rank asked */
static pthread_mutex_t pmi_lock = PTHREAD_MUTEX_INITIALIZER;
static struct smap_pmi_reader pmi_reader;

static int parse_env_int(const char *name, int min, int *out, char *err, size_t errlen)
{
    const char *s = getenv(name);
    char *end;
    if (!s) {
        snprintf(err, errlen, "PMI_FD is set but %s is not", name);
        return -1;
    }
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > INT_MAX) {
        snprintf(err, errlen, "%s='%s' is not a valid value", name, s);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int smap_pmi_detect(int *rank, int *size, char *err, size_t errlen)
{
    if (!getenv("PMI_FD")) {
        int rc = smap_pmix_detect(rank, size, err, errlen);   /* Open MPI's mpirun, srun --mpi=pmix */
        job_size = rc == 1 ? *size : 0;
        return rc;
    }
    if (parse_env_int("PMI_FD", 0, &pmi_fd, err, errlen) ||
        parse_env_int("PMI_SIZE", 1, size, err, errlen) ||
        parse_env_int("PMI_RANK", 0, rank, err, errlen))
        return -1;
    pmi_rank = *rank;
    job_size = *size;
    if (*rank >= *size) {
        snprintf(err, errlen, "PMI_RANK=%d is not below PMI_SIZE=%d", *rank, *size);
        return -1;
    }
    /* Slurm's srun --mpi=pmi2 sets PMI_JOBID, hydra and smrun do not. */
    const char *want = smap_tun.pmi ? smap_tun.pmi : "auto";
    if (strcmp(want, "2") == 0)
        pmi2 = 1;
    else if (strcmp(want, "1") == 0)
        pmi2 = 0;
    else if (strcmp(want, "auto") == 0)
        pmi2 = getenv("PMI_JOBID") != NULL;
    else {
        snprintf(err, errlen, "SMAP_PMI='%s' is not one of auto|1|2", want);
        return -1;
    }
    return 1;
}

/* Blocks until the next line arrives; the launcher answers each request with
 * exactly one line.  Returns 0, or -1 if the launcher went away. */
static int pmi_read(struct smap_pmi_msg *m)
{
    for (;;) {
        const char *why = NULL;
        int rc = smap_pmi_reader_next(&pmi_reader, m, &why);
        if (rc == 1)
            return 0;
        if (rc < 0) {
            smap_log(SMAP_LOG_ERROR, "malformed PMI reply from the launcher: %s", why);
            return -1;
        }
        ssize_t n = smap_pmi_reader_fill(&pmi_reader, pmi_fd);
        if (n <= 0) {
            smap_log(SMAP_LOG_ERROR, "lost the connection to the launcher (PMI_FD %d): %s",
                     pmi_fd, n == 0 ? "closed" : strerror(errno));
            return -1;
        }
    }
}

/* Reads a reply and checks its cmd; rc=<n> other than 0 is a failure. */
static int pmi_expect(struct smap_pmi_msg *m, const char *cmd)
{
    if (pmi_read(m) != 0)
        return -1;
    const char *got = smap_pmi_get(m, "cmd");
    if (strcmp(got, cmd) != 0) {
        smap_log(SMAP_LOG_ERROR, "PMI: expected cmd=%s from the launcher, got cmd=%s", cmd, got);
        return -1;
    }
    const char *rc = smap_pmi_get(m, "rc");
    return (rc && strcmp(rc, "0") != 0) ? -1 : 0;
}

static int reply_int(const struct smap_pmi_msg *m, const char *key, int *out)
{
    const char *v = smap_pmi_get(m, key);
    if (!v)
        return -1;
    *out = atoi(v);
    return 0;
}

int smap_pmi_init(char *kvsname, size_t kvslen, int *appnum, int *universe, char *err, size_t errlen)
{
    if (smap_pmix_active()) {
        if (smap_pmix_init(kvsname, kvslen, appnum, universe) == 0)
            return 0;
        snprintf(err, errlen, "PMIx: cannot read the job's attributes");
        return -1;
    }
    if (pmi2) {
        pthread_mutex_lock(&pmi_lock);
        int rc = smap_pmi2_init(pmi_fd, pmi_rank, kvsname, kvslen, appnum, universe, err, errlen);
        pthread_mutex_unlock(&pmi_lock);
        if (rc == 0)
            smap_log(SMAP_LOG_INFO, "boot: PMI-2 wire protocol on PMI_FD %d, job %s", pmi_fd,
                     kvsname);
        return rc;
    }
    struct smap_pmi_msg m;
    const char *step = "init";
    pthread_mutex_lock(&pmi_lock);
    if (smap_pmi_writef(pmi_fd, "cmd=init pmi_version=1 pmi_subversion=1\n") ||
        pmi_expect(&m, "response_to_init"))
        goto fail;
    step = "get_my_kvsname";
    if (smap_pmi_writef(pmi_fd, "cmd=get_my_kvsname\n") || pmi_expect(&m, "my_kvsname") ||
        !smap_pmi_get(&m, "kvsname"))
        goto fail;
    snprintf(kvsname, kvslen, "%s", smap_pmi_get(&m, "kvsname"));
    step = "get_appnum";
    if (smap_pmi_writef(pmi_fd, "cmd=get_appnum\n") || pmi_expect(&m, "appnum") ||
        reply_int(&m, "appnum", appnum))
        goto fail;
    step = "get_universe_size";
    if (smap_pmi_writef(pmi_fd, "cmd=get_universe_size\n") || pmi_expect(&m, "universe_size") ||
        reply_int(&m, "size", universe))
        goto fail;
    pthread_mutex_unlock(&pmi_lock);
    return 0;
fail:
    pthread_mutex_unlock(&pmi_lock);
    snprintf(err, errlen, "PMI-1 %s with the launcher failed (PMI_FD=%d)", step, pmi_fd);
    return -1;
}

int smap_pmi_kvs_put(const char *kvsname, const char *key, const char *value)
{
    if (smap_pmix_active())
        return smap_pmix_put(key, value);
    struct smap_pmi_msg m;
    if (!smap_pmi_valid_key(key) || !smap_pmi_valid_value(value))
        return -1;
    pthread_mutex_lock(&pmi_lock);
    if (pmi2) {
        int rc2 = smap_pmi2_put(key, value);
        pthread_mutex_unlock(&pmi_lock);
        return rc2;
    }
    int rc = smap_pmi_writef(pmi_fd, "cmd=put kvsname=%s key=%s value=%s\n", kvsname, key, value);
    if (rc == 0)
        rc = pmi_expect(&m, "put_result");
    pthread_mutex_unlock(&pmi_lock);
    return rc;
}

int smap_pmi_kvs_get(const char *kvsname, const char *key, char *value, size_t len)
{
    if (smap_pmix_active())
        return smap_pmix_get(key, value, len, job_size);
    struct smap_pmi_msg m;
    pthread_mutex_lock(&pmi_lock);
    if (pmi2) {
        int rc2 = smap_pmi2_get(key, value, len);
        pthread_mutex_unlock(&pmi_lock);
        return rc2;
    }
    int rc = smap_pmi_writef(pmi_fd, "cmd=get kvsname=%s key=%s\n", kvsname, key);
    if (rc == 0)
        rc = pmi_expect(&m, "get_result");
    if (rc == 0) {
        const char *v = smap_pmi_get(&m, "value");
        if (!v || strlen(v) >= len)
            rc = -1;
        else
            memcpy(value, v, strlen(v) + 1);
    }
    pthread_mutex_unlock(&pmi_lock);
    return rc;
}

int smap_pmi_barrier(void)
{
    if (smap_pmix_active())
        return smap_pmix_fence();
    struct smap_pmi_msg m;
    pthread_mutex_lock(&pmi_lock);
    if (pmi2) {
        int rc2 = smap_pmi2_barrier(pmi_rank, job_size);
        pthread_mutex_unlock(&pmi_lock);
        return rc2;
    }
    int rc = smap_pmi_writef(pmi_fd, "cmd=barrier_in\n");
    if (rc == 0)
        rc = pmi_expect(&m, "barrier_out");
    pthread_mutex_unlock(&pmi_lock);
    return rc;
}

int smap_pmi_finalize(void)
{
    if (smap_pmix_active())
        return smap_pmix_finalize();
    struct smap_pmi_msg m;
    pthread_mutex_lock(&pmi_lock);
    int rc;
    if (pmi2) {
        rc = smap_pmi2_finalize();
    } else {
        rc = smap_pmi_writef(pmi_fd, "cmd=finalize\n");
        if (rc == 0)
            rc = pmi_expect(&m, "finalize_ack");
    }
    close(pmi_fd);
    pmi_fd = -1;
    pthread_mutex_unlock(&pmi_lock);
    return rc;
}

void smap_pmi_abort(int code)
{
    if (smap_pmix_active()) {
        smap_pmix_abort(code, NULL);
        return;
    }
    /* No lock: abort may come from an error handler while another thread
     * holds it, and the process exits right after.  The rank prints its own
     * message on stderr; the launcher only needs the code. */
    if (pmi2)
        smap_pmi2_abort(code);
    else if (pmi_fd >= 0)
        smap_pmi_writef(pmi_fd, "cmd=abort exitcode=%d\n", code);
}

/* ---- dynamic processes (src/spawn, DESIGN D17) ---------------------------- */

/* One request, one reply of cmd `want`; the reply stays in *m. */
static int pmi_ask(struct smap_pmi_msg *m, const char *want, const char *fmt, ...)
    SMAP_PRINTF_LIKE(3, 4);
static int pmi_ask(struct smap_pmi_msg *m, const char *want, const char *fmt, ...)
{
    char line[SMAP_PMI_MAXLINE + 1];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line)
        return -1;
    pthread_mutex_lock(&pmi_lock);
    int rc = pmi_fd < 0 || pmi2 ? -1 : smap_pmi_writef(pmi_fd, "%s", line);
    if (rc == 0)
        rc = pmi_expect(m, want);
    pthread_mutex_unlock(&pmi_lock);
    return rc;
}

int smap_pmi_publish(const char *service, const char *port)
{
    if (smap_pmix_active())
        return smap_pmix_publish(service, port);
    struct smap_pmi_msg m;
    return pmi_ask(&m, "publish_result", "cmd=publish_name service=%s port=%s\n", service, port);
}

int smap_pmi_unpublish(const char *service)
{
    if (smap_pmix_active())
        return smap_pmix_unpublish(service);
    struct smap_pmi_msg m;
    return pmi_ask(&m, "unpublish_result", "cmd=unpublish_name service=%s\n", service);
}

int smap_pmi_lookup(const char *service, char *port, size_t len)
{
    if (smap_pmix_active())
        return smap_pmix_lookup(service, port, len);
    struct smap_pmi_msg m;
    if (pmi_ask(&m, "lookup_result", "cmd=lookup_name service=%s\n", service) != 0)
        return -1;
    const char *v = smap_pmi_get(&m, "port");
    if (!v || strlen(v) >= len)
        return -1;
    memcpy(port, v, strlen(v) + 1);
    return 0;
}

/* Appends to the growing request; -1 when it outgrows the buffer. */
static int app(char *buf, size_t cap, size_t *at, const char *fmt, ...) SMAP_PRINTF_LIKE(4, 5);
static int app(char *buf, size_t cap, size_t *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *at, cap - *at, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap - *at)
        return -1;
    *at += (size_t)n;
    return 0;
}

int smap_pmi_spawn(const struct smap_spawn_cmd *cmds, int count, const char *const *pkeys,
                   const char *const *pvals, int npre, char *err, size_t errlen)
{
    if (smap_pmix_active())   /* Open MPI's mpirun, srun --mpi=pmix */
        return smap_pmix_spawn(cmds, count, pkeys, pvals, npre, err, errlen);
    if (pmi_fd < 0 || pmi2) {
        snprintf(err, errlen, "the launcher does not serve PMI-1 spawn (started without one, "
                              "or it speaks PMI-2)");
        return -1;
    }
    /* the multi-line form of MPICH's simple PMI: one block per command,
     * then one spawn_result for all */
    size_t cap = 1 << 16;
    char *buf = malloc(cap);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    pthread_mutex_lock(&pmi_lock);
    for (int c = 0; c < count && rc == 0; c++) {
        size_t at = 0;
        const struct smap_spawn_cmd *s = &cmds[c];
        rc |= app(buf, cap, &at, "mcmd=spawn\nnprocs=%d\nexecname=%s\ntotspawns=%d\nspawnssofar=%d\n",
                  s->nprocs, s->cmd, count, c + 1);
        int argc = 0;
        while (s->argv && s->argv[argc])
            argc++;
        rc |= app(buf, cap, &at, "argcnt=%d\n", argc);
        for (int i = 0; i < argc; i++)
            rc |= app(buf, cap, &at, "arg%d=%s\n", i + 1, s->argv[i]);
        rc |= app(buf, cap, &at, "preput_num=%d\n", npre);
        for (int i = 0; i < npre; i++)
            rc |= app(buf, cap, &at, "preput_key_%d=%s\npreput_val_%d=%s\n", i, pkeys[i], i,
                      pvals[i]);
        rc |= app(buf, cap, &at, "info_num=%d\n", s->ninfo);
        for (int i = 0; i < s->ninfo; i++)
            rc |= app(buf, cap, &at, "info_key_%d=%s\ninfo_val_%d=%s\n", i, s->info_keys[i], i,
                      s->info_vals[i]);
        rc |= app(buf, cap, &at, "endcmd\n");
        if (rc) {
            snprintf(err, errlen, "the spawn request of command %d is too long", c);
            break;
        }
        if (smap_pmi_writef(pmi_fd, "%s", buf) != 0) {
            snprintf(err, errlen, "lost the connection to the launcher");
            rc = -1;
        }
    }
    struct smap_pmi_msg m;
    if (rc == 0 && pmi_expect(&m, "spawn_result") != 0) {
        const char *msg = smap_pmi_get(&m, "msg");
        snprintf(err, errlen, "the launcher refused the spawn%s%s", msg ? ": " : "",
                 msg ? msg : "");
        rc = -1;
    }
    pthread_mutex_unlock(&pmi_lock);
    free(buf);
    return rc;
}
