/* Error codes and their messages.
 *
 * The integer space of error codes and classes:
 *
 *   0 .. 62, 1001 .. 1018   the predefined classes of mpi.h (MPI_SUCCESS ...
 *                           MPI_ERR_ABI, MPI_T_ERR_*): error_classes.def
 *   2048 .. 2303            per-error codes (a ring, below)
 *   16383                   MPI_ERR_LASTCODE: no error has this value
 *   16384 ..                user-defined classes and codes (MPI_Add_error_class,
 *                           MPI_Add_error_code): the lowest value free, so the
 *                           same calls give the same values on every process;
 *                           values removed with MPI_Remove_error_class/code are
 *                           recycled (a program may add and remove in a loop)
 *
 * User-defined values lie above MPI_ERR_LASTCODE because the standard wants
 * it so: the MPI_LASTUSEDCODE attribute is "always greater than or equal to
 * MPI_ERR_LASTCODE" and is the largest class or code in use, and
 * MPI_Add_error_string must reject values <= MPI_ERR_LASTCODE (predefined).
 * MPI_LASTUSEDCODE is MPI_ERR_LASTCODE until a user value exists, then the
 * largest live one (removals with MPI_Remove_error_class/code lower it).
 *
 * Each raised error gets its own code from a ring of slots holding the
 * class and the full message ("MPI_File_open: not implemented ..."), so
 * MPI_Error_string on a returned code tells the user which function failed
 * and why.  A ring slot is reused after SMAP_CODE_RING_SIZE later errors;
 * its class stays correct until then. */
#include "mpi/errors.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "mpi/comm.h"
#include "mpi/errhandler.h"
#include "smap_config.h"

#define SMAP_CODE_RING_BASE 2048
#define SMAP_CODE_RING_SIZE 256
#define SMAP_USER_BASE (MPI_ERR_LASTCODE + 1)
#define SMAP_USER_MAX (1 << 20)   /* user classes + codes ever created */

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

/* User-defined classes and codes, indexed by value - SMAP_USER_BASE; under
 * ring_lock. */
struct user_err {
    int live;
    int cls;       /* its own value for a class */
    int ncodes;    /* for a class: live codes of it */
    char *text;    /* MPI_Add_error_string's, or NULL */
};
static struct user_err *user;
static int user_len, user_cap;
static int user_dead;   /* entries below user_len free for reuse */
static int lastused = MPI_ERR_LASTCODE;

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

/* Under ring_lock: the live user class or code `value`, or NULL. */
static struct user_err *user_entry(int value)
{
    long i = (long)value - SMAP_USER_BASE;
    return i >= 0 && i < user_len && user[i].live ? &user[i] : NULL;
}

static int is_user_class(const struct user_err *u, int value)
{
    return u && u->cls == value;
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
    if (code >= SMAP_USER_BASE) {
        pthread_mutex_lock(&ring_lock);
        struct user_err *u = user_entry(code);
        if (u)
            *cls = u->cls;
        pthread_mutex_unlock(&ring_lock);
        return u ? MPI_SUCCESS : MPI_ERR_ARG;
    }
    if (!find_class(code))
        return MPI_ERR_ARG;
    *cls = code;
    return MPI_SUCCESS;
}

int smap_error_string(int code, char *text, int *len)
{
    if (code >= SMAP_USER_BASE) {
        /* MPI-5.0 9.5: "" when no string was added. */
        pthread_mutex_lock(&ring_lock);
        struct user_err *u = user_entry(code);
        if (u)
            snprintf(text, MPI_MAX_ERROR_STRING, "%s", u->text ? u->text : "");
        pthread_mutex_unlock(&ring_lock);
        if (!u)
            return MPI_ERR_ARG;
        *len = (int)strlen(text);
        return MPI_SUCCESS;
    }
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
    char detail[MPI_MAX_ERROR_STRING / 2];
    vsnprintf(detail, sizeof detail, fmt, ap);
    /* An error whose class is MPI_SUCCESS would read as success to a
     * program that checks the class, and abort a job with exit code 0
     * (DESIGN.md D18): a caller that asks for one has a bug, said so. */
    if (SMAP_UNLIKELY(cls == MPI_SUCCESS)) {
        cls = MPI_ERR_INTERN;
        size_t len = strlen(detail);
        snprintf(detail + len, sizeof detail - len, " [internal: raised with class MPI_SUCCESS]");
    }
    const struct class_desc *c = find_class(cls);
    pthread_mutex_lock(&ring_lock);
    unsigned slot = ring_next++ % SMAP_CODE_RING_SIZE;
    ring[slot].cls = cls;
    struct user_err *u = c ? NULL : user_entry(cls);
    /* Truncation is acceptable: the text is bounded by MPI_MAX_ERROR_STRING. */
    int n;
    if (u)
        n = snprintf(ring[slot].text, sizeof ring[slot].text, "%s: %s (user error class %d%s%s)",
                     func, detail, cls, u->text ? ": " : "", u->text ? u->text : "");
    else
        n = snprintf(ring[slot].text, sizeof ring[slot].text, "%s: %s (%s: %s)", func, detail,
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

int smap_err_raise_on(MPI_Errhandler h, void *obj, const char *what, int cls, const char *func,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int code = new_code(cls, func, fmt, ap);
    va_end(ap);
    smap_errhandler_call(h, obj, what, code);
    return code;
}

int smap_err_code(int cls, const char *func, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int code = new_code(cls, func, fmt, ap);
    va_end(ap);
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

/* ---- user-defined classes and codes ---- */

/* Under ring_lock. */
static void update_lastused(void)
{
    int i = user_len - 1;
    while (i >= 0 && !user[i].live)
        i--;
    lastused = i >= 0 ? SMAP_USER_BASE + i : MPI_ERR_LASTCODE;
}

/* Under ring_lock: a new live entry of class cls (-1: the entry is a
 * class), or -1 with *why. */
static int user_new(int cls, const char **why)
{
    if (user_dead > 0) {
        int i = 0;
        while (user[i].live)
            i++;
        user_dead--;
        int value = SMAP_USER_BASE + i;
        user[i] = (struct user_err){ 1, cls < 0 ? value : cls, 0, NULL };
        update_lastused();
        return value;
    }
    if (user_len == SMAP_USER_MAX) {
        *why = "too many user-defined error classes and codes";
        return -1;
    }
    if (user_len == user_cap) {
        int cap = user_cap ? 2 * user_cap : 32;
        struct user_err *t = realloc(user, (size_t)cap * sizeof *t);
        if (!t) {
            *why = "out of memory";
            return -1;
        }
        user = t;
        user_cap = cap;
    }
    int value = SMAP_USER_BASE + user_len;
    user[user_len++] = (struct user_err){ 1, cls < 0 ? value : cls, 0, NULL };
    update_lastused();
    return value;
}

int smap_err_add_class(int *cls, const char **why)
{
    pthread_mutex_lock(&ring_lock);
    int v = user_new(-1, why);
    pthread_mutex_unlock(&ring_lock);
    if (v < 0)
        return MPI_ERR_OTHER;
    *cls = v;
    return MPI_SUCCESS;
}

int smap_err_add_code(int cls, int *code, const char **why)
{
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&ring_lock);
    struct user_err *u = user_entry(cls);
    if (find_class(cls) || is_user_class(u, cls)) {
        int v = user_new(cls, why);
        if (v < 0) {
            rc = MPI_ERR_OTHER;
        } else {
            *code = v;
            if (cls >= SMAP_USER_BASE)
                user_entry(cls)->ncodes++;   /* user may have moved */
        }
    } else {
        *why = "errorclass is not an error class";
        rc = MPI_ERR_ARG;
    }
    pthread_mutex_unlock(&ring_lock);
    return rc;
}

int smap_err_add_string(int code, const char *text, const char **why)
{
    if (strnlen(text, MPI_MAX_ERROR_STRING) >= MPI_MAX_ERROR_STRING) {
        *why = "the string is longer than MPI_MAX_ERROR_STRING-1 characters";
        return MPI_ERR_ARG;
    }
    char *copy = strdup(text);
    if (!copy) {
        *why = "out of memory";
        return MPI_ERR_NO_MEM;
    }
    pthread_mutex_lock(&ring_lock);
    struct user_err *u = user_entry(code);
    if (u) {
        free(u->text);
        u->text = copy;
    }
    pthread_mutex_unlock(&ring_lock);
    if (!u) {
        free(copy);
        *why = code <= MPI_ERR_LASTCODE
                   ? "errorcode is predefined (<= MPI_ERR_LASTCODE): its string cannot change"
                   : "errorcode is not a user-defined error class or code";
        return MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}

static int remove_entry(int value, int want_class, const char **why)
{
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&ring_lock);
    struct user_err *u = user_entry(value);
    if (!u || is_user_class(u, value) != want_class) {
        *why = want_class ? "errorclass is not a user-defined error class"
                          : "errorcode is not a user-defined error code";
        rc = MPI_ERR_ARG;
    } else if (want_class && u->ncodes > 0) {
        *why = "the error class still has error codes (remove them first)";
        rc = MPI_ERR_ARG;
    } else {
        if (!want_class && u->cls >= SMAP_USER_BASE)
            user_entry(u->cls)->ncodes--;
        free(u->text);
        *u = (struct user_err){ 0, 0, 0, NULL };
        user_dead++;
        update_lastused();
    }
    pthread_mutex_unlock(&ring_lock);
    return rc;
}

int smap_err_remove_class(int cls, const char **why)
{
    return remove_entry(cls, 1, why);
}

int smap_err_remove_code(int code, const char **why)
{
    return remove_entry(code, 0, why);
}

int smap_err_remove_string(int code, const char **why)
{
    pthread_mutex_lock(&ring_lock);
    struct user_err *u = user_entry(code);
    if (u) {
        free(u->text);
        u->text = NULL;
    }
    pthread_mutex_unlock(&ring_lock);
    if (!u) {
        *why = "errorcode is not a user-defined error class or code";
        return MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}

int *smap_err_lastusedcode(void)
{
    return &lastused;
}
