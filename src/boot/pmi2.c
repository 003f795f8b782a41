/* The PMI-2 wire protocol client (Slurm's `srun --mpi=pmi2`, hydra, any
 * launcher that serves it on PMI_FD).  The handshake is a PMI-1 line,
 * "cmd=init pmi_version=2 pmi_subversion=0", answered by
 * "cmd=response_to_init pmi_version=2 ... rc=0"; after it every message
 * either way is a 6-character decimal length (space-padded) followed by
 * that many bytes of "key=value;" pairs, the first being cmd:
 *   fullinit (pmirank, pmijobid)  -> fullinit-response: rank, size, appnum
 *   job-getid                     -> job-getid-response: jobid
 *   kvs-put key value             -> kvs-put-response
 *   kvs-fence                     -> kvs-fence-response (puts before it
 *                                    are visible after it; not a barrier
 *                                    in hydra: smap_pmi2_barrier)
 *   kvs-get jobid srcid key       -> kvs-get-response: found, value
 *   info-getjobattr key           -> info-getjobattr-response: found, value
 *   finalize                      -> finalize-response
 *   abort isworldabort msg        (no answer)
 * Every answer carries rc (0: success).  ';' inside a value would need
 * escaping that not every server undoes (hydra's does not), and our values
 * have some (region descriptions): our own keys' values travel with '%'
 * and ';' as %25 and %3B, undone by our gets (only our ranks read them).
 * The caller (pmi.c) holds its lock around each exchange. */
#include "boot/pmi2.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "boot/pmi_wire.h"

#define MSG_MAX 4096
#define PAIRS_MAX 24

struct reply {
    int npairs;
    const char *key[PAIRS_MAX], *val[PAIRS_MAX];
    char text[MSG_MAX + 1];
};

static int fd2 = -1;
static char jobid[SMAP_PMI_KVSNAME_MAX];

static int write_all(const char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd2, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int read_all(char *p, size_t n)
{
    while (n) {
        ssize_t k = read(fd2, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            smap_log(SMAP_LOG_ERROR, "PMI-2: lost the connection to the launcher (PMI_FD %d): %s",
                     fd2, k == 0 ? "closed" : strerror(errno));
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Sends one command: its body, behind its length. */
static int send_cmd(const char *body)
{
    size_t n = strlen(body);
    char len[8];
    if (n > MSG_MAX)
        return -1;
    snprintf(len, sizeof len, "%6u", (unsigned)n);
    return write_all(len, 6) || write_all(body, n) ? -1 : 0;
}

/* Splits "k=v;k=v;" in place. */
static int parse(struct reply *r, size_t n)
{
    r->text[n] = '\0';
    r->npairs = 0;
    char *p = r->text;
    while (*p) {
        char *semi = strchr(p, ';'), *eq = strchr(p, '=');
        if (!semi)
            semi = p + strlen(p);
        if (!eq || eq > semi || eq == p || r->npairs == PAIRS_MAX)
            return -1;
        *eq = '\0';
        r->key[r->npairs] = p;
        r->val[r->npairs++] = eq + 1;
        if (*semi) {
            *semi = '\0';
            p = semi + 1;
        } else {
            p = semi;
        }
    }
    return 0;
}

static const char *get(const struct reply *r, const char *key)
{
    for (int i = 0; i < r->npairs; i++)
        if (strcmp(r->key[i], key) == 0)
            return r->val[i];
    return NULL;
}

/* Reads the answer to a command and checks its cmd and rc. */
static int expect(struct reply *r, const char *cmd)
{
    char len[7];
    if (read_all(len, 6))
        return -1;
    len[6] = '\0';
    char *end;
    long n = strtol(len, &end, 10);
    /* Slurm's PMI-2 server pads the field with spaces ("114   "). */
    while (*end == ' ')
        end++;
    if (end == len || *end || n < 0 || n > MSG_MAX) {
        smap_log(SMAP_LOG_ERROR, "PMI-2: malformed length '%s' from the launcher", len);
        return -1;
    }
    if (read_all(r->text, (size_t)n))
        return -1;
    if (parse(r, (size_t)n) != 0 || !get(r, "cmd")) {
        smap_log(SMAP_LOG_ERROR, "PMI-2: malformed answer from the launcher: %.200s", r->text);
        return -1;
    }
    if (strcmp(get(r, "cmd"), cmd) != 0) {
        smap_log(SMAP_LOG_ERROR, "PMI-2: expected cmd=%s from the launcher, got cmd=%s", cmd,
                 get(r, "cmd"));
        return -1;
    }
    const char *rc = get(r, "rc");
    return rc && strcmp(rc, "0") != 0 ? -1 : 0;
}

/* A key or value that travels unescaped. */
static int plain(const char *s)
{
    return smap_pmi_valid_value(s) && !strchr(s, ';');
}

int smap_pmi2_init(int fd, int rank, char *kvsname, size_t kvslen, int *appnum, int *universe,
                   char *err, size_t errlen)
{
    fd2 = fd;
    const char *step = "init";
    struct reply r;
    struct smap_pmi_msg m;
    const char *why = "";
    /* The handshake is one PMI-1 line each way, read byte by byte: what
     * follows it is PMI-2 framing. */
    if (smap_pmi_writef(fd, "cmd=init pmi_version=2 pmi_subversion=0\n"))
        goto fail;
    char line[SMAP_PMI_MAXLINE];
    size_t n = 0;
    for (;;) {
        char c;
        ssize_t k = read(fd, &c, 1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0 || n == sizeof line)
            goto fail;
        if (c == '\n')
            break;
        line[n++] = c;
    }
    if (smap_pmi_parse(line, n, &m, &why) != 0)
        goto fail;
    const char *v = smap_pmi_get(&m, "pmi_version"), *rc = smap_pmi_get(&m, "rc");
    if (strcmp(smap_pmi_get(&m, "cmd"), "response_to_init") != 0 || !v || strcmp(v, "2") != 0 ||
        (rc && strcmp(rc, "0") != 0)) {
        snprintf(err, errlen,
                 "the launcher does not speak PMI-2 (PMI_FD=%d answered the init with "
                 "pmi_version=%s rc=%s); SMAP_PMI=1 or auto uses PMI-1",
                 fd, v ? v : "?", rc ? rc : "?");
        return -1;
    }
    step = "fullinit";
    char body[512];
    const char *envjob = getenv("PMI_JOBID");
    if (envjob && plain(envjob))
        snprintf(body, sizeof body, "cmd=fullinit;pmijobid=%s;pmirank=%d;threaded=FALSE;",
                 envjob, rank);
    else
        snprintf(body, sizeof body, "cmd=fullinit;pmirank=%d;threaded=FALSE;", rank);
    if (send_cmd(body) || expect(&r, "fullinit-response"))
        goto fail;
    const char *rk = get(&r, "rank"), *an = get(&r, "appnum"), *sz = get(&r, "size");
    if (!rk || atoi(rk) != rank) {
        snprintf(err, errlen, "PMI-2 fullinit: the launcher says rank %s, PMI_RANK says %d",
                 rk ? rk : "(none)", rank);
        return -1;
    }
    *appnum = an ? atoi(an) : 0;
    *universe = sz ? atoi(sz) : 0;
    step = "job-getid";
    if (send_cmd("cmd=job-getid;") || expect(&r, "job-getid-response") || !get(&r, "jobid"))
        goto fail;
    snprintf(jobid, sizeof jobid, "%s", get(&r, "jobid"));
    snprintf(kvsname, kvslen, "%s", jobid);
    return 0;
fail:
    snprintf(err, errlen, "PMI-2 %s with the launcher failed (PMI_FD=%d)%s%s", step, fd,
             *why ? ": " : "", why);
    return -1;
}

/* '%' and ';' as %25 and %3B; 0, or -1 when it does not fit. */
static int escape(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    for (; *in; in++) {
        if (n + 4 > cap)
            return -1;
        if (*in == '%' || *in == ';')
            n += (size_t)snprintf(out + n, cap - n, "%%%02X", (unsigned char)*in);
        else
            out[n++] = *in;
    }
    out[n] = '\0';
    return 0;
}

static void unescape(char *s)
{
    char *w = s;
    for (; *s; s++) {
        if (s[0] == '%' && s[1] == '2' && s[2] == '5') {
            *w++ = '%';
            s += 2;
        } else if (s[0] == '%' && s[1] == '3' && s[2] == 'B') {
            *w++ = ';';
            s += 2;
        } else {
            *w++ = *s;
        }
    }
    *w = '\0';
}

int smap_pmi2_put(const char *key, const char *value)
{
    char body[MSG_MAX], esc[3 * SMAP_PMI_VALLEN_MAX + 1];
    struct reply r;
    if (!plain(key) || !smap_pmi_valid_value(value) || escape(value, esc, sizeof esc))
        return -1;
    snprintf(body, sizeof body, "cmd=kvs-put;key=%s;value=%s;", key, esc);
    return send_cmd(body) || expect(&r, "kvs-put-response") ? -1 : 0;
}

/* 0: the key's value is in value; 1: not found (yet); -1: an error.
 * PMI_process_mapping is a job attribute in PMI-2, not a key. */
static int get_found(const char *key, char *value, size_t len)
{
    char body[MSG_MAX];
    struct reply r;
    int attr = strcmp(key, "PMI_process_mapping") == 0;
    if (!plain(key))
        return -1;
    if (attr)
        snprintf(body, sizeof body, "cmd=info-getjobattr;key=%s;", key);
    else
        snprintf(body, sizeof body, "cmd=kvs-get;jobid=%s;srcid=-1;key=%s;", jobid, key);
    if (send_cmd(body) || expect(&r, attr ? "info-getjobattr-response" : "kvs-get-response"))
        return -1;
    const char *found = get(&r, "found");
    char *v = (char *)(uintptr_t)get(&r, "value");   /* in r's own text */
    if (found && strcmp(found, "TRUE") != 0)
        return 1;
    if (!found || !v)
        return -1;
    if (!attr)
        unescape(v);
    if (strlen(v) >= len)
        return -1;
    memcpy(value, v, strlen(v) + 1);
    return 0;
}

int smap_pmi2_get(const char *key, char *value, size_t len)
{
    return get_found(key, value, len) == 0 ? 0 : -1;
}

int smap_pmi2_fence(void)
{
    struct reply r;
    return send_cmd("cmd=kvs-fence;") || expect(&r, "kvs-fence-response") ? -1 : 0;
}

/* Polls for a key another rank puts (its fence may come after ours). */
static int await_key(const char *key)
{
    char v[16];
    unsigned us = 20;
    for (;;) {
        int rc = get_found(key, v, sizeof v);
        if (rc <= 0)
            return rc;
        usleep(us);
        if (us < 5000)
            us *= 2;
    }
}

/* hydra answers a kvs-fence that follows no put of ours at once (measured:
 * a rank 3 s late in MPI_Finalize held nobody), so a fence is no barrier
 * there, and a rank that left MPI_Finalize early closed connections its
 * peers still wrote to.  A barrier is therefore built from keys: everyone
 * puts its arrival, rank 0 polls for all of them and puts the release,
 * the others poll for that (2 fences each: a put is visible once its
 * owner fenced).  Every rank calls the barriers in the same order, so the
 * round numbers agree. */
int smap_pmi2_barrier(int rank, int size)
{
    static unsigned round;
    unsigned k = round++;
    char key[64];
    snprintf(key, sizeof key, "smap.bar.%u.%d", k, rank);
    if (smap_pmi2_put(key, "1") || smap_pmi2_fence())
        return -1;
    if (rank == 0) {
        for (int r = 1; r < size; r++) {
            snprintf(key, sizeof key, "smap.bar.%u.%d", k, r);
            if (await_key(key))
                return -1;
        }
        snprintf(key, sizeof key, "smap.bar.%u.go", k);
        if (smap_pmi2_put(key, "1"))
            return -1;
    }
    if (smap_pmi2_fence())
        return -1;
    if (rank != 0) {
        snprintf(key, sizeof key, "smap.bar.%u.go", k);
        if (await_key(key))
            return -1;
    }
    return 0;
}

int smap_pmi2_finalize(void)
{
    struct reply r;
    int rc = send_cmd("cmd=finalize;") || expect(&r, "finalize-response") ? -1 : 0;
    fd2 = -1;
    return rc;
}

void smap_pmi2_abort(int code)
{
    char body[128];
    snprintf(body, sizeof body, "cmd=abort;isworldabort=TRUE;msg=exit code %d;", code);
    if (fd2 >= 0)
        (void)send_cmd(body);
}
