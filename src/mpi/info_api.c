/* The operations behind the MPI_Info_* entry points and the communicator
 * hints (their generated stubs in src/binding/gen/info.c have checked the
 * handles and the pointers).  Each returns MPI_SUCCESS or an error class
 * with the reason recorded (base/why.h): the key and value limits, a
 * read-only MPI_INFO_ENV, an absent key. */
#include <mpi.h>
#include <string.h>

#include "base/why.h"
#include "mpi/comm.h"
#include "mpi/info.h"

#define NO_MEM() smap_fail(MPI_ERR_NO_MEM, "out of memory")

/* A key has 1..MPI_MAX_INFO_KEY-1 characters. */
static int check_key(const char *key)
{
    size_t len = strnlen(key, MPI_MAX_INFO_KEY);
    if (len == 0)
        return smap_fail(MPI_ERR_INFO_KEY, "key is empty");
    if (len >= MPI_MAX_INFO_KEY)
        return smap_failf(MPI_ERR_INFO_KEY, "key is longer than MPI_MAX_INFO_KEY-1=%d characters",
                          MPI_MAX_INFO_KEY - 1);
    return MPI_SUCCESS;
}

static int check_writable(const struct MPI_ABI_Info *i)
{
    return i->read_only ? smap_fail(MPI_ERR_INFO, "MPI_INFO_ENV is predefined and read-only")
                        : MPI_SUCCESS;
}

static int hand_out(struct MPI_ABI_Info *i, MPI_Info *out)
{
    if (!i)
        return NO_MEM();
    *out = i;
    return MPI_SUCCESS;
}

int smap_info_create(MPI_Info *info)
{
    return hand_out(smap_info_new(), info);
}

int smap_info_create_env(int argc, char *argv[], MPI_Info *info)
{
    return hand_out(smap_info_new_env(argc, argv), info);
}

int smap_info_dup_into(const struct MPI_ABI_Info *i, MPI_Info *newinfo)
{
    return hand_out(smap_info_dup(i), newinfo);
}

int smap_info_set_checked(struct MPI_ABI_Info *i, const char *key, const char *value)
{
    int rc = check_writable(i);
    if (rc == MPI_SUCCESS)
        rc = check_key(key);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t len = strnlen(value, MPI_MAX_INFO_VAL);
    if (len == 0)
        return smap_failf(MPI_ERR_INFO_VALUE, "the value of '%s' is empty", key);
    if (len >= MPI_MAX_INFO_VAL)
        return smap_failf(MPI_ERR_INFO_VALUE,
                          "the value of '%s' is longer than MPI_MAX_INFO_VAL-1=%d characters", key,
                          MPI_MAX_INFO_VAL - 1);
    return smap_info_set(i, key, value) != 0 ? NO_MEM() : MPI_SUCCESS;
}

int smap_info_delete(struct MPI_ABI_Info *i, const char *key)
{
    int rc = check_writable(i);
    if (rc == MPI_SUCCESS)
        rc = check_key(key);
    if (rc != MPI_SUCCESS)
        return rc;
    if (smap_info_remove(i, key) != 0)
        return smap_failf(MPI_ERR_INFO_NOKEY, "key '%s' is not set", key);
    return MPI_SUCCESS;
}

/* Deprecated in MPI-4.0 (MPI_Info_get_string replaces it): copies at most
 * valuelen characters and a terminating NUL. */
int smap_info_get_value(const struct MPI_ABI_Info *i, const char *key, int valuelen, char *value,
                        int *flag)
{
    int rc = check_key(key);
    if (rc != MPI_SUCCESS)
        return rc;
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

int smap_info_get_string(const struct MPI_ABI_Info *i, const char *key, int *buflen, char *value,
                         int *flag)
{
    int rc = check_key(key);
    if (rc != MPI_SUCCESS)
        return rc;
    if (*buflen < 0)
        return smap_failf(MPI_ERR_ARG, "*buflen=%d is negative", *buflen);
    if (*buflen > 0 && !value)
        return smap_failf(MPI_ERR_ARG, "value is NULL but *buflen=%d", *buflen);
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

int smap_info_get_valuelen(const struct MPI_ABI_Info *i, const char *key, int *valuelen, int *flag)
{
    int rc = check_key(key);
    if (rc != MPI_SUCCESS)
        return rc;
    const char *v = smap_info_lookup(i, key);
    *flag = v != NULL;
    if (v)
        *valuelen = (int)strlen(v);
    return MPI_SUCCESS;
}

void smap_info_nkeys(const struct MPI_ABI_Info *i, int *nkeys)
{
    *nkeys = i->n;
}

int smap_info_nthkey(const struct MPI_ABI_Info *i, int n, char *key)
{
    if (n < 0 || n >= i->n)
        return smap_failf(MPI_ERR_ARG, "n=%d is not in [0, %d), the number of keys", n, i->n);
    strcpy(key, i->e[n].key);   /* shorter than MPI_MAX_INFO_KEY: checked by MPI_Info_set */
    return MPI_SUCCESS;
}

int smap_info_free_handle(MPI_Info *info, struct MPI_ABI_Info *i)
{
    if (i->read_only)
        return smap_fail(MPI_ERR_INFO, "MPI_INFO_ENV is predefined: it cannot be freed");
    smap_info_free(i);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

/* ---- communicator hints ---- */

/* The hints we accept (MPI-5.0 section 7.4.4): assertions a later matching
 * engine may exploit.  Their values are "true" or "false"; other keys and
 * values are ignored, as the standard allows.  MPI_INFO_NULL: no change. */
int smap_comm_set_info(struct MPI_ABI_Comm *c, MPI_Info info)
{
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    struct MPI_ABI_Info *i = smap_info_get(info);
    if (!i)
        return smap_fail(MPI_ERR_INFO, "info is not a valid info object");
    int rc = smap_comm_take_hints(c, i);
    return rc == MPI_SUCCESS ? rc : smap_fail(rc, "out of memory");
}

int smap_comm_get_info(const struct MPI_ABI_Comm *c, MPI_Info *info_used)
{
    return hand_out(c->hints ? smap_info_dup(c->hints) : smap_info_new(), info_used);
}
