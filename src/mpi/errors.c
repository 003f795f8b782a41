/* Error codes and their messages.
 *
 * Codes below SMAP_CODE_RING_BASE are error classes.  Each raised error gets
 * its own code from a ring of slots holding the class and the full message
 * ("MPI_File_open: not implemented ..."), so MPI_Error_string on a returned
 * code tells the user which function failed and why.  A ring slot is reused
 * after SMAP_CODE_RING_SIZE later errors; its class stays correct until then. */
#include "mpi/errors.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "mpi/comm.h"
#include "mpi/errhandler.h"
#include "smap_config.h"

#define SMAP_CODE_RING_BASE 2048
#define SMAP_CODE_RING_SIZE 256

struct class_desc {
    int value;
    const char *name, *text;
};

static const struct class_desc classes[] = {
#define SMAP_ERROR_CLASS(name, text) { name, #name, text },
#include "mpi/error_classes.def"
#undef SMAP_ERROR_CLASS
};

static struct {
    int cls;
    char text[MPI_MAX_ERROR_STRING];
} ring[SMAP_CODE_RING_SIZE];
static unsigned ring_next;
static pthread_mutex_t ring_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct class_desc *find_class(int value)
{
    for (size_t i = 0; i < SMAP_ARRAY_SIZE(classes); i++)
        if (classes[i].value == value)
            return &classes[i];
    return NULL;
}

static int ring_slot(int code)
{
    if (code < SMAP_CODE_RING_BASE || code >= SMAP_CODE_RING_BASE + SMAP_CODE_RING_SIZE)
        return -1;
    return code - SMAP_CODE_RING_BASE;
}

int smap_error_class(int code, int *cls)
{
    int slot = ring_slot(code);
    if (slot >= 0) {
        pthread_mutex_lock(&ring_lock);
        *cls = ring[slot].cls;
        pthread_mutex_unlock(&ring_lock);
        return MPI_SUCCESS;
    }
    if (!find_class(code))
        return MPI_ERR_ARG;
    *cls = code;
    return MPI_SUCCESS;
}

int smap_error_string(int code, char *text, int *len)
{
    int slot = ring_slot(code);
    const struct class_desc *c = slot >= 0 ? NULL : find_class(code);
    if (slot < 0 && !c)
        return MPI_ERR_ARG;
    if (slot >= 0) {
        pthread_mutex_lock(&ring_lock);
        snprintf(text, MPI_MAX_ERROR_STRING, "%s", ring[slot].text);
        pthread_mutex_unlock(&ring_lock);
    } else {
        snprintf(text, MPI_MAX_ERROR_STRING, "%s: %s", c->name, c->text);
    }
    *len = (int)strlen(text);
    return MPI_SUCCESS;
}

/* Stores a message and returns the new code that names it. */
static int new_code(int cls, const char *func, const char *fmt, va_list ap)
{
    const struct class_desc *c = find_class(cls);
    char detail[MPI_MAX_ERROR_STRING / 2];
    vsnprintf(detail, sizeof detail, fmt, ap);
    pthread_mutex_lock(&ring_lock);
    unsigned slot = ring_next++ % SMAP_CODE_RING_SIZE;
    ring[slot].cls = cls;
    /* Truncation is acceptable: the text is bounded by MPI_MAX_ERROR_STRING. */
    int n = snprintf(ring[slot].text, sizeof ring[slot].text, "%s: %s (%s: %s)", func, detail,
                     c ? c->name : "MPI_ERR_UNKNOWN", c ? c->text : "unknown error class");
    (void)n;
    pthread_mutex_unlock(&ring_lock);
    return SMAP_CODE_RING_BASE + (int)slot;
}

int smap_err_raise(MPI_Comm comm, int cls, const char *func, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int code = new_code(cls, func, fmt, ap);
    va_end(ap);
    if (!smap_comm_get(comm))
        comm = MPI_COMM_SELF;   /* MPI-4: errors tied to no valid communicator */
    smap_errhandler_invoke(comm, code);
    return code;
}

int smap_err_unsupported(MPI_Comm comm, const char *func)
{
    return smap_err_raise(comm, MPI_ERR_UNSUPPORTED_OPERATION, func,
                          "not implemented in smartmap %s yet (see docs/STATUS.md)",
                          SMAP_VERSION_STRING);
}

int smap_err_tool_unsupported(const char *func)
{
    smap_info("%s: the MPI tool interface is not implemented in smartmap %s yet",
              func, SMAP_VERSION_STRING);
    return MPI_T_ERR_NOT_SUPPORTED;
}
