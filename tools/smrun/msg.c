/* smrun's own messages.  They are for the user, not diagnostics of the
 * library, so they carry the plain "smrun: " prefix of a command-line tool
 * (base/log.h's "smartmap[...]" prefix is kept for -v tracing). */
#include "smrun.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void smrun_msg(const char *fmt, ...)
{
    /* One write() so the line never mixes with forwarded rank output. */
    char buf[4096];
    int n = snprintf(buf, sizeof buf, "smrun: ");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof buf - 2)
        len = sizeof buf - 2;
    if (buf[len - 1] != '\n')
        buf[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, buf, len);
    (void)w;
}

const char *smrun_signame(int sig, char *buf, size_t len)
{
    const char *abbrev = sigabbrev_np(sig);   /* "SEGV"; glibc >= 2.32 */
    if (abbrev)
        snprintf(buf, len, "SIG%s", abbrev);
    else
        snprintf(buf, len, "signal %d", sig);
    return buf;
}
