/* Info objects: ordered (key, value) string pairs.
 *
 * Keys keep the order of their first MPI_Info_set (MPI_Info_get_nthkey
 * walks it; setting an existing key replaces its value in place).  Limits,
 * checked by the bindings: a key has 1..MPI_MAX_INFO_KEY-1 characters, a
 * value 1..MPI_MAX_INFO_VAL-1, so both always fit in the char arrays of
 * those sizes that programs declare.
 *
 * MPI_INFO_ENV is a predefined handle resolving to a read-only object
 * built on first use (MPI_Info_create_env's keys for this process). */
#ifndef SMAP_MPI_INFO_H
#define SMAP_MPI_INFO_H

#include <mpi.h>
#include <stdint.h>

#define SMAP_INFO_MAGIC 0x494e464fu  /* "INFO" */

struct smap_info_entry {
    char *key, *value;
};

struct MPI_ABI_Info {
    uint32_t magic;
    int read_only;                 /* MPI_INFO_ENV */
    int n, cap;
    struct smap_info_entry *e;
};

/* The object behind a handle (MPI_INFO_ENV included), or NULL for
 * MPI_INFO_NULL and anything that is not a live info object. */
struct MPI_ABI_Info *smap_info_get(MPI_Info h);
MPI_Info smap_info_handle(struct MPI_ABI_Info *info);

/* New objects, or NULL when out of memory. */
struct MPI_ABI_Info *smap_info_new(void);
struct MPI_ABI_Info *smap_info_dup(const struct MPI_ABI_Info *info);
/* The keys of MPI_Info_create_env for this process; argv may be NULL (then
 * the command line comes from /proc/self/cmdline). */
struct MPI_ABI_Info *smap_info_new_env(int argc, char **argv);
void smap_info_free(struct MPI_ABI_Info *info);   /* NULL and MPI_INFO_ENV: no-op */

/* 0, or -1 when out of memory. */
int smap_info_set(struct MPI_ABI_Info *info, const char *key, const char *value);
/* The value, or NULL when key is absent. */
const char *smap_info_lookup(const struct MPI_ABI_Info *info, const char *key);
/* 0, or -1 when key is absent. */
int smap_info_remove(struct MPI_ABI_Info *info, const char *key);

/* ---- The MPI_Info_* operations and the communicator hints (info_api.c),
 * called by the generated entry points once the handles and pointers are
 * checked: MPI_SUCCESS or an error class, the reason recorded (base/why.h):
 * key or value too long or empty, MPI_INFO_ENV written, key absent, out of
 * memory. ---- */
struct MPI_ABI_Comm;
int smap_info_create(MPI_Info *info);
int smap_info_create_env(int argc, char *argv[], MPI_Info *info);
int smap_info_dup_into(const struct MPI_ABI_Info *i, MPI_Info *newinfo);
int smap_info_set_checked(struct MPI_ABI_Info *i, const char *key, const char *value);
int smap_info_delete(struct MPI_ABI_Info *i, const char *key);
int smap_info_get_value(const struct MPI_ABI_Info *i, const char *key, int valuelen, char *value,
                        int *flag);
int smap_info_get_string(const struct MPI_ABI_Info *i, const char *key, int *buflen, char *value,
                         int *flag);
int smap_info_get_valuelen(const struct MPI_ABI_Info *i, const char *key, int *valuelen, int *flag);
void smap_info_nkeys(const struct MPI_ABI_Info *i, int *nkeys);
int smap_info_nthkey(const struct MPI_ABI_Info *i, int n, char *key);
/* MPI_Info_free of the program's handle *info to i. */
int smap_info_free_handle(MPI_Info *info, struct MPI_ABI_Info *i);
/* MPI_Comm_set_info (info may be MPI_INFO_NULL) and MPI_Comm_get_info. */
int smap_comm_set_info(struct MPI_ABI_Comm *c, MPI_Info info);
int smap_comm_get_info(const struct MPI_ABI_Comm *c, MPI_Info *info_used);

#endif
