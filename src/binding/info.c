/* Entry points on info objects (src/mpi/info.h) and communicator hints.
 * The MPI_Info_* functions work before MPI_Init too (MPI-4 allows it);
 * their errors go to MPI_COMM_SELF's handler. */
#include <mpi.h>
#include <string.h>

#include "binding/check.h"
#include "mpi/info.h"

#define NOCOMM MPI_COMM_NULL

#define CHECK_INFO(func, comm, h, obj)                                             \
    do {                                                                           \
        (obj) = smap_info_get(h);                                                  \
        if (SMAP_UNLIKELY(!(obj)))                                                 \
            return smap_err_raise(comm, MPI_ERR_INFO, func, "%s %s", #h,           \
                                  (h) == MPI_INFO_NULL ? "is MPI_INFO_NULL"         \
                                                       : "is not a valid info object"); \
    } while (0)

#define CHECK_WRITABLE(func, obj)                                                  \
    do {                                                                           \
        if (SMAP_UNLIKELY((obj)->read_only))                                       \
            return smap_err_raise(NOCOMM, MPI_ERR_INFO, func,                      \
                                  "MPI_INFO_ENV is predefined and read-only");     \
    } while (0)

#define CHECK_KEY(func, key)                                                       \
    do {                                                                           \
        SMAP_CHECK_PTR(func, NOCOMM, key);                                         \
        size_t len_ = strnlen(key, MPI_MAX_INFO_KEY);                              \
        if (SMAP_UNLIKELY(len_ == 0))                                              \
            return smap_err_raise(NOCOMM, MPI_ERR_INFO_KEY, func, "key is empty");  \
        if (SMAP_UNLIKELY(len_ >= MPI_MAX_INFO_KEY))                               \
            return smap_err_raise(NOCOMM, MPI_ERR_INFO_KEY, func,                  \
                                  "key is longer than MPI_MAX_INFO_KEY-1=%d characters", \
                                  MPI_MAX_INFO_KEY - 1);                           \
    } while (0)

#define NO_MEM(func) smap_err_raise(NOCOMM, MPI_ERR_NO_MEM, func, "out of memory")

int PMPI_Info_create(MPI_Info *info)
{
    SMAP_CHECK_PTR("MPI_Info_create", NOCOMM, info);
    struct MPI_ABI_Info *i = smap_info_new();
    if (!i)
        return NO_MEM("MPI_Info_create");
    *info = i;
    return MPI_SUCCESS;
}

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    static const char F[] = "MPI_Info_set";
    struct MPI_ABI_Info *i;
    CHECK_INFO(F, NOCOMM, info, i);
    CHECK_WRITABLE(F, i);
    CHECK_KEY(F, key);
    SMAP_CHECK_PTR(F, NOCOMM, value);
    size_t len = strnlen(value, MPI_MAX_INFO_VAL);
    if (len == 0)
        return smap_err_raise(NOCOMM, MPI_ERR_INFO_VALUE, F, "the value of '%s' is empty", key);
    if (len >= MPI_MAX_INFO_VAL)
        return smap_err_raise(NOCOMM, MPI_ERR_INFO_VALUE, F,
                              "the value of '%s' is longer than MPI_MAX_INFO_VAL-1=%d characters",
                              key, MPI_MAX_INFO_VAL - 1);
    if (smap_info_set(i, key, value) != 0)
        return NO_MEM(F);
    return MPI_SUCCESS;
}

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    static const char F[] = "MPI_Info_delete";
    struct MPI_ABI_Info *i;
    CHECK_INFO(F, NOCOMM, info, i);
    CHECK_WRITABLE(F, i);
    CHECK_KEY(F, key);
    if (smap_info_remove(i, key) != 0)
        return smap_err_raise(NOCOMM, MPI_ERR_INFO_NOKEY, F, "key '%s' is not set", key);
    return MPI_SUCCESS;
}

/* Deprecated in MPI-4.0 (MPI_Info_get_string replaces it): copies at most
 * valuelen characters and a terminating NUL. */
int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    static const char F[] = "MPI_Info_get";
    struct MPI_ABI_Info *i;
    CHECK_INFO(F, NOCOMM, info, i);
    CHECK_KEY(F, key);
    if (valuelen < 0)
        return smap_err_raise(NOCOMM, MPI_ERR_ARG, F, "valuelen=%d is negative", valuelen);
    SMAP_CHECK_PTR(F, NOCOMM, value);
    SMAP_CHECK_PTR(F, NOCOMM, flag);
    const char *v = smap_info_lookup(i, key);
    *flag = v != NULL;
    if (v) {
        size_t n = strlen(v);
        if (n > (size_t)valuelen)
            n = (size_t)valuelen;
        memcpy(value, v, n);
        value[n] = '\0';
    }
    return MPI_SUCCESS;
}

int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    static const char F[] = "MPI_Info_get_string";
    struct MPI_ABI_Info *i;
    CHECK_INFO(F, NOCOMM, info, i);
    CHECK_KEY(F, key);
    SMAP_CHECK_PTR(F, NOCOMM, buflen);
    SMAP_CHECK_PTR(F, NOCOMM, flag);
    if (*buflen < 0)
        return smap_err_raise(NOCOMM, MPI_ERR_ARG, F, "*buflen=%d is negative", *buflen);
    if (*buflen > 0)
        SMAP_CHECK_PTR(F, NOCOMM, value);
    const char *v = smap_info_lookup(i, key);
    *flag = v != NULL;
    if (v) {
        size_t n = strlen(v);
        if (*buflen > 0) {
            size_t m = n < (size_t)*buflen - 1 ? n : (size_t)*buflen - 1;
            memcpy(value, v, m);
            value[m] = '\0';
        }
        *buflen = (int)n + 1;
    }
    return MPI_SUCCESS;
}

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    static const char F[] = "MPI_Info_get_valuelen";
    struct MPI_ABI_Info *i;
    CHECK_INFO(F, NOCOMM, info, i);
    CHECK_KEY(F, key);
    SMAP_CHECK_PTR(F, NOCOMM, valuelen);
    SMAP_CHECK_PTR(F, NOCOMM, flag);
    const char *v = smap_info_lookup(i, key);
    *flag = v != NULL;
    if (v)
        *valuelen = (int)strlen(v);
    return MPI_SUCCESS;
}

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    struct MPI_ABI_Info *i;
    CHECK_INFO("MPI_Info_get_nkeys", NOCOMM, info, i);
    SMAP_CHECK_PTR("MPI_Info_get_nkeys", NOCOMM, nkeys);
    *nkeys = i->n;
    return MPI_SUCCESS;
}

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    static const char F[] = "MPI_Info_get_nthkey";
    struct MPI_ABI_Info *i;
    CHECK_INFO(F, NOCOMM, info, i);
    SMAP_CHECK_PTR(F, NOCOMM, key);
    if (n < 0 || n >= i->n)
        return smap_err_raise(NOCOMM, MPI_ERR_ARG, F, "n=%d is not in [0, %d), the number of keys",
                              n, i->n);
    strcpy(key, i->e[n].key);   /* shorter than MPI_MAX_INFO_KEY: checked by MPI_Info_set */
    return MPI_SUCCESS;
}

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    struct MPI_ABI_Info *i;
    CHECK_INFO("MPI_Info_dup", NOCOMM, info, i);
    SMAP_CHECK_PTR("MPI_Info_dup", NOCOMM, newinfo);
    struct MPI_ABI_Info *d = smap_info_dup(i);
    if (!d)
        return NO_MEM("MPI_Info_dup");
    *newinfo = d;
    return MPI_SUCCESS;
}

int PMPI_Info_free(MPI_Info *info)
{
    static const char F[] = "MPI_Info_free";
    struct MPI_ABI_Info *i;
    SMAP_CHECK_PTR(F, NOCOMM, info);
    CHECK_INFO(F, NOCOMM, *info, i);
    if (i->read_only)
        return smap_err_raise(NOCOMM, MPI_ERR_INFO, F, "MPI_INFO_ENV is predefined: it cannot be freed");
    smap_info_free(i);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    static const char F[] = "MPI_Info_create_env";
    SMAP_CHECK_PTR(F, NOCOMM, info);
    if (argc < 0)
        return smap_err_raise(NOCOMM, MPI_ERR_ARG, F, "argc=%d is negative", argc);
    struct MPI_ABI_Info *i = smap_info_new_env(argc, argv);
    if (!i)
        return NO_MEM(F);
    *info = i;
    return MPI_SUCCESS;
}

/* ---- communicator hints ---- */

/* The hints we accept (MPI-5.0 section 7.4.4): assertions a later matching
 * engine may exploit.  Their values are "true" or "false"; other keys and
 * values are ignored, as the standard allows. */
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    static const char F[] = "MPI_Comm_set_info";
    struct MPI_ABI_Comm *c;
    struct MPI_ABI_Info *i;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, comm, c);
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    CHECK_INFO(F, comm, info, i);
    int rc = smap_comm_take_hints(c, i);
    return rc == MPI_SUCCESS ? rc : smap_err_raise(comm, rc, F, "out of memory");
}

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    static const char F[] = "MPI_Comm_get_info";
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, comm, c);
    SMAP_CHECK_PTR(F, comm, info_used);
    struct MPI_ABI_Info *d = c->hints ? smap_info_dup(c->hints) : smap_info_new();
    if (!d)
        return smap_err_raise(comm, MPI_ERR_NO_MEM, F, "out of memory");
    *info_used = d;
    return MPI_SUCCESS;
}
