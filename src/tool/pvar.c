/* Performance variables: the counters src/p2p keeps (one plain add each on
 * paths that do far more), queue lengths counted when read, and the copy
 * engine's level.
 *
 * Counters are per handle, as the standard has them: a handle starts
 * stopped; while started it accumulates what the library counted since
 * (value = accumulated + (now - at start)), so two handles, or two
 * sessions, never disturb each other.  They can be reset and written
 * (that sets the handle's value).  Queue lengths and the copy level are
 * continuous and read-only: they are the library's state, not a count. */
#include "tool/tool.h"

#include <stdlib.h>
#include <string.h>

#include "p2p/p2p.h"
#include "smap/smap.h"

enum pvar_id {
    PV_SENT, PV_SENT_BYTES, PV_RECVD, PV_RECVD_BYTES, PV_UNEXPECTED, PV_RNDV_DIRECT,
    PV_RNDV_CMA, PV_RNDV_STREAMED, PV_POSTED_LEN, PV_UNEXPECTED_LEN, PV_COPY_LEVEL, PV_N
};

struct pvar_desc {
    const char *name, *desc;
    int var_class, verbosity;
    enum smap_tool_cat category;
};

static const struct pvar_desc pvars[PV_N] = {
    [PV_SENT] = { "smap_p2p_messages_sent",
                  "point-to-point messages this process handed to a node peer's queue "
                  "(the library's own protocol messages included)",
                  MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_USER_BASIC, SMAP_CAT_P2P },
    [PV_SENT_BYTES] = { "smap_p2p_bytes_sent", "packed bytes of the messages sent",
                        MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_USER_BASIC, SMAP_CAT_P2P },
    [PV_RECVD] = { "smap_p2p_messages_received",
                   "point-to-point messages matched to a receive of this process",
                   MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_USER_BASIC, SMAP_CAT_P2P },
    [PV_RECVD_BYTES] = { "smap_p2p_bytes_received",
                         "bytes of the messages received (as sent, before truncation)",
                         MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_USER_BASIC, SMAP_CAT_P2P },
    [PV_UNEXPECTED] = { "smap_p2p_unexpected_arrivals",
                        "messages that arrived before a matching receive was posted",
                        MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_BASIC, SMAP_CAT_P2P },
    [PV_RNDV_DIRECT] = { "smap_p2p_rndv_direct",
                         "rendezvous messages copied once by direct load/store (SMARTMAP)",
                         MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_BASIC,
                         SMAP_CAT_MEMORY },
    [PV_RNDV_CMA] = { "smap_p2p_rndv_cma",
                      "rendezvous messages copied once by process_vm_readv (CMA)",
                      MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_BASIC, SMAP_CAT_MEMORY },
    [PV_RNDV_STREAMED] = { "smap_p2p_rndv_streamed",
                           "rendezvous messages streamed through shared bounce cells "
                           "(unreachable or non-contiguous buffers)",
                           MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_BASIC,
                           SMAP_CAT_MEMORY },
    [PV_POSTED_LEN] = { "smap_p2p_posted_queue_length", "receives posted and not matched yet",
                        MPI_T_PVAR_CLASS_LEVEL, MPI_T_VERBOSITY_TUNER_BASIC, SMAP_CAT_P2P },
    [PV_UNEXPECTED_LEN] = { "smap_p2p_unexpected_queue_length",
                            "arrived messages no receive has matched yet",
                            MPI_T_PVAR_CLASS_LEVEL, MPI_T_VERBOSITY_TUNER_BASIC, SMAP_CAT_P2P },
    [PV_COPY_LEVEL] = { "smap_copy_level",
                        "best level the copy engine may use (SMAP_COPY): direct, cma or bounce",
                        MPI_T_PVAR_CLASS_STATE, MPI_T_VERBOSITY_USER_BASIC, SMAP_CAT_MEMORY },
};

static int is_counter(int id)
{
    return pvars[id].var_class == MPI_T_PVAR_CLASS_COUNTER;
}

static uint64_t current(int id)
{
    struct smap_p2p_stats st;
    uint64_t posted, unexpected;
    switch (id) {
    case PV_POSTED_LEN:
    case PV_UNEXPECTED_LEN:
        smap_p2p_queue_lengths(&posted, &unexpected);
        return id == PV_POSTED_LEN ? posted : unexpected;
    case PV_COPY_LEVEL: return (uint64_t)smap_caps.copy_level;
    default: break;
    }
    smap_p2p_stats_snapshot(&st);
    switch (id) {
    case PV_SENT: return st.sent;
    case PV_SENT_BYTES: return st.sent_bytes;
    case PV_RECVD: return st.recvd;
    case PV_RECVD_BYTES: return st.recvd_bytes;
    case PV_UNEXPECTED: return st.unexpected;
    case PV_RNDV_DIRECT: return st.rndv[SMAP_COPY_DIRECT];
    case PV_RNDV_CMA: return st.rndv[SMAP_COPY_CMA];
    case PV_RNDV_STREAMED: return st.rndv[SMAP_COPY_BOUNCE];
    }
    return 0;
}

int smap_pvar_num(void)
{
    return PV_N;
}

int smap_pvar_info(int index, struct smap_pvar_info *out)
{
    if (index < 0 || index >= PV_N)
        return MPI_T_ERR_INVALID_INDEX;
    const struct pvar_desc *d = &pvars[index];
    out->name = d->name;
    out->desc = d->desc;
    out->verbosity = d->verbosity;
    out->var_class = d->var_class;
    out->bind = MPI_T_BIND_NO_OBJECT;
    out->readonly = !is_counter(index);
    out->continuous = !is_counter(index);
    out->atomic = is_counter(index);   /* readreset runs under the tool lock */
    out->category = d->category;
    out->datatype = index == PV_COPY_LEVEL ? MPI_INT : MPI_UNSIGNED_LONG_LONG;
    out->enumtype = index == PV_COPY_LEVEL ? smap_tool_enum(SMAP_ENUM_COPY_LEVEL)
                                           : MPI_T_ENUM_NULL;
    return MPI_SUCCESS;
}

int smap_pvar_index(const char *name, int var_class, int *index)
{
    for (int i = 0; i < PV_N; i++)
        if (!strcmp(pvars[i].name, name)) {
            if (pvars[i].var_class != var_class)
                return MPI_T_ERR_INVALID_NAME;
            *index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

/* ---- sessions and handles -------------------------------------------- */

struct MPI_ABI_T_pvar_handle {
    int index;
    int started;
    uint64_t accum;      /* counted while started, up to the last stop */
    uint64_t base;       /* the library's count when last started */
    struct MPI_ABI_T_pvar_handle *next;
};

struct MPI_ABI_T_pvar_session {
    struct MPI_ABI_T_pvar_handle *handles;
    struct MPI_ABI_T_pvar_session *next;
};

static struct MPI_ABI_T_pvar_session *sessions;

static struct MPI_ABI_T_pvar_session *session_get(MPI_T_pvar_session s)
{
    for (struct MPI_ABI_T_pvar_session *p = sessions; p; p = p->next)
        if (p == s)
            return p;
    return NULL;
}

static struct MPI_ABI_T_pvar_handle *handle_get(struct MPI_ABI_T_pvar_session *s,
                                                MPI_T_pvar_handle h)
{
    for (struct MPI_ABI_T_pvar_handle *p = s->handles; p; p = p->next)
        if (p == h)
            return p;
    return NULL;
}

int smap_pvar_session_create(MPI_T_pvar_session *session)
{
    struct MPI_ABI_T_pvar_session *s = calloc(1, sizeof *s);
    if (!s)
        return MPI_T_ERR_MEMORY;
    s->next = sessions;
    sessions = s;
    *session = s;
    return MPI_SUCCESS;
}

static void session_destroy(struct MPI_ABI_T_pvar_session *s)
{
    while (s->handles) {
        struct MPI_ABI_T_pvar_handle *h = s->handles;
        s->handles = h->next;
        free(h);
    }
    free(s);
}

int smap_pvar_session_free(MPI_T_pvar_session *session)
{
    for (struct MPI_ABI_T_pvar_session **pp = &sessions; *pp; pp = &(*pp)->next)
        if (*pp == *session) {
            struct MPI_ABI_T_pvar_session *s = *pp;
            *pp = s->next;
            session_destroy(s);
            *session = MPI_T_PVAR_SESSION_NULL;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_SESSION;
}

void smap_pvar_free_all(void)
{
    while (sessions) {
        struct MPI_ABI_T_pvar_session *s = sessions;
        sessions = s->next;
        session_destroy(s);
    }
}

int smap_pvar_handle_alloc(MPI_T_pvar_session session, int index, MPI_T_pvar_handle *handle,
                           int *count)
{
    struct MPI_ABI_T_pvar_session *s = session_get(session);
    if (!s)
        return MPI_T_ERR_INVALID_SESSION;
    if (index < 0 || index >= PV_N)
        return MPI_T_ERR_INVALID_INDEX;
    struct MPI_ABI_T_pvar_handle *h = calloc(1, sizeof *h);
    if (!h)
        return MPI_T_ERR_MEMORY;
    h->index = index;
    h->started = !is_counter(index);   /* continuous variables always run */
    h->next = s->handles;
    s->handles = h;
    *handle = h;
    *count = 1;
    return MPI_SUCCESS;
}

int smap_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    struct MPI_ABI_T_pvar_session *s = session_get(session);
    if (!s)
        return MPI_T_ERR_INVALID_SESSION;
    for (struct MPI_ABI_T_pvar_handle **pp = &s->handles; *pp; pp = &(*pp)->next)
        if (*pp == *handle) {
            struct MPI_ABI_T_pvar_handle *h = *pp;
            *pp = h->next;
            free(h);
            *handle = MPI_T_PVAR_HANDLE_NULL;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_HANDLE;
}

static uint64_t value_of(const struct MPI_ABI_T_pvar_handle *h)
{
    if (!is_counter(h->index))
        return current(h->index);
    return h->accum + (h->started ? current(h->index) - h->base : 0);
}

/* One operation on one handle; a handle it does not apply to gives the
 * error the standard names. */
static int control_one(struct MPI_ABI_T_pvar_handle *h, enum smap_pvar_op op)
{
    if (!is_counter(h->index))
        return op == SMAP_PVAR_RESET ? MPI_T_ERR_PVAR_NO_WRITE : MPI_T_ERR_PVAR_NO_STARTSTOP;
    switch (op) {
    case SMAP_PVAR_START:
        if (!h->started) {
            h->base = current(h->index);
            h->started = 1;
        }
        break;
    case SMAP_PVAR_STOP:
        if (h->started) {
            h->accum += current(h->index) - h->base;
            h->started = 0;
        }
        break;
    case SMAP_PVAR_RESET:
        h->accum = 0;
        h->base = current(h->index);
        break;
    }
    return MPI_SUCCESS;
}

int smap_pvar_control(MPI_T_pvar_session session, MPI_T_pvar_handle handle, enum smap_pvar_op op)
{
    struct MPI_ABI_T_pvar_session *s = session_get(session);
    if (!s)
        return MPI_T_ERR_INVALID_SESSION;
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        /* All handles of the session the operation applies to; the others
         * (continuous or read-only variables) are left alone. */
        for (struct MPI_ABI_T_pvar_handle *h = s->handles; h; h = h->next)
            if (is_counter(h->index))
                (void)control_one(h, op);
        return MPI_SUCCESS;
    }
    struct MPI_ABI_T_pvar_handle *h = handle_get(s, handle);
    if (!h)
        return MPI_T_ERR_INVALID_HANDLE;
    return control_one(h, op);
}

static void store(const struct MPI_ABI_T_pvar_handle *h, uint64_t v, void *buf)
{
    if (h->index == PV_COPY_LEVEL)
        *(int *)buf = (int)v;
    else
        *(unsigned long long *)buf = v;
}

int smap_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf, int reset)
{
    struct MPI_ABI_T_pvar_session *s = session_get(session);
    if (!s)
        return MPI_T_ERR_INVALID_SESSION;
    struct MPI_ABI_T_pvar_handle *h = handle == MPI_T_PVAR_ALL_HANDLES ? NULL
                                                                        : handle_get(s, handle);
    if (!h)
        return MPI_T_ERR_INVALID_HANDLE;
    if (reset && !is_counter(h->index))
        return MPI_T_ERR_PVAR_NO_WRITE;
    store(h, value_of(h), buf);
    if (reset)
        (void)control_one(h, SMAP_PVAR_RESET);
    return MPI_SUCCESS;
}

int smap_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    struct MPI_ABI_T_pvar_session *s = session_get(session);
    if (!s)
        return MPI_T_ERR_INVALID_SESSION;
    struct MPI_ABI_T_pvar_handle *h = handle == MPI_T_PVAR_ALL_HANDLES ? NULL
                                                                        : handle_get(s, handle);
    if (!h)
        return MPI_T_ERR_INVALID_HANDLE;
    if (!is_counter(h->index))
        return MPI_T_ERR_PVAR_NO_WRITE;
    h->accum = *(const unsigned long long *)buf;
    h->base = current(h->index);
    return MPI_SUCCESS;
}
