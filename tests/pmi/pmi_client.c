/* A scripted PMI-1 client for the launcher's protocol tests.  It speaks to
 * the server on PMI_FD with the project's wire codec and runs the steps
 * given on its command line in order; "@R:step" runs only on rank R.
 * In texts {rank}, {size} and {kvs} (known after init) are replaced.
 *
 *   init            init handshake (rc=0 expected), then get_my_kvsname
 *   send:LINE       send LINE and a newline
 *   raw:TEXT        send TEXT as is (no newline)
 *   ctrl            send a line holding a control character
 *   expect:K=V ...  read one reply; every K=V given must be in it exactly
 *   exchange        put k<rank>, barrier, get every rank's key and check it,
 *                   check a missing key gives rc=-1 and the process mapping
 *   barrier         barrier_in / barrier_out
 *   finalize        finalize / finalize_ack, then close the socket
 *   close           close the socket without finalize
 *   abort:N[:TEXT]  send cmd=abort exitcode=N [error_msg=TEXT]
 *   oversize:N      send one put line carrying an N-byte value
 *   flood:BYTES     send BYTES of 'a' without any newline (errors ignored)
 *   reqflood:N      send N get_maxes requests without reading the replies
 *   print:TEXT      print TEXT on stdout
 *   ready:DIR       write our pid to DIR/ready.<rank>
 *   waitfile:PATH   wait until PATH exists (at most 30 s, then exit 99)
 *   sleep:SEC       sleep
 *   exit:N          exit with N
 * A failed expectation prints "pmi_client: rank R: ..." and exits 3. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boot/pmi_wire.h"

static int fd = -1, my_rank, my_size;
static char kvs[SMAP_PMI_KVSNAME_MAX] = "nokvs";
static struct smap_pmi_reader reader;

static _Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static _Noreturn void die(const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "pmi_client: rank %d: %s\n", my_rank, text);
    exit(3);
}

static void subst(const char *in, char *out, size_t len)
{
    size_t o = 0;
    while (*in && o + 1 < len) {
        int n = 0;
        if (strncmp(in, "{rank}", 6) == 0)
            n = snprintf(out + o, len - o, "%d", my_rank), in += 6;
        else if (strncmp(in, "{size}", 6) == 0)
            n = snprintf(out + o, len - o, "%d", my_size), in += 6;
        else if (strncmp(in, "{kvs}", 5) == 0)
            n = snprintf(out + o, len - o, "%s", kvs), in += 5;
        else
            out[o++] = *in++;
        o += (size_t)n;
        if (o >= len)
            o = len - 1;
    }
    out[o] = '\0';
}

/* Writes everything; returns -1 on error (EPIPE once the server hung up). */
static int send_bytes(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void send_line(const char *line)
{
    char buf[SMAP_PMI_MAXLINE * 2];
    int n = snprintf(buf, sizeof buf, "%s\n", line);
    if (send_bytes(buf, (size_t)n) != 0)
        die("cannot send '%s': %s", line, strerror(errno));
}

static void read_reply(struct smap_pmi_msg *m)
{
    for (;;) {
        const char *why = NULL;
        int rc = smap_pmi_reader_next(&reader, m, &why);
        if (rc == 1)
            return;
        if (rc < 0)
            die("malformed reply: %s", why);
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (poll(&p, 1, 30000) != 1)
            die("no reply from the launcher within 30 s");
        ssize_t n = smap_pmi_reader_fill(&reader, fd);
        if (n <= 0)
            die("connection lost: %s", n == 0 ? "closed" : strerror(errno));
    }
}

/* Every "K=V" token of want must be a pair of the reply. */
static void expect(const char *want_text)
{
    struct smap_pmi_msg m;
    read_reply(&m);
    char want[SMAP_PMI_MAXLINE];
    subst(want_text, want, sizeof want);
    for (char *save = NULL, *tok = strtok_r(want, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            die("bad expectation '%s'", tok);
        *eq = '\0';
        const char *got = smap_pmi_get(&m, tok);
        if (!got || strcmp(got, eq + 1) != 0)
            die("reply lacks %s (got '%s')", tok, got ? got : "nothing");
    }
}

static const char *request_value(const char *line, const char *key)
{
    static struct smap_pmi_msg m;
    send_line(line);
    read_reply(&m);
    const char *rc = smap_pmi_get(&m, "rc");
    if (rc && strcmp(rc, "0") != 0)
        die("'%s' failed: rc=%s", line, rc);
    const char *v = smap_pmi_get(&m, key);
    if (!v)
        die("reply to '%s' has no %s", line, key);
    return v;
}

static void step_init(void)
{
    send_line("cmd=init pmi_version=1 pmi_subversion=1");
    expect("cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1");
    snprintf(kvs, sizeof kvs, "%s", request_value("cmd=get_my_kvsname", "kvsname"));
}

static void step_exchange(void)
{
    char line[SMAP_PMI_MAXLINE], want[SMAP_PMI_KVSNAME_MAX + 32];
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=k%d value=v%d-%s", kvs, my_rank, my_rank, kvs);
    send_line(line);
    expect("cmd=put_result rc=0");
    send_line("cmd=barrier_in");
    expect("cmd=barrier_out");
    for (int r = 0; r < my_size; r++) {
        snprintf(line, sizeof line, "cmd=get kvsname=%s key=k%d", kvs, r);
        const char *v = request_value(line, "value");
        snprintf(want, sizeof want, "v%d-%s", r, kvs);
        if (strcmp(v, want) != 0)
            die("got %s, expected %s", v, want);
    }
    snprintf(line, sizeof line, "cmd=get kvsname=%s key=no-such-key", kvs);
    send_line(line);
    expect("cmd=get_result rc=-1");
    snprintf(line, sizeof line, "cmd=get kvsname=%s key=PMI_process_mapping", kvs);
    snprintf(want, sizeof want, "(vector,(0,1,%d))", my_size);
    const char *map = request_value(line, "value");
    if (strcmp(map, want) != 0)
        die("PMI_process_mapping is %s, expected %s", map, want);
}

static void step_flood(long bytes, char fill, int newline_every)
{
    static char chunk[65536];
    size_t clen = sizeof chunk;
    if (newline_every) {
        /* Whole requests: "cmd=get_maxes\n" repeated. */
        static const char req[] = "cmd=get_maxes\n";
        size_t rl = sizeof req - 1;
        clen = (sizeof chunk / rl) * rl;
        for (size_t i = 0; i < clen; i += rl)
            memcpy(chunk + i, req, rl);
    } else {
        memset(chunk, fill, sizeof chunk);
    }
    long sent = 0;
    while (sent < bytes) {
        size_t n = (size_t)(bytes - sent) < clen ? (size_t)(bytes - sent) : clen;
        if (send_bytes(chunk, n) != 0)
            break;   /* the server hung up on us: expected */
        sent += (long)n;
    }
    fprintf(stderr, "pmi_client: rank %d: flood sent %ld bytes\n", my_rank, sent);
}

static void sleep_s(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void step_ready(const char *dir)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/ready.%d", dir, my_rank);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0 || rename(tmp, path) != 0)
        die("cannot write %s", path);
}

static void step_waitfile(const char *path)
{
    for (int i = 0; i < 3000; i++) {
        if (access(path, F_OK) == 0)
            return;
        sleep_s(0.01);
    }
    fprintf(stderr, "pmi_client: rank %d: %s never appeared\n", my_rank, path);
    exit(99);
}

static void run_step(const char *step)
{
    char arg[SMAP_PMI_MAXLINE];
    const char *colon = strchr(step, ':');
    size_t nlen = colon ? (size_t)(colon - step) : strlen(step);
    subst(colon ? colon + 1 : "", arg, sizeof arg);
#define IS(name) (nlen == strlen(name) && strncmp(step, name, nlen) == 0)
    if (IS("init")) {
        step_init();
    } else if (IS("send")) {
        send_line(arg);
    } else if (IS("raw")) {
        if (send_bytes(arg, strlen(arg)) != 0)
            die("cannot send raw text: %s", strerror(errno));
    } else if (IS("ctrl")) {
        send_bytes("cmd=get_maxes\001\n", 15);
    } else if (IS("expect")) {
        expect(arg);
    } else if (IS("exchange")) {
        step_exchange();
    } else if (IS("barrier")) {
        send_line("cmd=barrier_in");
        expect("cmd=barrier_out");
    } else if (IS("finalize")) {
        send_line("cmd=finalize");
        expect("cmd=finalize_ack");
        close(fd);
    } else if (IS("close")) {
        close(fd);
    } else if (IS("abort")) {
        char *text = strchr(arg, ':');
        char line[SMAP_PMI_MAXLINE + 64];
        if (text)
            *text++ = '\0';
        snprintf(line, sizeof line, "cmd=abort exitcode=%s%s%s", arg, text ? " error_msg=" : "",
                 text ? text : "");
        send_line(line);
    } else if (IS("oversize")) {
        long n = atol(arg);
        char *line = malloc((size_t)n + 64);
        if (!line)
            die("out of memory");
        int h = sprintf(line, "cmd=put kvsname=%s key=big value=", kvs);
        memset(line + h, 'v', (size_t)n);
        line[h + n] = '\n';
        send_bytes(line, (size_t)h + (size_t)n + 1);
        free(line);
    } else if (IS("flood")) {
        step_flood(atol(arg), 'a', 0);
    } else if (IS("reqflood")) {
        step_flood(atol(arg) * 14, 0, 1);
    } else if (IS("print")) {
        printf("%s\n", arg);
        fflush(stdout);
    } else if (IS("ready")) {
        step_ready(arg);
    } else if (IS("waitfile")) {
        step_waitfile(arg);
    } else if (IS("sleep")) {
        sleep_s(atof(arg));
    } else if (IS("exit")) {
        exit(atoi(arg));
    } else {
        die("unknown step '%s'", step);
    }
#undef IS
}

int main(int argc, char **argv)
{
    const char *f = getenv("PMI_FD"), *r = getenv("PMI_RANK"), *s = getenv("PMI_SIZE");
    if (!f || !r || !s) {
        fprintf(stderr, "pmi_client: PMI_FD, PMI_RANK or PMI_SIZE is not set\n");
        return 4;
    }
    fd = atoi(f);
    my_rank = atoi(r);
    my_size = atoi(s);
    signal(SIGPIPE, SIG_IGN);   /* a server hanging up shows as EPIPE */
    for (int i = 1; i < argc; i++) {
        const char *step = argv[i];
        if (step[0] == '@') {
            char *end;
            long only = strtol(step + 1, &end, 10);
            if (*end != ':')
                die("bad step '%s'", step);
            if (only != my_rank)
                continue;
            step = end + 1;
        }
        run_step(step);
    }
    return 0;
}
