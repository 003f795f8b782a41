#include "mpi/attr.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "boot/boot.h"
#include "mpi/comm.h"
#include "mpi/errors.h"

enum copy_mode { COPY_NONE, COPY_DUP, COPY_CALL };

struct keyval {
    int id, kind;
    int refs;             /* the user's handle + one per attribute; under lock */
    int freed;            /* the user freed the handle */
    enum copy_mode copy_mode;
    smap_attr_fn *copy, *del;
    void *extra;
};

struct smap_attr {
    struct smap_attr *next;
    struct keyval *kv;    /* holds a reference */
    void *value;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct keyval **table;
static int table_len, table_cap;

static const char *kind_name(int kind)
{
    return kind == SMAP_OBJ_COMM ? "communicator" : kind == SMAP_OBJ_TYPE ? "datatype" : "window";
}

/* ---- keyvals ---- */

static int is_predefined(int keyval)
{
    return keyval >= MPI_TAG_UB && keyval <= MPI_UNIVERSE_SIZE;
}

/* Under lock: the live user keyval `id` of `kind`, or NULL.  A keyval the
 * user freed stays live while attributes still use it (MPI 5.0 §7.7.2):
 * they can still be read and deleted through a saved copy of the value,
 * and their delete callbacks see it live, as in MPICH and Open MPI. */
static struct keyval *lookup(int id, int kind)
{
    long i = (long)id - SMAP_KEYVAL_BASE;
    if (i < 0 || i >= table_len || !table[i] || table[i]->kind != kind)
        return NULL;
    return table[i];
}

/* Under lock. */
static void kv_release(struct keyval *kv)
{
    if (--kv->refs == 0) {
        table[kv->id - SMAP_KEYVAL_BASE] = NULL;
        free(kv);
    }
}

static void kv_release_locked(struct keyval *kv)
{
    pthread_mutex_lock(&lock);
    kv_release(kv);
    pthread_mutex_unlock(&lock);
}

int smap_keyval_create(int kind, smap_attr_fn *copy, smap_attr_fn *del, void *extra_state,
                       int *keyval, const char *func)
{
    struct keyval *kv = calloc(1, sizeof *kv);
    if (!kv)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_NO_MEM, func, "out of memory");
    kv->kind = kind;
    kv->refs = 1;
    uintptr_t c = (uintptr_t)copy;
    kv->copy_mode = c == 0 ? COPY_NONE : c == 1 ? COPY_DUP : COPY_CALL;
    kv->copy = copy;
    kv->del = del;
    kv->extra = extra_state;
    pthread_mutex_lock(&lock);
    if (table_len == table_cap) {
        int cap = table_cap ? 2 * table_cap : 64;
        struct keyval **t = cap < INT_MAX / 2 - SMAP_KEYVAL_BASE
                                ? realloc(table, (size_t)cap * sizeof *t) : NULL;
        if (!t) {
            pthread_mutex_unlock(&lock);
            free(kv);
            return smap_err_raise(MPI_COMM_NULL, MPI_ERR_NO_MEM, func, "out of memory");
        }
        table = t;
        table_cap = cap;
    }
    kv->id = SMAP_KEYVAL_BASE + table_len;
    table[table_len++] = kv;
    pthread_mutex_unlock(&lock);
    *keyval = kv->id;
    return MPI_SUCCESS;
}

static int bad_keyval(MPI_Comm errcomm, int kind, int keyval, const char *func)
{
    if (keyval == MPI_KEYVAL_INVALID)
        return smap_err_raise(errcomm, MPI_ERR_KEYVAL, func, "keyval is MPI_KEYVAL_INVALID");
    return smap_err_raise(errcomm, MPI_ERR_KEYVAL, func,
                          "keyval %d is not a live %s keyval", keyval, kind_name(kind));
}

int smap_keyval_free(int kind, int *keyval, const char *func)
{
    if (kind == SMAP_OBJ_COMM && is_predefined(*keyval))
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_KEYVAL, func,
                              "keyval %d is predefined: it cannot be freed", *keyval);
    pthread_mutex_lock(&lock);
    struct keyval *kv = lookup(*keyval, kind);
    /* Freeing a freed keyval that attributes keep alive (a delete callback
     * freeing "its" keyval, MPICH's keyval_double_free) changes nothing:
     * the user's reference was dropped once. */
    if (kv && !kv->freed) {
        kv->freed = 1;
        kv_release(kv);
    }
    pthread_mutex_unlock(&lock);
    if (!kv)
        return bad_keyval(MPI_COMM_NULL, kind, *keyval, func);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* ---- callbacks ---- */

static int call_delete(int kind, void *handle, struct keyval *kv, void *value)
{
    if (!kv->del)
        return MPI_SUCCESS;
    switch (kind) {
    case SMAP_OBJ_COMM:
        return ((MPI_Comm_delete_attr_function *)kv->del)((MPI_Comm)handle, kv->id, value, kv->extra);
    case SMAP_OBJ_TYPE:
        return ((MPI_Type_delete_attr_function *)kv->del)((MPI_Datatype)handle, kv->id, value,
                                                          kv->extra);
    default:
        return ((MPI_Win_delete_attr_function *)kv->del)((MPI_Win)handle, kv->id, value, kv->extra);
    }
}

static int call_copy(int kind, void *handle, struct keyval *kv, void *in, void **out, int *flag)
{
    *flag = 0;
    *out = NULL;
    switch (kv->copy_mode) {
    case COPY_NONE:
        return MPI_SUCCESS;
    case COPY_DUP:
        *out = in;
        *flag = 1;
        return MPI_SUCCESS;
    case COPY_CALL:
        break;
    }
    switch (kind) {
    case SMAP_OBJ_COMM:
        return ((MPI_Comm_copy_attr_function *)kv->copy)((MPI_Comm)handle, kv->id, kv->extra, in,
                                                         out, flag);
    case SMAP_OBJ_TYPE:
        return ((MPI_Type_copy_attr_function *)kv->copy)((MPI_Datatype)handle, kv->id, kv->extra,
                                                         in, out, flag);
    default:
        return ((MPI_Win_copy_attr_function *)kv->copy)((MPI_Win)handle, kv->id, kv->extra, in,
                                                        out, flag);
    }
}

/* The error to raise for a callback's return value rc. */
static int callback_failed(MPI_Comm errcomm, int rc, const char *what, int keyval, const char *func)
{
    int cls;
    if (smap_error_class(rc, &cls) != MPI_SUCCESS || cls == MPI_SUCCESS)
        cls = MPI_ERR_OTHER;
    return smap_err_raise(errcomm, cls, func, "the %s callback of keyval %d returned %d", what,
                          keyval, rc);
}

/* ---- one attribute ---- */

static struct smap_attr *find(struct smap_attr *list, const struct keyval *kv)
{
    for (; list; list = list->next)
        if (list->kv == kv)
            return list;
    return NULL;
}

static void unlink_node(struct smap_attr **list, struct smap_attr *node)
{
    for (struct smap_attr **p = list; *p; p = &(*p)->next)
        if (*p == node) {
            *p = node->next;
            return;
        }
}

static int check_user_keyval(int kind, int keyval, MPI_Comm errcomm, const char *func)
{
    if (kind == SMAP_OBJ_COMM && is_predefined(keyval))
        return smap_err_raise(errcomm, MPI_ERR_KEYVAL, func,
                              "keyval %d is a predefined attribute: it cannot be changed", keyval);
    return MPI_SUCCESS;
}

int smap_attr_set(int kind, void *handle, struct smap_attr **list, int keyval, void *value,
                  MPI_Comm errcomm, const char *func)
{
    int rc = check_user_keyval(kind, keyval, errcomm, func);
    if (rc != MPI_SUCCESS)
        return rc;
    struct smap_attr *fresh = malloc(sizeof *fresh);
    if (!fresh)
        return smap_err_raise(errcomm, MPI_ERR_NO_MEM, func, "out of memory");
    pthread_mutex_lock(&lock);
    struct keyval *kv = lookup(keyval, kind);
    if (!kv) {
        pthread_mutex_unlock(&lock);
        free(fresh);
        return bad_keyval(errcomm, kind, keyval, func);
    }
    struct smap_attr *node = find(*list, kv);
    if (node) {
        /* Replacing a value deletes the old one first (MPI-5.0 7.7.2). */
        void *old = node->value;
        kv->refs++;   /* kv outlives the callback whatever it does */
        pthread_mutex_unlock(&lock);
        rc = call_delete(kind, handle, kv, old);
        if (rc != MPI_SUCCESS) {
            kv_release_locked(kv);
            free(fresh);
            return callback_failed(errcomm, rc, "delete", keyval, func);
        }
        pthread_mutex_lock(&lock);
        node = find(*list, kv);
        if (node) {
            node->value = value;
            kv_release(kv);   /* not the last reference: the node holds one */
            pthread_mutex_unlock(&lock);
            free(fresh);
            return MPI_SUCCESS;
        }
        /* The callback deleted the attribute: the temporary reference
         * becomes the new attribute's. */
    } else {
        kv->refs++;
    }
    fresh->kv = kv;
    fresh->value = value;
    fresh->next = *list;
    *list = fresh;
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

/* Predefined attributes (MPI-5.0 section 9.1.2), the same on every
 * communicator: values live here, MPI_Comm_get_attr hands out pointers. */
static int attr_tag_ub = INT_MAX;
static int attr_host = MPI_PROC_NULL;
static int attr_io = MPI_ANY_SOURCE;   /* every process can do language I/O */
static int attr_wtime_is_global = 0;
static int attr_appnum, attr_universe_size;

static int predefined(int keyval, void **value, int *flag)
{
    *flag = 1;
    switch (keyval) {
    case MPI_TAG_UB: *value = &attr_tag_ub; break;
    case MPI_HOST: *value = &attr_host; break;
    case MPI_IO: *value = &attr_io; break;
    case MPI_WTIME_IS_GLOBAL: *value = &attr_wtime_is_global; break;
    case MPI_APPNUM:
        attr_appnum = smap_job.appnum;
        *flag = attr_appnum >= 0;
        *value = &attr_appnum;
        break;
    case MPI_UNIVERSE_SIZE:
        attr_universe_size = smap_job.universe_size;
        *flag = attr_universe_size > 0;
        *value = &attr_universe_size;
        break;
    case MPI_LASTUSEDCODE: *value = smap_err_lastusedcode(); break;
    default: *flag = 0; break;
    }
    return MPI_SUCCESS;
}

int smap_attr_get(int kind, void *handle, struct smap_attr **list, int keyval, void **value,
                  int *flag, MPI_Comm errcomm, const char *func)
{
    (void)handle;
    if (kind == SMAP_OBJ_COMM && is_predefined(keyval))
        return predefined(keyval, value, flag);
    pthread_mutex_lock(&lock);
    struct keyval *kv = lookup(keyval, kind);
    struct smap_attr *node = kv ? find(*list, kv) : NULL;
    if (node)
        *value = node->value;
    pthread_mutex_unlock(&lock);
    if (!kv)
        return bad_keyval(errcomm, kind, keyval, func);
    *flag = node != NULL;
    return MPI_SUCCESS;
}

/* Deleting an attribute that is not set is not an error (as in MPICH). */
int smap_attr_delete(int kind, void *handle, struct smap_attr **list, int keyval,
                     MPI_Comm errcomm, const char *func)
{
    int rc = check_user_keyval(kind, keyval, errcomm, func);
    if (rc != MPI_SUCCESS)
        return rc;
    pthread_mutex_lock(&lock);
    struct keyval *kv = lookup(keyval, kind);
    struct smap_attr *node = kv ? find(*list, kv) : NULL;
    if (!node) {
        pthread_mutex_unlock(&lock);
        return kv ? MPI_SUCCESS : bad_keyval(errcomm, kind, keyval, func);
    }
    void *value = node->value;
    kv->refs++;
    pthread_mutex_unlock(&lock);
    rc = call_delete(kind, handle, kv, value);
    if (rc != MPI_SUCCESS) {
        kv_release_locked(kv);
        return callback_failed(errcomm, rc, "delete", keyval, func);
    }
    pthread_mutex_lock(&lock);
    node = find(*list, kv);
    if (node) {
        unlink_node(list, node);
        kv_release(node->kv);
    }
    kv_release(kv);
    pthread_mutex_unlock(&lock);
    free(node);
    return MPI_SUCCESS;
}

/* ---- whole lists ---- */

int smap_attr_list_delete(int kind, void *handle, struct smap_attr **list)
{
    int first_rc = MPI_SUCCESS;
    for (;;) {
        pthread_mutex_lock(&lock);
        struct smap_attr *node = *list;
        if (node)
            *list = node->next;
        pthread_mutex_unlock(&lock);
        if (!node)
            return first_rc;
        int rc = call_delete(kind, handle, node->kv, node->value);
        if (rc != MPI_SUCCESS && first_rc == MPI_SUCCESS)
            first_rc = rc;
        kv_release_locked(node->kv);
        free(node);
    }
}

void smap_attr_list_forget(struct smap_attr **list)
{
    pthread_mutex_lock(&lock);
    while (*list) {
        struct smap_attr *node = *list;
        *list = node->next;
        kv_release(node->kv);
        free(node);
    }
    pthread_mutex_unlock(&lock);
}

int smap_attr_list_copy(int kind, void *old_handle, struct smap_attr **old_list, void *new_handle,
                        struct smap_attr **new_list)
{
    /* Snapshot the old list (oldest first, each keyval held), then run the
     * copy callbacks unlocked, prepending: the new list keeps the order. */
    pthread_mutex_lock(&lock);
    size_t n = 0;
    for (struct smap_attr *a = *old_list; a; a = a->next)
        n++;
    struct smap_attr *snap = n ? malloc(n * sizeof *snap) : NULL;
    if (n && !snap) {
        pthread_mutex_unlock(&lock);
        return MPI_ERR_NO_MEM;
    }
    size_t i = n;
    for (struct smap_attr *a = *old_list; a; a = a->next) {
        snap[--i] = *a;
        a->kv->refs++;
    }
    pthread_mutex_unlock(&lock);

    int rc = MPI_SUCCESS;
    for (i = 0; i < n; i++) {
        void *out;
        int flag;
        if (rc == MPI_SUCCESS)
            rc = call_copy(kind, old_handle, snap[i].kv, snap[i].value, &out, &flag);
        if (rc == MPI_SUCCESS && flag) {
            struct smap_attr *node = malloc(sizeof *node);
            if (!node) {
                rc = MPI_ERR_NO_MEM;
            } else {
                node->kv = snap[i].kv;   /* takes over the snapshot's reference */
                node->value = out;
                pthread_mutex_lock(&lock);
                node->next = *new_list;
                *new_list = node;
                pthread_mutex_unlock(&lock);
                continue;
            }
        }
        kv_release_locked(snap[i].kv);
    }
    free(snap);
    if (rc != MPI_SUCCESS)
        (void)smap_attr_list_delete(kind, new_handle, new_list);
    return rc;
}

int smap_attr_copy_all(struct MPI_ABI_Comm *oldcomm, struct MPI_ABI_Comm *newcomm)
{
    return smap_attr_list_copy(SMAP_OBJ_COMM, oldcomm->handle, &oldcomm->attrs, newcomm->handle,
                               &newcomm->attrs);
}

int smap_attr_delete_all(struct MPI_ABI_Comm *comm)
{
    return smap_attr_list_delete(SMAP_OBJ_COMM, comm->handle, &comm->attrs);
}
