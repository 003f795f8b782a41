#include "base/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char log_name[64] = "smartmap";
static int log_level = SMAP_LOG_WARN;

void smap_log_set_name(const char *name)
{
    snprintf(log_name, sizeof log_name, "%s", name);
}

const char *smap_log_name(void) { return log_name; }
void smap_log_set_level(int level) { log_level = level; }
int smap_log_level(void) { return log_level; }

void smap_vlog(int level, const char *fmt, va_list ap)
{
    if (level > log_level)
        return;
    /* One write() per message so lines of different ranks do not interleave. */
    char buf[2048];
    int n = snprintf(buf, sizeof buf, "smartmap[%s]: ", log_name);
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof buf - 2)
        len = sizeof buf - 2;
    if (len == 0 || buf[len - 1] != '\n')
        buf[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, buf, len);
    (void)w;
}

void smap_log(int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    smap_vlog(level, fmt, ap);
    va_end(ap);
}

void smap_vfatal(const char *fmt, va_list ap)
{
    smap_vlog(SMAP_LOG_ERROR, fmt, ap);
    exit(1);
}

void smap_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    smap_vfatal(fmt, ap);
}
