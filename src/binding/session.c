/* Sessions (MPI 4.0 chapter 11): MPI_Session_init/finalize, process sets,
 * MPI_Group_from_session_pset, session info and error handlers.  The
 * objects are in src/mpi/session.c.  Errors on a valid session go to its
 * error handler; with no valid session (MPI_ERR_SESSION), to
 * MPI_COMM_SELF's, the handler of errors tied to no object. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "binding/check.h"
#include "comm/comm_create.h"
#include "mpi/errhandler.h"
#include "mpi/group.h"
#include "mpi/info.h"
#include "mpi/session.h"
#include "binding/session_common.h"


/* An info argument: MPI_INFO_NULL gives NULL; *bad when it is no info. */
static struct MPI_ABI_Info *info_arg(MPI_Info info, int *bad)
{
    struct MPI_ABI_Info *i = info == MPI_INFO_NULL ? NULL : smap_info_get(info);
    *bad = info != MPI_INFO_NULL && !i;
    return i;
}

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    static const char F[] = "MPI_Session_init";
    if (!smap_errhandler_valid(errhandler) || errhandler == MPI_ERRHANDLER_NULL)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, F,
                              "errhandler is not a valid error handler");
    if (!session)
        return smap_err_raise_on(errhandler, NULL, "MPI_Session_init", MPI_ERR_ARG, F,
                                 "session is NULL");
    int bad;
    struct MPI_ABI_Info *in = info_arg(info, &bad);
    if (bad)
        return smap_err_raise_on(errhandler, session, "MPI_Session_init", MPI_ERR_INFO, F,
                                 "info is not a valid info object");
    struct MPI_ABI_Session *s;
    const char *why = "";
    smap_comm_layer_start();
    int rc = smap_session_init(in, errhandler, &s, &why);
    if (rc != MPI_SUCCESS)
        return smap_err_raise_on(errhandler, session, "MPI_Session_init", rc, F, "%s", why);
    *session = s;
    return MPI_SUCCESS;
}

int PMPI_Session_finalize(MPI_Session *session)
{
    static const char F[] = "MPI_Session_finalize";
    SMAP_CHECK_PTR(F, MPI_COMM_NULL, session);
    struct MPI_ABI_Session *s;
    GET_SESSION(F, *session, s);
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

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    static const char F[] = "MPI_Session_get_num_psets";
    struct MPI_ABI_Session *s;
    GET_SESSION(F, session, s);
    int bad;
    (void)info_arg(info, &bad);
    if (bad)
        return session_raise(s, MPI_ERR_INFO, F, "info is not a valid info object");
    if (!npset_names)
        return session_raise(s, MPI_ERR_ARG, F, "npset_names is NULL");
    *npset_names = smap_pset_count();
    return MPI_SUCCESS;
}

int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                              char *pset_name)
{
    static const char F[] = "MPI_Session_get_nth_pset";
    struct MPI_ABI_Session *s;
    GET_SESSION(F, session, s);
    int bad;
    (void)info_arg(info, &bad);
    if (bad)
        return session_raise(s, MPI_ERR_INFO, F, "info is not a valid info object");
    if (!pset_len)
        return session_raise(s, MPI_ERR_ARG, F, "pset_len is NULL");
    const char *name = smap_pset_name(n);
    if (!name)
        return session_raise(s, MPI_ERR_ARG, F, "n is not the index of a process set");
    /* *pset_len 0: only the length (with the terminator) is returned;
     * else at most *pset_len - 1 characters and a terminator. */
    int len = (int)strlen(name) + 1;
    if (*pset_len > 0) {
        if (!pset_name)
            return session_raise(s, MPI_ERR_ARG, F, "pset_name is NULL");
        snprintf(pset_name, (size_t)*pset_len, "%s", name);
    }
    *pset_len = len;
    return MPI_SUCCESS;
}

/* The group of process set `name` (one reference, carrying s), or the
 * error raised on s: no such set, or out of memory. */
static int pset_group(struct MPI_ABI_Session *s, const char *F, const char *name,
                      struct MPI_ABI_Group **g)
{
    int nomem;
    *g = smap_pset_group(s, name, &nomem);
    if (*g)
        return MPI_SUCCESS;
    return nomem ? session_raise(s, MPI_ERR_NO_MEM, F, "out of memory")
                 : session_raise(s, MPI_ERR_ARG, F, "pset_name names no process set "
                                               "(mpi://WORLD, mpi://SELF)");
}

int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    static const char F[] = "MPI_Session_get_pset_info";
    struct MPI_ABI_Session *s;
    GET_SESSION(F, session, s);
    if (!pset_name || !info)
        return session_raise(s, MPI_ERR_ARG, F, "pset_name or info is NULL");
    struct MPI_ABI_Group *g;
    int rc = pset_group(s, F, pset_name, &g);
    if (rc != MPI_SUCCESS)
        return rc;
    char size[16];
    snprintf(size, sizeof size, "%d", g->size);
    smap_group_release(g);
    struct MPI_ABI_Info *in = smap_info_new();
    if (!in || smap_info_set(in, "mpi_size", size) != 0) {
        smap_info_free(in);
        return session_raise(s, MPI_ERR_NO_MEM, F, "out of memory");
    }
    *info = smap_info_handle(in);
    return MPI_SUCCESS;
}

int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    static const char F[] = "MPI_Session_get_info";
    struct MPI_ABI_Session *s;
    GET_SESSION(F, session, s);
    if (!info_used)
        return session_raise(s, MPI_ERR_ARG, F, "info_used is NULL");
    struct MPI_ABI_Info *in = s->info ? smap_info_dup(s->info) : smap_info_new();
    /* the level granted, which may differ from the one asked for */
    if (!in || smap_info_set(in, "thread_level", smap_thread_level_name(s->thread_level)) != 0) {
        smap_info_free(in);
        return session_raise(s, MPI_ERR_NO_MEM, F, "out of memory");
    }
    *info_used = smap_info_handle(in);
    return MPI_SUCCESS;
}

int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup)
{
    static const char F[] = "MPI_Group_from_session_pset";
    struct MPI_ABI_Session *s;
    GET_SESSION(F, session, s);
    if (!pset_name || !newgroup)
        return session_raise(s, MPI_ERR_ARG, F, "pset_name or newgroup is NULL");
    struct MPI_ABI_Group *g;
    int rc = pset_group(s, F, pset_name, &g);
    if (rc != MPI_SUCCESS)
        return rc;
    *newgroup = smap_group_handle(g);
    return MPI_SUCCESS;
}

/* ---- error handlers ---------------------------------------------------- */

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                   MPI_Errhandler *errhandler)
{
    static const char F[] = "MPI_Session_create_errhandler";
    SMAP_CHECK_PTR(F, MPI_COMM_NULL, session_errhandler_fn);
    SMAP_CHECK_PTR(F, MPI_COMM_NULL, errhandler);
    /* stored as the comm type; smap_errhandler_call casts it back */
    MPI_Errhandler e = smap_errhandler_create(
        (MPI_Comm_errhandler_function *)(void (*)(void))session_errhandler_fn);
    if (e == MPI_ERRHANDLER_NULL)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_NO_MEM, F, "out of memory");
    *errhandler = e;
    return MPI_SUCCESS;
}

int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    static const char F[] = "MPI_Session_get_errhandler";
    struct MPI_ABI_Session *s;
    GET_SESSION(F, session, s);
    if (!errhandler)
        return session_raise(s, MPI_ERR_ARG, F, "errhandler is NULL");
    smap_errhandler_give(s->errhandler);
    *errhandler = s->errhandler;
    return MPI_SUCCESS;
}

int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    static const char F[] = "MPI_Session_set_errhandler";
    struct MPI_ABI_Session *s;
    GET_SESSION(F, session, s);
    if (errhandler == MPI_ERRHANDLER_NULL || !smap_errhandler_valid(errhandler))
        return session_raise(s, MPI_ERR_ARG, F, "errhandler is not a valid error handler");
    smap_errhandler_retain(errhandler);
    smap_errhandler_release(s->errhandler);
    s->errhandler = errhandler;
    return MPI_SUCCESS;
}

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    static const char F[] = "MPI_Session_call_errhandler";
    struct MPI_ABI_Session *s;
    GET_SESSION(F, session, s);
    MPI_Session h = handle_of(s);
    smap_errhandler_call(s->errhandler, &h, "a session", errorcode);
    return MPI_SUCCESS;
}
