/* What a window carries besides its memory (MPI 5.0 §12.2.6-7, §7.8,
 * §9.3): attributes (the five predefined ones are read-only and answered
 * here; the rest are mpi/attr.c's), info hints, the name, the group, the
 * error handler.  The entry points pass a valid window. */
#include <string.h>

#include "mpi/attr.h"
#include "mpi/errhandler.h"
#include "mpi/errors.h"
#include "mpi/group.h"
#include "mpi/info.h"
#include "rma/rma.h"

/* ---- attributes: these raise their own errors (mpi/attr.c does) ---- */

static int predefined_key(int k)
{
    return k >= MPI_WIN_BASE && k <= MPI_WIN_MODEL;
}

int smap_win_get_attr(struct MPI_ABI_Win *w, int keyval, void *attribute_val, int *flag,
                      const char *F)
{
    void *v = NULL;
    switch (keyval) {
    case MPI_WIN_BASE: v = w->base; break;
    case MPI_WIN_SIZE: v = &w->attr_size; break;
    case MPI_WIN_DISP_UNIT: v = &w->attr_disp_unit; break;
    case MPI_WIN_CREATE_FLAVOR: v = &w->attr_flavor; break;
    case MPI_WIN_MODEL: v = &w->attr_model; break;
    default:
        return smap_attr_get(SMAP_OBJ_WIN, w, &w->attrs, keyval, (void **)attribute_val, flag,
                             MPI_COMM_NULL, F);
    }
    *(void **)attribute_val = v;
    *flag = 1;
    return MPI_SUCCESS;
}

int smap_win_set_attr(struct MPI_ABI_Win *w, int keyval, void *attribute_val, const char *F)
{
    if (predefined_key(keyval))
        return smap_win_raise(w, MPI_ERR_KEYVAL, F,
                              "the predefined window attributes are read-only");
    return smap_attr_set(SMAP_OBJ_WIN, w, &w->attrs, keyval, attribute_val, MPI_COMM_NULL, F);
}

int smap_win_delete_attr(struct MPI_ABI_Win *w, int keyval, const char *F)
{
    if (predefined_key(keyval))
        return smap_win_raise(w, MPI_ERR_KEYVAL, F,
                              "the predefined window attributes are read-only");
    return smap_attr_delete(SMAP_OBJ_WIN, w, &w->attrs, keyval, MPI_COMM_NULL, F);
}

/* ---- info, name, group ---- */

int smap_win_get_info_into(struct MPI_ABI_Win *w, MPI_Info *info_used)
{
    struct MPI_ABI_Info *in = smap_win_get_hints(w);
    if (!in)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory");
    *info_used = smap_info_handle(in);
    return MPI_SUCCESS;
}

void smap_win_set_name(struct MPI_ABI_Win *w, const char *name)
{
    size_t n = strlen(name);
    if (n >= MPI_MAX_OBJECT_NAME)
        n = MPI_MAX_OBJECT_NAME - 1;   /* MPI 5.0 §7.8: truncated */
    memcpy(w->name, name, n);
    w->name[n] = '\0';
}

/* MPI 4.1: the null handle has a name too, so the handle is checked here
 * (errors tied to no window go to MPI_COMM_SELF's handler). */
int smap_win_get_name(MPI_Win h, char *name, int *resultlen, const char *F)
{
    const char *s = "MPI_WIN_NULL";
    if (h != MPI_WIN_NULL) {
        struct MPI_ABI_Win *w = smap_win_get(h);
        if (!w)
            return smap_err_raise(MPI_COMM_NULL, MPI_ERR_WIN, F, "win is not a valid window");
        if (!name || !resultlen)
            return smap_win_raise(h, MPI_ERR_ARG, F, "%s is NULL",
                                  name ? "resultlen" : "win_name");
        s = w->name;
    } else if (!name || !resultlen) {
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, F, "%s is NULL",
                              name ? "resultlen" : "win_name");
    }
    size_t n = strlen(s);
    memcpy(name, s, n + 1);
    *resultlen = (int)n;
    return MPI_SUCCESS;
}

void smap_win_group_of(struct MPI_ABI_Win *w, MPI_Group *group)
{
    smap_group_retain(w->group);
    *group = smap_group_handle(w->group);
}

/* ---- error handlers ---- */

int smap_win_set_errhandler(struct MPI_ABI_Win *w, MPI_Errhandler errhandler)
{
    if (!smap_errhandler_valid(errhandler))
        return smap_fail(MPI_ERR_ARG, "errhandler is not a valid error handler");
    smap_errhandler_retain(errhandler);
    MPI_Errhandler old = w->errhandler;
    w->errhandler = errhandler;
    smap_errhandler_release(old);
    return MPI_SUCCESS;
}

void smap_win_get_errhandler(struct MPI_ABI_Win *w, MPI_Errhandler *errhandler)
{
    smap_errhandler_give(w->errhandler);
    *errhandler = w->errhandler;
}
