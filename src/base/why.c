/* The thread's last failure reason (why.h). */
#include "base/why.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
    /* through a copy: an argument may be smap_why() itself (a layer adding
     * its context to the reason of the layer below) */
    char text[sizeof formatted];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    memcpy(formatted, text, sizeof text);
    last = formatted;
    return cls;
}
