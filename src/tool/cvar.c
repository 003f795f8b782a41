/* Control variables: one per row of base/tunables.def, generated from the
 * table (a tunable added there is a control variable at once, readable and
 * in the root category).  What may be written, and when, is decided here
 * per tunable — by name, so that the table keeps its one format:
 *
 *   SMAP_VERBOSE      any time   log level of this process
 *   SMAP_EAGER_LIMIT  any time   only the sender's own eager/rendezvous choice
 *   SMAP_SPLIT_MIN    any time   only the receiver's own choice to split a copy
 *   SMAP_COLL_ALGO    any time   every rank must hold the same value (ALL_EQ)
 *                                when it enters a collective
 *   SMAP_THREAD_LEVEL, SMAP_NODE_NAME, SMAP_COPY, SMAP_ATTACH
 *                     before MPI_Init (read once when the runtime starts;
 *                     MPI_T_ERR_CVAR_SET_NOT_NOW afterwards)
 *   SMAP_EXPOSE, SMAP_HEAP_SLOT
 *                     constant: fixed before main() runs (src/smap/ctor.c)
 *   anything else     read-only until someone decides otherwise here. */
#include "tool/tool.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/tunables.h"
#include "coll/select.h"
#include "mpi/runtime.h"
#include "p2p/p2p.h"
#include "smap/smap.h"

/* Room for a string value (count of an MPI_CHAR control variable). */
#define SMAP_CVAR_STR_MAX 256

enum when { NEVER, BEFORE_INIT, ANY_TIME };

struct policy {
    const char *name;              /* without SMAP_ */
    enum smap_tool_cat category;
    int verbosity, scope;
    enum when when;
    int enum_id;                   /* -1: none */
    /* Checks a new value (NULL: anything of the type); 0 accepts. */
    int (*check)(const void *value);
    void (*apply)(void);           /* after the write, NULL: nothing */
};

static int check_verbose(const void *v)
{
    int64_t x = *(const int64_t *)v;
    return x >= 0 && x <= 3 ? 0 : -1;
}

static int check_thread_level(const void *v)
{
    static const char *ok[] = { "single", "funneled", "serialized", "multiple" };
    for (size_t i = 0; i < 4; i++)
        if (!strcmp(*(const char *const *)v, ok[i]))
            return 0;
    return -1;
}

static int check_copy(const void *v)
{
    return smap_parse_copy_level(*(const char *const *)v) >= 0 ? 0 : -1;
}

static int check_attach(const void *v)
{
    return smap_attach_parse(*(const char *const *)v) >= 0 ? 0 : -1;
}

static int check_coll_algo(const void *v)
{
    const char *s = *(const char *const *)v;
    return !strcmp(s, "auto") || !strcmp(s, "inline") || !strcmp(s, "direct") ? 0 : -1;
}

static void apply_verbose(void)
{
    smap_log_set_level((int)smap_tun.verbose);
}

static const struct policy policies[] = {
    { "VERBOSE", SMAP_CAT_RUNTIME, MPI_T_VERBOSITY_USER_BASIC, MPI_T_SCOPE_LOCAL, ANY_TIME,
      SMAP_ENUM_VERBOSITY, check_verbose, apply_verbose },
    { "THREAD_LEVEL", SMAP_CAT_RUNTIME, MPI_T_VERBOSITY_USER_BASIC, MPI_T_SCOPE_LOCAL,
      BEFORE_INIT, -1, check_thread_level, NULL },
    { "NODE_NAME", SMAP_CAT_RUNTIME, MPI_T_VERBOSITY_USER_DETAIL, MPI_T_SCOPE_LOCAL,
      BEFORE_INIT, -1, NULL, NULL },
    { "EXPOSE", SMAP_CAT_MEMORY, MPI_T_VERBOSITY_USER_DETAIL, MPI_T_SCOPE_CONSTANT, NEVER, -1,
      NULL, NULL },
    { "COPY", SMAP_CAT_MEMORY, MPI_T_VERBOSITY_USER_BASIC, MPI_T_SCOPE_ALL_EQ, BEFORE_INIT, -1,
      check_copy, NULL },
    { "HEAP_SLOT", SMAP_CAT_MEMORY, MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_SCOPE_CONSTANT, NEVER,
      -1, NULL, NULL },
    { "ATTACH", SMAP_CAT_MEMORY, MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_SCOPE_ALL_EQ, BEFORE_INIT,
      -1, check_attach, NULL },
    { "EAGER_LIMIT", SMAP_CAT_P2P, MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_SCOPE_LOCAL, ANY_TIME, -1,
      NULL, smap_p2p_tunables_changed },
    { "SPLIT_MIN", SMAP_CAT_P2P, MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_SCOPE_LOCAL, ANY_TIME, -1,
      NULL, smap_p2p_tunables_changed },
    { "COLL_ALGO", SMAP_CAT_COLL, MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_SCOPE_ALL_EQ, ANY_TIME, -1,
      check_coll_algo, smap_coll_select_reload },
};

static const struct policy unknown = { NULL, SMAP_CAT_ROOT, MPI_T_VERBOSITY_TUNER_DETAIL,
                                       MPI_T_SCOPE_READONLY, NEVER, -1, NULL, NULL };

static const struct policy *policy_of(size_t i)
{
    for (size_t k = 0; k < sizeof policies / sizeof policies[0]; k++)
        if (!strcmp(policies[k].name, smap_tunable_table[i].name))
            return &policies[k];
    return &unknown;
}

/* The smap_tun field of row i (generated from the table). */
static void *field_of(size_t i)
{
    size_t k = 0;
#define SMAP_TUNABLE(NAME, field, TYPE, def, doc) \
    if (k++ == i)                                \
        return &smap_tun.field;
#include "base/tunables.def"
#undef SMAP_TUNABLE
    return NULL;
}

/* Full names ("SMAP_EAGER_LIMIT", the environment variable) built once. */
static char (*names)[64];

static const char *name_of(size_t i)
{
    if (!names) {
        names = calloc(smap_tunable_count, sizeof *names);
        if (!names)
            return smap_tunable_table[i].name;
        for (size_t k = 0; k < smap_tunable_count; k++) {
            memcpy(names[k], "SMAP_", 5);
            strncpy(names[k] + 5, smap_tunable_table[k].name, sizeof names[k] - 6);
        }
    }
    return names[i];
}

int smap_cvar_num(void)
{
    return (int)smap_tunable_count;
}

static MPI_Datatype datatype_of(enum smap_tunable_type t)
{
    switch (t) {
    case SMAP_TUNABLE_INT:
    case SMAP_TUNABLE_BOOL: return MPI_INT;
    case SMAP_TUNABLE_SIZE: return MPI_UNSIGNED_LONG_LONG;
    case SMAP_TUNABLE_STR: return MPI_CHAR;
    }
    return MPI_DATATYPE_NULL;
}

int smap_cvar_info(int index, struct smap_cvar_info *out)
{
    if (index < 0 || (size_t)index >= smap_tunable_count)
        return MPI_T_ERR_INVALID_INDEX;
    const struct smap_tunable_desc *d = &smap_tunable_table[index];
    const struct policy *p = policy_of((size_t)index);
    out->name = name_of((size_t)index);
    out->desc = d->doc;
    out->verbosity = p->verbosity;
    out->bind = MPI_T_BIND_NO_OBJECT;
    out->scope = p->scope;
    out->category = p->category;
    out->datatype = datatype_of(d->type);
    out->enumtype = p->enum_id >= 0 ? smap_tool_enum(p->enum_id) : MPI_T_ENUM_NULL;
    out->count = d->type == SMAP_TUNABLE_STR ? SMAP_CVAR_STR_MAX : 1;
    return MPI_SUCCESS;
}

int smap_cvar_index(const char *name, int *index)
{
    for (size_t i = 0; i < smap_tunable_count; i++)
        if (!strcmp(name, name_of(i))) {
            *index = (int)i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

/* ---- handles ---------------------------------------------------------- */

#define SMAP_CVAR_MAGIC 0x43564152u   /* "CVAR" */

struct MPI_ABI_T_cvar_handle {
    unsigned magic;
    int index;
    struct MPI_ABI_T_cvar_handle *next;
};

static struct MPI_ABI_T_cvar_handle *live;   /* every allocated handle */
/* Written string values: smap_tun points into these (a default or an
 * environment value is never freed, a written one lives here). */
static char (*strings)[SMAP_CVAR_STR_MAX];

static struct MPI_ABI_T_cvar_handle *handle_get(MPI_T_cvar_handle h)
{
    for (struct MPI_ABI_T_cvar_handle *c = live; c; c = c->next)
        if (c == h)
            return c;
    return NULL;
}

int smap_cvar_handle_alloc(int index, MPI_T_cvar_handle *handle, int *count)
{
    struct smap_cvar_info info;
    int rc = smap_cvar_info(index, &info);
    if (rc != MPI_SUCCESS)
        return rc;
    struct MPI_ABI_T_cvar_handle *c = malloc(sizeof *c);
    if (!c)
        return MPI_T_ERR_MEMORY;
    c->magic = SMAP_CVAR_MAGIC;
    c->index = index;
    c->next = live;
    live = c;
    *handle = c;
    *count = info.count;
    return MPI_SUCCESS;
}

int smap_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    for (struct MPI_ABI_T_cvar_handle **pp = &live; *pp; pp = &(*pp)->next)
        if (*pp == *handle) {
            struct MPI_ABI_T_cvar_handle *c = *pp;
            *pp = c->next;
            c->magic = 0;
            free(c);
            *handle = MPI_T_CVAR_HANDLE_NULL;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_HANDLE;
}

void smap_cvar_free_all(void)
{
    while (live) {
        struct MPI_ABI_T_cvar_handle *c = live;
        live = c->next;
        free(c);
    }
}

int smap_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    struct MPI_ABI_T_cvar_handle *c = handle_get(handle);
    if (!c)
        return MPI_T_ERR_INVALID_HANDLE;
    const void *f = field_of((size_t)c->index);
    switch (smap_tunable_table[c->index].type) {
    case SMAP_TUNABLE_INT: {
        int64_t v = *(const int64_t *)f;
        *(int *)buf = v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v;
        break;
    }
    case SMAP_TUNABLE_BOOL: *(int *)buf = *(const bool *)f; break;
    case SMAP_TUNABLE_SIZE: *(unsigned long long *)buf = *(const uint64_t *)f; break;
    case SMAP_TUNABLE_STR: {
        const char *s = *(const char *const *)f;
        int len = SMAP_CVAR_STR_MAX;
        smap_tool_str(s ? s : "", buf, &len);
        break;
    }
    }
    return MPI_SUCCESS;
}

/* The new value in the field's own representation (a string stays the
 * caller's until it is copied in). */
union value {
    int64_t i;
    uint64_t u;
    bool b;
    const char *s;
};

static int convert(enum smap_tunable_type t, const void *buf, union value *v)
{
    switch (t) {
    case SMAP_TUNABLE_INT: v->i = *(const int *)buf; return 0;
    case SMAP_TUNABLE_BOOL: v->b = *(const int *)buf != 0; return 0;
    case SMAP_TUNABLE_SIZE: v->u = *(const unsigned long long *)buf; return 0;
    case SMAP_TUNABLE_STR:
        v->s = buf;
        return memchr(buf, '\0', SMAP_CVAR_STR_MAX) ? 0 : -1;
    }
    return -1;
}

int smap_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    struct MPI_ABI_T_cvar_handle *c = handle_get(handle);
    if (!c)
        return MPI_T_ERR_INVALID_HANDLE;
    size_t i = (size_t)c->index;
    const struct policy *p = policy_of(i);
    if (p->when == NEVER)
        return MPI_T_ERR_CVAR_SET_NEVER;
    if (p->when == BEFORE_INIT && atomic_load(&smap_state) != SMAP_STATE_NEW)
        return MPI_T_ERR_CVAR_SET_NOT_NOW;
    enum smap_tunable_type t = smap_tunable_table[i].type;
    union value v;
    char why[160];
    if (convert(t, buf, &v) != 0 || (p->check && p->check(&v) != 0) ||
        smap_tunable_check(&smap_tunable_table[i], &v, why, sizeof why) != 0)
        return MPI_T_ERR_INVALID;
    void *f = field_of(i);
    switch (t) {
    case SMAP_TUNABLE_INT: *(int64_t *)f = v.i; break;
    case SMAP_TUNABLE_BOOL: *(bool *)f = v.b; break;
    case SMAP_TUNABLE_SIZE: *(uint64_t *)f = v.u; break;
    case SMAP_TUNABLE_STR:
        if (!strings && !(strings = calloc(smap_tunable_count, sizeof *strings)))
            return MPI_T_ERR_MEMORY;
        /* Copy first: the caller may pass the value read back from us. */
        memmove(strings[i], v.s, strlen(v.s) + 1);
        *(const char **)f = strings[i];
        break;
    }
    if (p->apply)
        p->apply();
    return MPI_SUCCESS;
}
