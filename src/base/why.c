/* The thread's last failure reason (why.h). */
#include "base/why.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local const char *last = "";
static _Thread_local char formatted[256];

const char *smap_why(void)
{
    return last;
}

int smap_fail(int cls, const char *why)
{
    last = why ? why : "";
    return cls;
}

int smap_failf(int cls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(formatted, sizeof formatted, fmt, ap);
    va_end(ap);
    last = formatted;
    return cls;
}
