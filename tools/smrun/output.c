/* Standard I/O of the ranks.  Each rank's stdout and stderr arrive on pipes
 * and leave on smrun's stdout and stderr whole lines at a time, so a line of
 * one rank is never cut by a line of another.  With -l every line gets its
 * "[rank] " tag; without it a partial line is let through after a short
 * silence (prompts).  smrun's stdin goes to rank 0 through a pipe whose EOF
 * follows smrun's.
 *
 * smrun's own stdin/stdout/stderr are shared with the shell, so they keep
 * their blocking mode; only our pipe ends are non-blocking. */
#include "smrun.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/timer.h"

#define STREAM_MIN_CAP  16384
#define STREAM_MAX_LINE (1 << 20)   /* a longer line is forwarded in pieces */

enum forward_mode { FWD_LINES, FWD_PARTIAL, FWD_FINAL };

static int dest_broken[3];

/* ---- writing to smrun's stdout/stderr ---------------------------------- */

static void write_out(struct smrun_job *job, int fd, const char *p, size_t n)
{
    while (n > 0 && !dest_broken[fd]) {
        ssize_t w = write(fd, p, n);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR) {
            if (smrun_signals_terminating())
                return;   /* the user wants out; a stuck reader must not stop that */
            continue;
        }
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (smrun_signals_terminating())
                return;
            /* Someone made our stdout non-blocking; wait for room. */
            struct pollfd pfd = { .fd = fd, .events = POLLOUT };
            poll(&pfd, 1, 100);
            continue;
        }
        /* EPIPE: nobody reads our output any more.  For stdout, behave like
         * a program killed by SIGPIPE in a pipeline: stop the job. */
        dest_broken[fd] = 1;
        if (fd == STDOUT_FILENO && w < 0 && errno == EPIPE)
            smrun_job_stop_with(job, 128 + SIGPIPE);
    }
}

/* Batches the tags and lines of one forward into few write()s. */
struct emitter {
    struct smrun_job *job;
    int fd;
    size_t len;
    char buf[65536];
};

static void emit_flush(struct emitter *e)
{
    write_out(e->job, e->fd, e->buf, e->len);
    e->len = 0;
}

static void emit(struct emitter *e, const char *p, size_t n)
{
    if (e->len + n > sizeof e->buf)
        emit_flush(e);
    if (n > sizeof e->buf) {
        write_out(e->job, e->fd, p, n);
        return;
    }
    memcpy(e->buf + e->len, p, n);
    e->len += n;
}

/* ---- rank output ------------------------------------------------------- */

void smrun_stream_init(struct smrun_stream *s, int fd, int dest, int rank)
{
    memset(s, 0, sizeof *s);
    s->fd = fd;
    s->file_fd = -1;
    s->dest = dest;
    s->rank = rank;
}

/* "[2026-12-02 04:30:01.123] [3] ": the time when forwarded, the rank. */
static size_t make_tag(int what, int rank, char *tag, size_t cap)
{
    size_t n = 0;
    if (what & SMRUN_TAG_TIME) {
        struct timespec ts;
        struct tm tm;
        clock_gettime(CLOCK_REALTIME, &ts);
        localtime_r(&ts.tv_sec, &tm);
        n = strftime(tag, cap, "[%Y-%m-%d %H:%M:%S", &tm);
        n += (size_t)snprintf(tag + n, cap - n, ".%03ld] ", ts.tv_nsec / 1000000);
    }
    if (what & SMRUN_TAG_RANK)
        n += (size_t)snprintf(tag + n, cap - n, "[%d] ", rank);
    return n;
}

/* A rank's output file gets what the rank wrote, untagged, in whole lines
 * (O_APPEND: ranks sharing the file never cut each other's lines). */
static void to_file(struct smrun_stream *s, const char *p, size_t n)
{
    while (n > 0 && s->file_fd >= 0) {
        ssize_t w = write(s->file_fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            smrun_msg("warning: rank %d's output file: %s; its output is lost from here on",
                      s->rank, w < 0 ? strerror(errno) : "nothing written");
            close(s->file_fd);
            s->file_fd = -1;
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

static void forward(struct smrun_job *job, struct smrun_stream *s, enum forward_mode mode)
{
    static struct emitter e;
    e.job = job;
    e.fd = s->dest;
    e.len = 0;
    int term = s->file_fd < 0 || s->copy;   /* to smrun's stdout/stderr too */
    char tag[64];
    size_t taglen = job->opt->tag_output ? make_tag(job->opt->tag_output, s->rank, tag, sizeof tag) : 0;
    if (!term)
        taglen = 0;
    size_t start = 0;
    char *nl;
    while ((nl = memchr(s->buf + start, '\n', s->len - start)) != NULL) {
        size_t end = (size_t)(nl - s->buf) + 1;
        if (taglen && !s->mid_line)
            emit(&e, tag, taglen);
        if (term)
            emit(&e, s->buf + start, end - start);
        s->mid_line = 0;
        start = end;
    }
    size_t rest = s->len - start;
    if (rest && mode != FWD_LINES) {
        if (taglen && !s->mid_line)
            emit(&e, tag, taglen);
        if (term)
            emit(&e, s->buf + start, rest);
        s->mid_line = 1;
        if (mode == FWD_FINAL && taglen) {
            emit(&e, "\n", 1);   /* a tagged stream always ends its line */
            s->mid_line = 0;
        }
        start = s->len;
        rest = 0;
    }
    to_file(s, s->buf, start);
    emit_flush(&e);
    memmove(s->buf, s->buf + start, rest);
    s->len = rest;
    if (!rest)
        s->partial_since = 0;
    else if (!s->partial_since)
        s->partial_since = smap_now();
}

static int ensure_room(struct smrun_stream *s)
{
    if (s->len < s->cap)
        return 0;
    size_t cap = s->cap ? s->cap * 2 : STREAM_MIN_CAP;
    if (cap > STREAM_MAX_LINE)
        cap = STREAM_MAX_LINE;
    if (cap <= s->len)
        return -1;
    char *buf = realloc(s->buf, cap);
    if (!buf)
        return -1;
    s->buf = buf;
    s->cap = cap;
    return 0;
}

/* Returns 1 while more may be readable right now. */
static int stream_read_once(struct smrun_job *job, struct smrun_stream *s)
{
    if (ensure_room(s) != 0)
        forward(job, s, FWD_PARTIAL);   /* a line longer than we hold */
    if (ensure_room(s) != 0) {
        smrun_stream_close(job, s);
        return 0;
    }
    ssize_t n = read(s->fd, s->buf + s->len, s->cap - s->len);
    if (n > 0) {
        s->len += (size_t)n;
        forward(job, s, FWD_LINES);
        return 1;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return 0;
    smrun_stream_close(job, s);
    return 0;
}

void smrun_stream_readable(struct smrun_job *job, struct smrun_stream *s)
{
    if (s->fd >= 0)
        stream_read_once(job, s);
}

void smrun_stream_drain(struct smrun_job *job, struct smrun_stream *s)
{
    for (int i = 0; i < 256 && s->fd >= 0 && stream_read_once(job, s); i++)
        ;
}

double smrun_stream_tick(struct smrun_job *job, struct smrun_stream *s, double now)
{
    if (job->opt->tag_output || !s->partial_since)
        return 0;
    if (now >= s->partial_since + SMRUN_PARTIAL_FLUSH_S) {
        forward(job, s, FWD_PARTIAL);
        return 0;
    }
    return s->partial_since + SMRUN_PARTIAL_FLUSH_S;
}

void smrun_stream_close(struct smrun_job *job, struct smrun_stream *s)
{
    if (s->buf)
        forward(job, s, FWD_FINAL);
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    if (s->file_fd >= 0)
        close(s->file_fd);
    s->file_fd = -1;
    free(s->buf);
    s->buf = NULL;
    s->len = s->cap = 0;
    s->partial_since = 0;
}

/* ---- stdin to rank 0 ----------------------------------------------------- */

void smrun_stdin_close(struct smrun_job *job)
{
    struct smrun_stdin *in = &job->in;
    if (in->dst >= 0)
        close(in->dst);
    in->dst = -1;
    in->src = -1;
    in->off = in->len = 0;
}

void smrun_stdin_writable(struct smrun_job *job)
{
    struct smrun_stdin *in = &job->in;
    if (in->dst < 0)
        return;
    if (in->off < in->len) {
        ssize_t w = write(in->dst, in->buf + in->off, in->len - in->off);
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            smrun_stdin_close(job);   /* rank 0 closed its stdin or exited */
            return;
        }
        if (w > 0)
            in->off += (size_t)w;
    }
    if (in->off == in->len) {
        in->off = in->len = 0;
        if (in->src < 0)
            smrun_stdin_close(job);   /* our EOF becomes rank 0's EOF */
    }
}

void smrun_stdin_readable(struct smrun_job *job)
{
    struct smrun_stdin *in = &job->in;
    if (in->src < 0 || in->dst < 0 || in->len > 0)
        return;
    ssize_t n = read(in->src, in->buf, sizeof in->buf);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0)
        in->src = -1;
    else
        in->len = (size_t)n;
    smrun_stdin_writable(job);
}
