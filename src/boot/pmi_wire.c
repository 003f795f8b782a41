#include "boot/pmi_wire.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int smap_pmi_parse(const char *line, size_t len, struct smap_pmi_msg *m, const char **why)
{
    static const char *dummy;
    if (!why)
        why = &dummy;
    if (len > 0 && line[len - 1] == '\n')
        len--;
    if (len > SMAP_PMI_MAXLINE) {
        *why = "line too long";
        return -1;
    }
    memcpy(m->text, line, len);
    m->text[len] = '\0';
    m->npairs = 0;
    char *p = m->text;
    for (;;) {
        while (*p == ' ')
            p++;
        if (*p == '\0')
            break;
        char *tok = p;
        while (*p && *p != ' ') {
            if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f) {
                *why = "control character in line";
                return -1;
            }
            p++;
        }
        if (*p)
            *p++ = '\0';
        char *eq = strchr(tok, '=');
        if (!eq) {
            *why = "token without '='";
            return -1;
        }
        if (eq == tok) {
            *why = "empty key";
            return -1;
        }
        if (m->npairs == SMAP_PMI_MAXPAIRS) {
            *why = "too many key=value pairs";
            return -1;
        }
        *eq = '\0';
        m->key[m->npairs] = tok;
        m->val[m->npairs] = eq + 1;
        m->npairs++;
    }
    if (m->npairs == 0 || strcmp(m->key[0], "cmd") != 0) {
        *why = "line does not start with cmd=";
        return -1;
    }
    return 0;
}

const char *smap_pmi_get(const struct smap_pmi_msg *m, const char *key)
{
    for (int i = 0; i < m->npairs; i++)
        if (strcmp(m->key[i], key) == 0)
            return m->val[i];
    return NULL;
}

ssize_t smap_pmi_reader_fill(struct smap_pmi_reader *r, int fd)
{
    size_t room = sizeof r->buf - 1 - r->len;
    if (room == 0) {
        errno = EMSGSIZE;
        return -1;
    }
    ssize_t n;
    do
        n = read(fd, r->buf + r->len, room);
    while (n < 0 && errno == EINTR);
    if (n > 0)
        r->len += (size_t)n;
    return n;
}

int smap_pmi_reader_peek_cmd(const struct smap_pmi_reader *r, const char *cmd)
{
    size_t n = strlen(cmd);
    const char *nl = memchr(r->buf, '\n', r->len);
    if (!nl || (size_t)(nl - r->buf) < 4 + n)
        return 0;
    return memcmp(r->buf, "cmd=", 4) == 0 && memcmp(r->buf + 4, cmd, n) == 0 &&
           (r->buf[4 + n] == ' ' || r->buf[4 + n] == '\n');
}

/* Removes the first `used` bytes of the buffer. */
static void reader_consume(struct smap_pmi_reader *r, size_t used)
{
    memmove(r->buf, r->buf + used, r->len - used);
    r->len -= used;
}

int smap_pmi_reader_take_line(struct smap_pmi_reader *r, char *line, size_t cap)
{
    char *nl = memchr(r->buf, '\n', r->len);
    if (!nl || cap == 0)
        return 0;
    size_t len = (size_t)(nl - r->buf);
    size_t copy = len < cap ? len : cap - 1;
    memcpy(line, r->buf, copy);
    line[copy] = '\0';
    reader_consume(r, len + 1);
    return 1;
}

int smap_pmi_reader_next(struct smap_pmi_reader *r, struct smap_pmi_msg *m, const char **why)
{
    char *nl = memchr(r->buf, '\n', r->len);
    if (!nl) {
        if (r->len > SMAP_PMI_MAXLINE) {
            if (why)
                *why = "line too long";
            return -1;
        }
        return 0;
    }
    size_t linelen = (size_t)(nl - r->buf) + 1;
    int rc = smap_pmi_parse(r->buf, linelen, m, why);
    reader_consume(r, linelen);
    return rc == 0 ? 1 : -1;
}

int smap_pmi_writef(int fd, const char *fmt, ...)
{
    char line[SMAP_PMI_MAXLINE + 2];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line) {
        errno = EMSGSIZE;
        return -1;
    }
    for (size_t off = 0; off < (size_t)n;) {
        ssize_t w = write(fd, line + off, (size_t)n - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        off += (size_t)w;
    }
    return 0;
}

static int valid_token(const char *s, size_t max, int allow_eq)
{
    size_t n = 0;
    for (; s[n]; n++) {
        unsigned char c = (unsigned char)s[n];
        if (c <= 0x20 || c == 0x7f || (!allow_eq && c == '='))
            return 0;
    }
    return n > 0 && n < max;
}

int smap_pmi_valid_key(const char *s) { return valid_token(s, SMAP_PMI_KEYLEN_MAX, 0); }
int smap_pmi_valid_value(const char *s) { return valid_token(s, SMAP_PMI_VALLEN_MAX, 1); }
