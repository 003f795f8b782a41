/* The TCP link between the head smrun and its agents (one per host).
 *
 * A message is one line of words separated by single spaces; each word is
 * percent-encoded (every byte outside a small safe set becomes %XX), so a
 * word may hold anything: a program argument with spaces, an environment
 * value, a PMI value.  Both ends are non-blocking: sends are queued and
 * written when the socket is writable, so two ends writing at each other at
 * once never deadlock. */
#include "smrun.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/timer.h"

#define LINK_MAX_LINE (4 << 20)   /* a longer line is a broken peer */

void smrun_link_init(struct smrun_link *l, int fd)
{
    memset(l, 0, sizeof *l);
    l->fd = fd;
}

void smrun_link_close(struct smrun_link *l)
{
    if (l->fd >= 0)
        close(l->fd);
    free(l->in);
    free(l->out);
    memset(l, 0, sizeof *l);
    l->fd = -1;
}

static int safe_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           strchr("._/:=,+@-", c) != NULL;
}

static int reserve(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t cap2 = *cap ? *cap : 4096;
    while (cap2 < need)
        cap2 *= 2;
    char *p = realloc(*buf, cap2);
    if (!p)
        return -1;
    *buf = p;
    *cap = cap2;
    return 0;
}

static int append_word(struct smrun_link *l, const char *w)
{
    size_t len = strlen(w);
    if (reserve(&l->out, &l->out_cap, l->out_len + 3 * len + 4) != 0)
        return -1;
    static const char hex[] = "0123456789ABCDEF";
    char *p = l->out + l->out_len;
    if (len == 0) {   /* "%00" decodes to an empty word; nothing would vanish */
        memcpy(p, "%00", 3);
        p += 3;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)w[i];
        if (safe_byte(c)) {
            *p++ = (char)c;
        } else {
            *p++ = '%';
            *p++ = hex[c >> 4];
            *p++ = hex[c & 15];
        }
    }
    l->out_len = (size_t)(p - l->out);
    return 0;
}

int smrun_link_sendv(struct smrun_link *l, int nwords, const char *const *words)
{
    if (l->fd < 0)
        return -1;
    for (int i = 0; i < nwords; i++) {
        if (append_word(l, words[i] ? words[i] : "") != 0)
            return -1;
        l->out[l->out_len++] = i + 1 < nwords ? ' ' : '\n';   /* append_word left room */
    }
    return smrun_link_flush(l);
}

int smrun_link_send(struct smrun_link *l, const char *verb, ...)
{
    const char *words[16];
    int n = 0;
    words[n++] = verb;
    va_list ap;
    va_start(ap, verb);
    const char *w;
    while (n < 16 && (w = va_arg(ap, const char *)) != NULL)
        words[n++] = w;
    va_end(ap);
    return smrun_link_sendv(l, n, words);
}

int smrun_link_flush(struct smrun_link *l)
{
    while (l->fd >= 0 && l->out_off < l->out_len) {
        ssize_t w = write(l->fd, l->out + l->out_off, l->out_len - l->out_off);
        if (w > 0) {
            l->out_off += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        return -1;
    }
    l->out_off = l->out_len = 0;
    return 0;
}

int smrun_link_pending(const struct smrun_link *l)
{
    return l->fd >= 0 && l->out_off < l->out_len;
}

void smrun_link_flush_blocking(struct smrun_link *l, double seconds)
{
    double until = smap_now() + seconds;
    while (smrun_link_pending(l) && smap_now() < until) {
        struct pollfd p = { .fd = l->fd, .events = POLLOUT };
        poll(&p, 1, 100);
        if (smrun_link_flush(l) != 0)
            return;
    }
}

int smrun_link_fill(struct smrun_link *l)
{
    if (reserve(&l->in, &l->in_cap, l->in_len + 65536) != 0)
        return -1;
    ssize_t n = read(l->fd, l->in + l->in_len, l->in_cap - l->in_len);
    if (n > 0) {
        l->in_len += (size_t)n;
        return 1;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return 0;
    return -1;
}

static int unhex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Decodes one word in place; -1 for a broken escape. */
static int decode(char *w)
{
    char *o = w;
    for (char *p = w; *p; p++) {
        if (*p != '%') {
            *o++ = *p;
            continue;
        }
        int hi = unhex(p[1]), lo = hi < 0 ? -1 : unhex(p[2]);
        if (lo < 0)
            return -1;
        *o++ = (char)(hi * 16 + lo);
        p += 2;
    }
    *o = '\0';
    return 0;
}

int smrun_link_next(struct smrun_link *l, struct smrun_link_msg *m)
{
    /* The line handed out last time is consumed now. */
    if (l->in_used) {
        memmove(l->in, l->in + l->in_used, l->in_len - l->in_used);
        l->in_len -= l->in_used;
        l->in_used = 0;
    }
    char *nl = l->in_len ? memchr(l->in, '\n', l->in_len) : NULL;
    if (!nl)
        return l->in_len > LINK_MAX_LINE ? -1 : 0;
    *nl = '\0';
    l->in_used = (size_t)(nl - l->in) + 1;
    m->n = 0;
    char *save = NULL;
    for (char *w = strtok_r(l->in, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        if (m->n == SMRUN_LINK_MAX_WORDS || decode(w) != 0)
            return -1;
        m->w[m->n++] = w;
    }
    if (m->n == 0)
        return -1;
    for (int i = m->n; i < SMRUN_LINK_MAX_WORDS; i++)
        m->w[i] = "";
    return 1;
}
