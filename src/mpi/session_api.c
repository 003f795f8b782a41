/* The session operations as the entry points ask for them (MPI 5.0
 * chapter 11): process-set queries, the session's info, groups from
 * process sets, finalizing, error handlers, and raising an error on a
 * session's own handler.  The entry points pass a live session; each
 * returns MPI_SUCCESS or a class with smap_why() saying why, which the
 * binding raises on the session (smap_session_raise). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/why.h"
#include "mpi/errhandler.h"
#include "mpi/errors.h"
#include "mpi/group.h"
#include "mpi/info.h"
#include "mpi/session.h"

int smap_session_raise(MPI_Session h, int cls, const char *func, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING / 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct MPI_ABI_Session *s = smap_session_get(h);
    if (!s)   /* no live session: the handler of errors tied to no object */
        return smap_err_raise(MPI_COMM_NULL, cls, func, "%s", msg);
    return smap_err_raise_on(s->errhandler, &h, "a session", cls, func, "%s", msg);
}

int smap_session_finalize_checked(struct MPI_ABI_Session *s, MPI_Session *session,
                                  const char *F)
{
    MPI_Errhandler eh = s->errhandler;
    smap_errhandler_retain(eh);   /* the session is gone when an error is raised */
    int rc = smap_session_finalize(s);
    *session = MPI_SESSION_NULL;
    if (rc != MPI_SUCCESS)
        rc = smap_err_raise_on(eh, session, "a session", rc, F,
                               "the closing barrier of the library failed");
    smap_errhandler_release(eh);
    return rc;
}

/* *pset_len 0: only the length (with the terminator) is returned; else at
 * most *pset_len - 1 characters and a terminator. */
int smap_session_nth_pset(int n, int *pset_len, char *pset_name)
{
    const char *name = smap_pset_name(n);
    if (!name)
        return smap_fail(MPI_ERR_ARG, "n is not the index of a process set");
    int len = (int)strlen(name) + 1;
    if (*pset_len > 0) {
        if (!pset_name)
            return smap_fail(MPI_ERR_ARG, "pset_name is NULL");
        snprintf(pset_name, (size_t)*pset_len, "%s", name);
    }
    *pset_len = len;
    return MPI_SUCCESS;
}

/* The group of process set `name` (one reference, carrying s). */
static int pset_group(struct MPI_ABI_Session *s, const char *name, struct MPI_ABI_Group **g)
{
    int nomem;
    *g = smap_pset_group(s, name, &nomem);
    if (*g)
        return MPI_SUCCESS;
    return nomem ? smap_fail(MPI_ERR_NO_MEM, "out of memory")
                 : smap_fail(MPI_ERR_ARG, "pset_name names no process set "
                                          "(mpi://WORLD, mpi://SELF)");
}

int smap_session_pset_info(struct MPI_ABI_Session *s, const char *pset_name, MPI_Info *info)
{
    struct MPI_ABI_Group *g;
    int rc = pset_group(s, pset_name, &g);
    if (rc != MPI_SUCCESS)
        return rc;
    char size[16];
    snprintf(size, sizeof size, "%d", g->size);
    smap_group_release(g);
    struct MPI_ABI_Info *in = smap_info_new();
    if (!in || smap_info_set(in, "mpi_size", size) != 0) {
        smap_info_free(in);
        return smap_fail(MPI_ERR_NO_MEM, "out of memory");
    }
    *info = smap_info_handle(in);
    return MPI_SUCCESS;
}

int smap_session_info_into(struct MPI_ABI_Session *s, MPI_Info *info_used)
{
    struct MPI_ABI_Info *in = s->info ? smap_info_dup(s->info) : smap_info_new();
    /* the level granted, which may differ from the one asked for */
    if (!in || smap_info_set(in, "thread_level", smap_thread_level_name(s->thread_level)) != 0) {
        smap_info_free(in);
        return smap_fail(MPI_ERR_NO_MEM, "out of memory");
    }
    *info_used = smap_info_handle(in);
    return MPI_SUCCESS;
}

int smap_session_pset_group_into(struct MPI_ABI_Session *s, const char *pset_name,
                                 MPI_Group *newgroup)
{
    struct MPI_ABI_Group *g;
    int rc = pset_group(s, pset_name, &g);
    if (rc == MPI_SUCCESS)
        *newgroup = smap_group_handle(g);
    return rc;
}

/* ---- error handlers ---- */

void smap_session_errhandler_of(struct MPI_ABI_Session *s, MPI_Errhandler *errhandler)
{
    smap_errhandler_give(s->errhandler);
    *errhandler = s->errhandler;
}

int smap_session_set_errhandler(struct MPI_ABI_Session *s, MPI_Errhandler errhandler)
{
    if (errhandler == MPI_ERRHANDLER_NULL || !smap_errhandler_valid(errhandler))
        return smap_fail(MPI_ERR_ARG, "errhandler is not a valid error handler");
    smap_errhandler_retain(errhandler);
    smap_errhandler_release(s->errhandler);
    s->errhandler = errhandler;
    return MPI_SUCCESS;
}

void smap_session_invoke(struct MPI_ABI_Session *s, int errorcode)
{
    MPI_Session h = s;
    smap_errhandler_call(s->errhandler, &h, "a session", errorcode);
}
