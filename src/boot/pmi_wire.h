/* The PMI-1 wire protocol: newline-terminated lines of space-separated
 * key=value pairs ("cmd=put kvsname=k key=a value=b\n").  Shared by the
 * library's client (boot/pmi.c) and smrun's server, so both agree on limits
 * and on what is malformed. */
#ifndef SMAP_BOOT_PMI_WIRE_H
#define SMAP_BOOT_PMI_WIRE_H

#include <stddef.h>
#include <sys/types.h>

#include "base/compiler.h"

/* Limits announced by get_maxes; a line longer than SMAP_PMI_MAXLINE is a
 * protocol error. */
#define SMAP_PMI_KVSNAME_MAX 256
#define SMAP_PMI_KEYLEN_MAX  256
#define SMAP_PMI_VALLEN_MAX  1024
#define SMAP_PMI_MAXLINE     2048
#define SMAP_PMI_MAXPAIRS    16

struct smap_pmi_msg {
    int npairs;
    const char *key[SMAP_PMI_MAXPAIRS];
    const char *val[SMAP_PMI_MAXPAIRS];
    char text[SMAP_PMI_MAXLINE + 1];   /* the line, split in place */
};

/* Parses one line (without or with its '\n').  Returns 0, or -1 with a
 * reason in *why for: too long, a token without '=', an empty key, too many
 * pairs, a control character, or no leading "cmd=". */
int smap_pmi_parse(const char *line, size_t len, struct smap_pmi_msg *m, const char **why);

/* Value of key in m, or NULL. */
const char *smap_pmi_get(const struct smap_pmi_msg *m, const char *key);

/* Accumulates bytes from a stream and hands out complete lines. */
struct smap_pmi_reader {
    size_t len;
    char buf[SMAP_PMI_MAXLINE + 2];   /* a longest line, its '\n', a NUL */
};

/* Reads what fd has (one read()).  Returns >0 bytes read, 0 on EOF, -1 on
 * error (errno set; EAGAIN when nothing is there yet). */
ssize_t smap_pmi_reader_fill(struct smap_pmi_reader *r, int fd);

/* Takes the next complete line out of the buffer into *m.  Returns 1 when a
 * line was parsed, 0 when no complete line is buffered yet, -1 when the line
 * is malformed or longer than the limit (the reader is then unusable: the
 * peer is violating the protocol). */
int smap_pmi_reader_next(struct smap_pmi_reader *r, struct smap_pmi_msg *m, const char **why);

/* 1 if the next buffered line is complete and starts with "cmd=<cmd>". */
int smap_pmi_reader_peek_cmd(const struct smap_pmi_reader *r, const char *cmd);

/* Takes the next complete line out verbatim (without its '\n', truncated to
 * cap - 1), for commands whose last value is free text with spaces
 * (abort's error_msg).  Returns 1 if a line was taken, 0 if none is complete. */
int smap_pmi_reader_take_line(struct smap_pmi_reader *r, char *line, size_t cap);

/* Writes one formatted line (the format must end in '\n'), retrying short
 * writes and EINTR.  Returns 0 or -1. */
int smap_pmi_writef(int fd, const char *fmt, ...) SMAP_PRINTF_LIKE(2, 3);

/* A token is a valid key or value: non-empty, printable, no space or '='
 * (values may contain '='), and within the length limit. */
int smap_pmi_valid_key(const char *s);
int smap_pmi_valid_value(const char *s);

#endif
