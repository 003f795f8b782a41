/* Procedures that take Fortran procedures (MPI 5.0 §19.1): error handlers,
 * user reduction ops, attribute keyvals, generalized requests.  The library
 * calls C callbacks; a Fortran procedure takes every argument by reference,
 * handles as integers, LOGICALs and an IERROR last, so each is called
 * through a C trampoline that converts.
 *
 * Keyvals and generalized requests have an extra_state: the trampoline
 * finds the Fortran procedures in a small record passed as the C
 * extra_state.  Error handlers and ops have none in C, so the Fortran
 * procedure is bound to the C object as its context
 * (binding/ctx_objects.h): one trampoline per kind receives it, and any
 * number of distinct procedures may be in use. */
#include <pthread.h>
#include <string.h>

#include "binding/ctx_objects.h"
#include "binding/fortran/fortran.h"
#include "mpi/errors.h"

typedef void (*ffn)(void);

/* A Fortran procedure as a context pointer and back (GCC and Clang keep
 * code and data pointers the same size on every target smartmap builds for). */
static void *fn_ctx(ffn f)
{
    return (void *)(uintptr_t)f;
}
static ffn ctx_fn(void *c)
{
    return (ffn)(uintptr_t)c;
}

/* ---- error handlers: SUBROUTINE H(OBJ, ERRORCODE) ------------------------ */
typedef void (*f_eh)(MPI_Fint *obj, MPI_Fint *code);

#define EH_KIND(kind, Kind, CType)                                                   \
    static void kind##_eh_tr(void *ctx, void *obj, int *code)                        \
    {                                                                                \
        MPI_Fint f = PMPI_##Kind##_c2f(*(CType *)obj), c = *code;                    \
        ((f_eh)ctx_fn(ctx))(&f, &c);                                                 \
    }                                                                                \
    void pmpi_##kind##_create_errhandler_(ffn fn, MPI_Fint *errhandler, MPI_Fint *ierror_opt) \
    {                                                                                \
        SMAP_F_IERROR;                                                               \
        MPI_Errhandler h;                                                            \
        *ierror = smap_errhandler_new_ctx("MPI_" #Kind "_create_errhandler", kind##_eh_tr, \
                                          fn_ctx(fn), &h);                           \
        if (*ierror == MPI_SUCCESS)                                                  \
            *errhandler = PMPI_Errhandler_c2f(h);                                    \
    }
EH_KIND(comm, Comm, MPI_Comm)
SMAP_F_ALIASES(comm_create_errhandler, COMM_CREATE_ERRHANDLER, void, (ffn, MPI_Fint *, MPI_Fint *))
EH_KIND(win, Win, MPI_Win)
SMAP_F_ALIASES(win_create_errhandler, WIN_CREATE_ERRHANDLER, void, (ffn, MPI_Fint *, MPI_Fint *))
EH_KIND(file, File, MPI_File)
SMAP_F_ALIASES(file_create_errhandler, FILE_CREATE_ERRHANDLER, void, (ffn, MPI_Fint *, MPI_Fint *))
EH_KIND(session, Session, MPI_Session)
SMAP_F_ALIASES(session_create_errhandler, SESSION_CREATE_ERRHANDLER, void,
               (ffn, MPI_Fint *, MPI_Fint *))

/* ---- user ops: SUBROUTINE F(INVEC, INOUTVEC, LEN, DATATYPE) -------------- */
/* LEN is an INTEGER (MPI_Op_create: the library splits at INT_MAX) or an
 * INTEGER(KIND=MPI_COUNT_KIND) (MPI_Op_create_c, mpi_f08). */
typedef void (*f_op)(void *in, void *inout, MPI_Fint *len, MPI_Fint *dt);
typedef void (*f_op_c)(void *in, void *inout, MPI_Count *len, MPI_Fint *dt);

static void op_tr(void *ctx, void *in, void *inout, MPI_Count len, MPI_Datatype dt)
{
    MPI_Fint l = (MPI_Fint)len, d = PMPI_Type_c2f(dt);
    ((f_op)ctx_fn(ctx))(in, inout, &l, &d);
}

static void op_c_tr(void *ctx, void *in, void *inout, MPI_Count len, MPI_Datatype dt)
{
    MPI_Fint d = PMPI_Type_c2f(dt);
    ((f_op_c)ctx_fn(ctx))(in, inout, &len, &d);
}

void pmpi_op_create_(ffn user_fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierror_opt)
{
    SMAP_F_IERROR;
    MPI_Op o;
    *ierror = smap_op_new_ctx("MPI_Op_create", op_tr, fn_ctx(user_fn), 0,
                              SMAP_F_LOGICAL_IN(*commute), &o);
    if (*ierror == MPI_SUCCESS)
        *op = PMPI_Op_c2f(o);
}
SMAP_F_ALIASES(op_create, OP_CREATE, void, (ffn, MPI_Fint *, MPI_Fint *, MPI_Fint *))

void pmpi_op_create_c_(ffn user_fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierror_opt)
{
    SMAP_F_IERROR;
    MPI_Op o;
    *ierror = smap_op_new_ctx("MPI_Op_create_c", op_c_tr, fn_ctx(user_fn), 1,
                              SMAP_F_LOGICAL_IN(*commute), &o);
    if (*ierror == MPI_SUCCESS)
        *op = PMPI_Op_c2f(o);
}
SMAP_F_ALIASES(op_create_c, OP_CREATE_C, void, (ffn, MPI_Fint *, MPI_Fint *, MPI_Fint *))

/* ---- attribute keyvals -------------------------------------------------- */
/* SUBROUTINE COPY(OLDOBJ, KEYVAL, EXTRA_STATE, ATTRIBUTE_VAL_IN,
 *                 ATTRIBUTE_VAL_OUT, FLAG, IERROR)
 * SUBROUTINE DELETE(OBJ, KEYVAL, ATTRIBUTE_VAL, EXTRA_STATE, IERROR)
 * with INTEGER(KIND=MPI_ADDRESS_KIND) states and values (MPI-1's
 * MPI_Keyval_create: INTEGER ones, `small`). */
typedef void (*f_copy)(MPI_Fint *, MPI_Fint *, void *, void *, void *, MPI_Fint *, MPI_Fint *);
typedef void (*f_delete)(MPI_Fint *, MPI_Fint *, void *, void *, MPI_Fint *);
struct kv {
    ffn copy, del;          /* NULL: the C predefined one is used instead */
    MPI_Aint extra;
    int small;              /* MPI_Keyval_create: INTEGER extra state and values */
};

/* The predefined procedures as Fortran sees them (mpif.h's EXTERNALs): they
 * are also callable, with Fortran arguments. */
#define NULL_COPY(name)                                                              \
    SMAP_F_API void name(MPI_Fint *o, MPI_Fint *k, void *e, void *in, void *out,     \
                         MPI_Fint *flag, MPI_Fint *ierr)                             \
    {                                                                                \
        (void)o, (void)k, (void)e, (void)in, (void)out;                              \
        *flag = 0;                                                                   \
        *ierr = MPI_SUCCESS;                                                         \
    }
#define DUP_FN(name, T)                                                              \
    SMAP_F_API void name(MPI_Fint *o, MPI_Fint *k, void *e, void *in, void *out,     \
                         MPI_Fint *flag, MPI_Fint *ierr)                             \
    {                                                                                \
        (void)o, (void)k, (void)e;                                                   \
        *(T *)out = *(T *)in;                                                        \
        *flag = SMAP_F_TRUE;                                                         \
        *ierr = MPI_SUCCESS;                                                         \
    }
#define NULL_DELETE(name)                                                            \
    SMAP_F_API void name(MPI_Fint *o, MPI_Fint *k, void *v, void *e, MPI_Fint *ierr) \
    {                                                                                \
        (void)o, (void)k, (void)v, (void)e;                                          \
        *ierr = MPI_SUCCESS;                                                         \
    }
NULL_COPY(mpi_comm_null_copy_fn_)
NULL_COPY(mpi_type_null_copy_fn_)
NULL_COPY(mpi_win_null_copy_fn_)
NULL_COPY(mpi_null_copy_fn_)
DUP_FN(mpi_comm_dup_fn_, MPI_Aint)
DUP_FN(mpi_type_dup_fn_, MPI_Aint)
DUP_FN(mpi_win_dup_fn_, MPI_Aint)
DUP_FN(mpi_dup_fn_, MPI_Fint)
NULL_DELETE(mpi_comm_null_delete_fn_)
NULL_DELETE(mpi_type_null_delete_fn_)
NULL_DELETE(mpi_win_null_delete_fn_)
NULL_DELETE(mpi_null_delete_fn_)
SMAP_F_API void mpi_conversion_fn_null_(void *u, MPI_Fint *d, MPI_Fint *c, void *f,
                                        MPI_Offset *p, MPI_Aint *e, MPI_Fint *ierr)
{
    (void)u, (void)d, (void)c, (void)f, (void)p, (void)e;
    *ierr = MPI_SUCCESS;
}

static int kv_copy(MPI_Fint fobj, int keyval, struct kv *k, void *in, void *out, int *flag)
{
    MPI_Fint fk = keyval, fflag = 0, ierr = MPI_SUCCESS;
    if (k->small) {
        MPI_Fint e = (MPI_Fint)k->extra, vin = (MPI_Fint)(intptr_t)in, vout = 0;
        ((f_copy)k->copy)(&fobj, &fk, &e, &vin, &vout, &fflag, &ierr);
        if (fflag)
            *(void **)out = (void *)(intptr_t)vout;
    } else {
        MPI_Aint e = k->extra, vin = (MPI_Aint)(intptr_t)in, vout = 0;
        ((f_copy)k->copy)(&fobj, &fk, &e, &vin, &vout, &fflag, &ierr);
        if (fflag)
            *(void **)out = (void *)(intptr_t)vout;
    }
    *flag = fflag != 0;
    return ierr;
}

static int kv_delete(MPI_Fint fobj, int keyval, struct kv *k, void *val)
{
    MPI_Fint fk = keyval, ierr = MPI_SUCCESS;
    if (k->small) {
        MPI_Fint e = (MPI_Fint)k->extra, v = (MPI_Fint)(intptr_t)val;
        ((f_delete)k->del)(&fobj, &fk, &v, &e, &ierr);
    } else {
        MPI_Aint e = k->extra, v = (MPI_Aint)(intptr_t)val;
        ((f_delete)k->del)(&fobj, &fk, &v, &e, &ierr);
    }
    return ierr;
}

#define KV_TRAMPOLINES(kind, Kind, CType)                                            \
    static int kind##_copy_tr(CType o, int kv, void *e, void *in, void *out, int *flag) \
    {                                                                                \
        return kv_copy(PMPI_##Kind##_c2f(o), kv, e, in, out, flag);                  \
    }                                                                                \
    static int kind##_delete_tr(CType o, int kv, void *val, void *e)                 \
    {                                                                                \
        return kv_delete(PMPI_##Kind##_c2f(o), kv, e, val);                          \
    }
KV_TRAMPOLINES(comm, Comm, MPI_Comm)
KV_TRAMPOLINES(type, Type, MPI_Datatype)
KV_TRAMPOLINES(win, Win, MPI_Win)

/* Every record stays reachable from here (the library may drop a freed
 * keyval's extra state while attributes copied from it live on). */
static pthread_mutex_t kv_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kv_node {
    struct kv_node *next;
    struct kv kv;
} *kv_all;

static struct kv *kv_new(ffn copy, ffn del, MPI_Aint extra, int small)
{
    struct kv_node *n = malloc(sizeof *n);
    if (!n)
        return NULL;
    n->kv = (struct kv){copy, del, extra, small};
    pthread_mutex_lock(&kv_lock);
    n->next = kv_all;
    kv_all = n;
    pthread_mutex_unlock(&kv_lock);
    return &n->kv;
}

/* A keyval's record lives as long as the program (on kv_all): attributes
 * copied from it may outlive MPI_*_free_keyval (MPI 5.0 §7.7.2). */
#define KV_CREATE(kind, Kind, KIND_, CCopy, CDelete)                                  \
    void pmpi_##kind##_create_keyval_(ffn copy_fn, ffn delete_fn, MPI_Fint *keyval,  \
                                      MPI_Aint *extra_state, MPI_Fint *ierror_opt)       \
    {                                                                                \
        SMAP_F_IERROR;                                                               \
        static const char F[] = "MPI_" #Kind "_create_keyval";                       \
        struct kv *k = kv_new(copy_fn, delete_fn, *extra_state, 0);                  \
        if (!k) {                                                                    \
            *ierror = smap_f_nomem(F);                                               \
            return;                                                                  \
        }                                                                            \
        MPI_##Kind##_copy_attr_function *c = kind##_copy_tr;                         \
        MPI_##Kind##_delete_attr_function *d = kind##_delete_tr;                     \
        if (copy_fn == (ffn)mpi_##kind##_null_copy_fn_)                              \
            c = CCopy##_NULL_COPY_FN;                                                \
        else if (copy_fn == (ffn)mpi_##kind##_dup_fn_)                               \
            c = CCopy##_DUP_FN;                                                      \
        if (delete_fn == (ffn)mpi_##kind##_null_delete_fn_)                          \
            d = CDelete##_NULL_DELETE_FN;                                            \
        int kv;                                                                      \
        *ierror = PMPI_##Kind##_create_keyval(c, d, &kv, k);                         \
        if (*ierror == MPI_SUCCESS)                                                  \
            *keyval = kv;                                                            \
    }
#define KV_SIG (ffn, ffn, MPI_Fint *, MPI_Aint *, MPI_Fint *)
KV_CREATE(comm, Comm, COMM, MPI_COMM, MPI_COMM)
SMAP_F_ALIASES(comm_create_keyval, COMM_CREATE_KEYVAL, void, KV_SIG)
KV_CREATE(type, Type, TYPE, MPI_TYPE, MPI_TYPE)
SMAP_F_ALIASES(type_create_keyval, TYPE_CREATE_KEYVAL, void, KV_SIG)
KV_CREATE(win, Win, WIN, MPI_WIN, MPI_WIN)
SMAP_F_ALIASES(win_create_keyval, WIN_CREATE_KEYVAL, void, KV_SIG)

void pmpi_keyval_create_(ffn copy_fn, ffn delete_fn, MPI_Fint *keyval, MPI_Fint *extra_state,
                         MPI_Fint *ierror_opt)
{
    SMAP_F_IERROR;
    struct kv *k = kv_new(copy_fn, delete_fn, *extra_state, 1);
    if (!k) {
        *ierror = smap_f_nomem("MPI_Keyval_create");
        return;
    }
    MPI_Copy_function *c = comm_copy_tr;
    MPI_Delete_function *d = comm_delete_tr;
    if (copy_fn == (ffn)mpi_null_copy_fn_)
        c = MPI_NULL_COPY_FN;
    else if (copy_fn == (ffn)mpi_dup_fn_)
        c = MPI_DUP_FN;
    if (delete_fn == (ffn)mpi_null_delete_fn_)
        d = MPI_NULL_DELETE_FN;
    int kv;
    *ierror = PMPI_Keyval_create(c, d, &kv, k);
    if (*ierror == MPI_SUCCESS)
        *keyval = kv;
}
SMAP_F_ALIASES(keyval_create, KEYVAL_CREATE, void, (ffn, ffn, MPI_Fint *, MPI_Fint *, MPI_Fint *))

/* ---- generalized requests ------------------------------------------------ */
/* SUBROUTINE QUERY(EXTRA_STATE, STATUS, IERROR), FREE(EXTRA_STATE, IERROR),
 * CANCEL(EXTRA_STATE, COMPLETE, IERROR); EXTRA_STATE of MPI_ADDRESS_KIND. */
struct greq {
    ffn query, free, cancel;
    MPI_Aint extra;
};

static int greq_query(void *e, MPI_Status *status)
{
    struct greq *g = e;
    MPI_Fint ierr = MPI_SUCCESS;
    MPI_Aint x = g->extra;
    ((void (*)(MPI_Aint *, MPI_Fint *, MPI_Fint *))g->query)(&x, (MPI_Fint *)(void *)status,
                                                             &ierr);
    return ierr;
}

static int greq_free(void *e)
{
    struct greq *g = e;
    MPI_Fint ierr = MPI_SUCCESS;
    MPI_Aint x = g->extra;
    ((void (*)(MPI_Aint *, MPI_Fint *))g->free)(&x, &ierr);
    free(g);
    return ierr;
}

static int greq_cancel(void *e, int complete)
{
    struct greq *g = e;
    MPI_Fint ierr = MPI_SUCCESS, c = SMAP_F_LOGICAL_OUT(complete);
    MPI_Aint x = g->extra;
    ((void (*)(MPI_Aint *, MPI_Fint *, MPI_Fint *))g->cancel)(&x, &c, &ierr);
    return ierr;
}

void pmpi_grequest_start_(ffn query_fn, ffn free_fn, ffn cancel_fn, MPI_Aint *extra_state,
                          MPI_Fint *request, MPI_Fint *ierror_opt)
{
    SMAP_F_IERROR;
    struct greq *g = malloc(sizeof *g);
    if (!g) {
        *ierror = smap_f_nomem("MPI_Grequest_start");
        return;
    }
    *g = (struct greq){query_fn, free_fn, cancel_fn, *extra_state};
    MPI_Request r;
    *ierror = PMPI_Grequest_start(greq_query, greq_free, greq_cancel, g, &r);
    if (*ierror == MPI_SUCCESS)
        *request = PMPI_Request_c2f(r);
    else
        free(g);
}
SMAP_F_ALIASES(grequest_start, GREQUEST_START, void,
               (ffn, ffn, ffn, MPI_Aint *, MPI_Fint *, MPI_Fint *))

/* ---- data representations: MPI_Register_datarep(_c) -------------------- */
/* SUBROUTINE CONV(USERBUF, DATATYPE, COUNT, FILEBUF, POSITION, EXTRA_STATE,
 *                 IERROR)  -- COUNT an INTEGER, or INTEGER(KIND=MPI_COUNT_KIND)
 *                             for MPI_Register_datarep_c (mpi_f08)
 * SUBROUTINE EXTENT(DATATYPE, EXTENT, EXTRA_STATE, IERROR)
 * with INTEGER(KIND=MPI_OFFSET_KIND) POSITION and
 * INTEGER(KIND=MPI_ADDRESS_KIND) EXTENT, EXTRA_STATE.  The C extra_state
 * is a record holding the three procedures and the Fortran extra state; a
 * representation is never unregistered, so its record lives on (on
 * drep_all, where leak checkers see it reachable). */
struct drep {
    struct drep *next;
    ffn read, write, extent;
    MPI_Aint extra;
};
typedef void (*f_conv)(void *ubuf, MPI_Fint *dt, MPI_Fint *count, void *fbuf, MPI_Offset *pos,
                       MPI_Aint *extra, MPI_Fint *ierr);
typedef void (*f_conv_c)(void *ubuf, MPI_Fint *dt, MPI_Count *count, void *fbuf,
                         MPI_Offset *pos, MPI_Aint *extra, MPI_Fint *ierr);
typedef void (*f_extent)(MPI_Fint *dt, MPI_Aint *extent, MPI_Aint *extra, MPI_Fint *ierr);

static pthread_mutex_t drep_lock = PTHREAD_MUTEX_INITIALIZER;
static struct drep *drep_all;

static int drep_conv(ffn f, void *ubuf, MPI_Datatype dt, int count, void *fbuf, MPI_Offset pos,
                     const struct drep *r)
{
    MPI_Fint d = PMPI_Type_c2f(dt), c = count, ierr = MPI_SUCCESS;
    MPI_Aint x = r->extra;
    ((f_conv)f)(ubuf, &d, &c, fbuf, &pos, &x, &ierr);
    return ierr;
}

static int drep_conv_c(ffn f, void *ubuf, MPI_Datatype dt, MPI_Count count, void *fbuf,
                       MPI_Offset pos, const struct drep *r)
{
    MPI_Fint d = PMPI_Type_c2f(dt), ierr = MPI_SUCCESS;
    MPI_Aint x = r->extra;
    ((f_conv_c)f)(ubuf, &d, &count, fbuf, &pos, &x, &ierr);
    return ierr;
}

static int drep_read(void *u, MPI_Datatype dt, int n, void *fb, MPI_Offset pos, void *e)
{
    return drep_conv(((struct drep *)e)->read, u, dt, n, fb, pos, e);
}
static int drep_write(void *u, MPI_Datatype dt, int n, void *fb, MPI_Offset pos, void *e)
{
    return drep_conv(((struct drep *)e)->write, u, dt, n, fb, pos, e);
}
static int drep_read_c(void *u, MPI_Datatype dt, MPI_Count n, void *fb, MPI_Offset pos, void *e)
{
    return drep_conv_c(((struct drep *)e)->read, u, dt, n, fb, pos, e);
}
static int drep_write_c(void *u, MPI_Datatype dt, MPI_Count n, void *fb, MPI_Offset pos, void *e)
{
    return drep_conv_c(((struct drep *)e)->write, u, dt, n, fb, pos, e);
}

static int drep_extent(MPI_Datatype dt, MPI_Aint *extent, void *e)
{
    const struct drep *r = e;
    MPI_Fint d = PMPI_Type_c2f(dt), ierr = MPI_SUCCESS;
    MPI_Aint x = r->extra;
    ((f_extent)r->extent)(&d, extent, &x, &ierr);
    return ierr;
}

/* MPI_CONVERSION_FN_NULL (mpif.h's and the modules' EXTERNAL) is "no
 * conversion": NULL for the C library. */
static int conv_given(ffn f)
{
    return f && f != (ffn)mpi_conversion_fn_null_;
}

static void register_datarep(const char *func, char *datarep, ffn read_fn, ffn write_fn,
                             ffn extent_fn, MPI_Aint *extra_state, MPI_Fint *ierror,
                             size_t datarep_len, int large)
{
    char *name = smap_f_str_in(datarep, datarep_len);
    struct drep *r = malloc(sizeof *r);
    if (!name || !r) {
        free(name);
        free(r);
        *ierror = smap_f_nomem(func);
        return;
    }
    *r = (struct drep){NULL, read_fn, write_fn, extent_fn, *extra_state};
    MPI_Datarep_extent_function *ext = extent_fn ? drep_extent : NULL;
    if (large)
        *ierror = PMPI_Register_datarep_c(name, conv_given(read_fn) ? drep_read_c : NULL,
                                          conv_given(write_fn) ? drep_write_c : NULL, ext, r);
    else
        *ierror = PMPI_Register_datarep(name, conv_given(read_fn) ? drep_read : NULL,
                                        conv_given(write_fn) ? drep_write : NULL, ext, r);
    free(name);
    if (*ierror != MPI_SUCCESS) {
        free(r);
        return;
    }
    pthread_mutex_lock(&drep_lock);
    r->next = drep_all;
    drep_all = r;
    pthread_mutex_unlock(&drep_lock);
}

void pmpi_register_datarep_(char *datarep, ffn read_fn, ffn write_fn, ffn extent_fn,
                            MPI_Aint *extra_state, MPI_Fint *ierror_opt, size_t datarep_len)
{
    SMAP_F_IERROR;
    register_datarep("MPI_Register_datarep", datarep, read_fn, write_fn, extent_fn,
                     extra_state, ierror, datarep_len, 0);
}
SMAP_F_ALIASES(register_datarep, REGISTER_DATAREP, void,
               (char *, ffn, ffn, ffn, MPI_Aint *, MPI_Fint *, size_t))

/* MPI_Register_datarep_c (mpi_f08): conversion functions with an
 * INTEGER(KIND=MPI_COUNT_KIND) count. */
void pmpi_register_datarep_c_(char *datarep, ffn read_fn, ffn write_fn, ffn extent_fn,
                              MPI_Aint *extra_state, MPI_Fint *ierror_opt, size_t datarep_len)
{
    SMAP_F_IERROR;
    register_datarep("MPI_Register_datarep_c", datarep, read_fn, write_fn, extent_fn,
                     extra_state, ierror, datarep_len, 1);
}
SMAP_F_ALIASES(register_datarep_c, REGISTER_DATAREP_C, void,
               (char *, ffn, ffn, ffn, MPI_Aint *, MPI_Fint *, size_t))
