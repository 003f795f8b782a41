/* Communicators: the predefined MPI_COMM_WORLD and MPI_COMM_SELF (static
 * objects behind small handles) and user ones (malloc'd, the handle is the
 * object).  All of one node (intracommunicators only). */
#ifndef SMAP_MPI_COMM_H
#define SMAP_MPI_COMM_H

#include <mpi.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>

#define SMAP_COMM_MAGIC 0x434f4d4du  /* "COMM": tells our objects from garbage */

struct MPI_ABI_Group;
struct MPI_ABI_Info;
struct MPI_ABI_Session;
struct smap_attr;
struct smap_topo;
struct smap_hier;
struct smap_coll_ops;

struct MPI_ABI_Comm {
    uint32_t magic;
    int rank, size;
    int ctx;                     /* context id: matching keeps communicators apart (WORLD 0, SELF 1) */
    MPI_Errhandler errhandler;   /* predefined handle or user object */
    char name[MPI_MAX_OBJECT_NAME];
    /* How it was made, for messages while it has no name ("a communicator
     * made by MPI_Comm_split from MPI_COMM_WORLD"); truncated when long. */
    char origin[192];
    MPI_Comm handle;             /* what users hold: MPI_COMM_WORLD, or the object itself */
    struct MPI_ABI_Group *group; /* one reference (src/mpi/group.h) */
    struct smap_attr *attrs;     /* cached attributes, newest first (src/mpi/attr.h) */
    struct MPI_ABI_Info *hints;  /* info hints accepted by MPI_Comm_set_info, or NULL */
    int slot;                    /* collectives control block (src/coll), or -1: none free */
    /* Which implementation runs its collectives (src/coll/dispatch.c):
     * NULL until its first collective, then one of coll's tables. */
    const struct smap_coll_ops *_Atomic coll;
    /* Intercommunicators (src/mpi/intercomm.h): the remote group (one
     * reference), NULL for an intracommunicator.  local_comm is unused
     * (NULL): the intercommunicator collectives run over point-to-point. */
    struct MPI_ABI_Group *remote_group;
    struct MPI_ABI_Comm *local_comm;
    struct smap_topo *topo;      /* virtual topology (src/topo), or NULL */
    struct smap_bpool *bpool;    /* MPI_Comm_attach_buffer's pool (mpi/bsend.c), or NULL */
    /* The session the communicator derives from (MPI_Comm_create_from_group
     * and the like, then inherited from the parent), one reference, or NULL
     * (the world model): its buffer serves buffered sends here when the
     * communicator has none of its own. */
    struct MPI_ABI_Session *session;
    /* Communicators spanning nodes: the hierarchy's state (src/coll/hier:
     * node and leaders sub-communicators), built on the first collective. */
    struct smap_hier *hier;
    uint32_t nbc_seq;            /* non-blocking collectives started here (src/coll/sched) */
    /* User communicators: one reference for the user's handle plus one per
     * request alive on it (src/mpi/request.c), so that MPI_Comm_free with
     * operations pending destroys the object only once they are gone
     * (MPI 5.0 §7.4.3).  Unused for WORLD and SELF. */
    _Atomic int refs;
    /* Of those, the references of inactive persistent requests (never
     * started, or completed): no pending communication, so
     * MPI_Comm_disconnect does not wait for them (MPI 5.0 §11.10.4). */
    _Atomic int idle_refs;
    struct MPI_ABI_Comm *live_prev, *live_next;   /* live user communicators */
};

/* Context ids: WORLD 0, SELF 1, user communicators any other id below
 * SMAP_CTX_MAX, agreed on by the members at creation from their masks of
 * ids free here (bit set = free), so that no two live communicators of a
 * rank share one.  Point-to-point matches on it.  Ids are cheap (a bit of a
 * mask; the agreement's allreduce carries the mask, 4 KiB): 2^15 of them
 * leave 24574 communicators alive at once to the blocking constructors,
 * with a quarter of the ids kept for MPI_Comm_idup.  Ids stay below 2^15:
 * partitioned communication and the collectives' internal contexts put
 * their own bits above them (src/mpi/partitioned.c, src/coll/sched). */
#define SMAP_CTX_MAX 32768
#define SMAP_CTX_WORDS (SMAP_CTX_MAX / 32)
/* Context ids [SMAP_CTX_NB_FIRST, SMAP_CTX_MAX) are for non-blocking
 * agreements only, the others for blocking ones (comm.c). */
#define SMAP_CTX_NB_FIRST (SMAP_CTX_MAX - SMAP_CTX_MAX / 4)
/* How many communicators can be alive at once, made by blocking
 * constructors (WORLD and SELF hold two ids); the class and message when
 * the ids run out. */
#define SMAP_COMM_LIVE_MAX (SMAP_CTX_NB_FIRST - 2)
#define SMAP_ERR_NO_CTX MPI_ERR_OTHER
#define SMAP_NO_CTX_WHY "no context id is free on every member: at most %d communicators " \
                        "can be alive at once (and %d more through MPI_Comm_idup)"
#define SMAP_NO_CTX_ARGS SMAP_COMM_LIVE_MAX, SMAP_CTX_MAX - SMAP_CTX_NB_FIRST

extern struct MPI_ABI_Comm smap_comm_world, smap_comm_self;

/* Whether a user handle may point to one of our objects, before its magic
 * is read: predefined handles and integers passed as handles are small
 * (nothing is mapped below vm.mmap_min_addr, 64 KiB on Linux), and our
 * objects are aligned.  A wild pointer beyond that is not detected. */
static inline int smap_plausible_object(const void *h, size_t align)
{
    return (uintptr_t)h >= 65536 && (uintptr_t)h % align == 0;
}

/* Sets up WORLD and SELF from the job's identity (after boot). */
void smap_comm_init(int rank, int size);
/* Whether every member of g lives on this node.  Only such communicators
 * get a collectives control block (coll/smap works through node memory);
 * the others run their collectives as schedules over point-to-point. */
int smap_comm_group_on_node(const struct MPI_ABI_Group *g);
/* Whether g holds processes of another job (src/spawn: world ranks from
 * smap_job.size on). */
int smap_comm_group_foreign(const struct MPI_ABI_Group *g);
/* 1 when a live communicator (not freed, or with requests still in
 * flight) holds job rank w in one of its groups (src/spawn: a process of
 * another job whose route can go once no communicator reaches it). */
int smap_comm_live_holds(int w);
/* First step of MPI_Finalize: runs MPI_COMM_SELF's attribute callbacks. */
void smap_comm_finalize_begin(void);
/* Releases what the predefined communicators hold: their attributes (delete
 * callbacks run, MPI_COMM_SELF's first, as MPI_Finalize must), hints and
 * user error handlers. */
void smap_comm_finalize(void);

/* The object behind a handle, or NULL for MPI_COMM_NULL and anything that is
 * not a live communicator (a freed one has its magic cleared). */
static inline struct MPI_ABI_Comm *smap_comm_get(MPI_Comm h)
{
    if (h == MPI_COMM_WORLD)
        return &smap_comm_world;
    if (h == MPI_COMM_SELF)
        return &smap_comm_self;
    if (!smap_plausible_object(h, _Alignof(struct MPI_ABI_Comm)))
        return NULL;
    struct MPI_ABI_Comm *c = h;
    return c->magic == SMAP_COMM_MAGIC ? c : NULL;
}

/* What messages call c: its name, else how it was made. */
const char *smap_comm_label(const struct MPI_ABI_Comm *c);
/* Records in c->origin that func made it from parent. */
void smap_comm_set_origin(struct MPI_ABI_Comm *c, const struct MPI_ABI_Comm *parent,
                          const char *func);

static inline int smap_comm_is_predefined(const struct MPI_ABI_Comm *c)
{
    return c == &smap_comm_world || c == &smap_comm_self;
}

/* Agreeing on a context id (and a collectives control block) while other
 * threads of this rank may agree on theirs (comm.c explains the scheme).
 * A round: smap_comm_ctx_offer fills mask (SMAP_CTX_WORDS words) with the
 * ids free here and masks *slots (the free control blocks) with the
 * reserved ones -- or zeroes both and returns 0 when another agreement has
 * the offer; the members combine their masks and whether every one
 * offered; then smap_comm_ctx_settle(key, offer's result, outcome, the
 * picked ctx and slot or -1).  SMAP_CTX_AGREED reserves them for the
 * calling thread until smap_comm_ctx_release_mine (after the communicator
 * is made and its slot claimed) or its next offer; SMAP_CTX_RETRY (some
 * member did not offer) queues key for priority: run another round.
 * key: smap_comm_ctx_key(parent's ctx, tag or -1), equal on all members. */
enum { SMAP_CTX_AGREED = 0, SMAP_CTX_RETRY = 1, SMAP_CTX_ABANDON = 2 };
uint64_t smap_comm_ctx_key(int parent_ctx, int tag);
int smap_comm_ctx_offer(uint64_t key, uint32_t *mask, uint32_t *slots);
void smap_comm_ctx_settle(uint64_t key, int mine, int outcome, int ctx, int slot);
void smap_comm_ctx_release_mine(void);
/* The same, only when this thread's reservation is for ctx (a
 * communicator made for another agreement -- an idup progressed from
 * inside a blocking one -- must not drop the blocking one's). */
void smap_comm_ctx_release_mine_if(int ctx);
/* Non-blocking agreements (comm.c explains): the ids (and, masking
 * *slots, control blocks) free here; then a claim of the picked id and
 * slot (slot may be -1), returning whether ctx could be reserved and
 * setting *slot_ok when the slot could too (only with ctx); a claim is
 * undone, or its reservation dropped once the communicator is made, by
 * smap_comm_ctx_nb_release (-1: nothing). */
void smap_comm_ctx_nb_free(uint32_t *mask, uint32_t *slots);
int smap_comm_ctx_nb_claim(int ctx, int slot, uint32_t slots_free, int *slot_ok);
void smap_comm_ctx_nb_release(int ctx, int slot);
/* The lowest id set in an agreed mask, or -1 when none is free. */
int smap_comm_ctx_pick(const uint32_t *mask);
/* Blocking agreements by claims (comm.c explains): the ids free here for
 * them (SMAP_CTX_WORDS words), masking *slots (the free control blocks)
 * with the reserved and offered ones; then a claim of the picked id and
 * slot (slot may be -1; slots_free: smap_coll_slots_free()), dropping this
 * thread's earlier reservation first, returning whether ctx could be
 * reserved for the calling thread and setting *slot_ok when the slot
 * could too (only with ctx).  smap_comm_ctx_release_mine drops a claim,
 * smap_comm_ctx_unclaim_slot its slot only. */
void smap_comm_ctx_free(uint32_t *mask, uint32_t *slots);
int smap_comm_ctx_claim(int ctx, int slot, uint32_t slots_free, int *slot_ok);
void smap_comm_ctx_unclaim_slot(void);
/* The bit set in an agreed mask of nwords words that attempt `attempt`
 * of the agreement with this key picks: one that the key and attempt
 * choose (the same on every member), so that agreements running at once
 * pick apart.  -1 when none is set. */
int smap_comm_ctx_pick_spread(const uint32_t *mask, int nwords, uint64_t key, unsigned attempt);
/* A new communicator of group g (its reference is taken over; this rank
 * must be a member) with context id ctx and control block slot, inheriting
 * parent's error handler and session (g gets the session too).  No attributes, no hints, an empty name.  NULL
 * when out of memory (g is released then). */
struct MPI_ABI_Comm *smap_comm_new(const struct MPI_ABI_Comm *parent, struct MPI_ABI_Group *g,
                                   int ctx, int slot);
/* Releases what a user communicator holds and the object itself (its
 * attributes must have been deleted and its control block released). */
void smap_comm_destroy(struct MPI_ABI_Comm *c);
/* What the layers above keep on a communicator (the hierarchy's state of
 * src/coll/hier, the topology of src/topo) is freed by a hook each
 * registers (src/comm does, at start: smap_comm_layer_start), so that this
 * layer does not call them by name: run when c is destroyed, and for
 * MPI_COMM_WORLD at the final teardown.  At most SMAP_COMM_HOOKS;
 * registering one twice keeps one. */
#define SMAP_COMM_HOOKS 4
void smap_comm_on_destroy(void (*hook)(struct MPI_ABI_Comm *c));

/* Drops one reference; the last one destroys c (smap_comm_destroy).
 * MPI_Comm_free drops the handle's, after clearing the magic so that the
 * handle is dead at once even while requests keep the object. */
void smap_comm_unref(struct MPI_ABI_Comm *c);

/* Progresses until no active request holds c any more (only its
 * handle's reference and inactive persistent requests' are left): every
 * send and receive on it, buffered sends included, has completed.  For
 * MPI_Comm_disconnect. */
void smap_comm_quiesce(struct MPI_ABI_Comm *c);

/* A request on handle h holds its communicator (predefined ones and
 * MPI_COMM_NULL need nothing: small handles). */
static inline void smap_comm_hold(MPI_Comm h)
{
    if ((uintptr_t)h >= 65536)
        atomic_fetch_add_explicit(&((struct MPI_ABI_Comm *)h)->refs, 1, memory_order_relaxed);
}
static inline void smap_comm_drop(MPI_Comm h)
{
    if ((uintptr_t)h >= 65536)
        smap_comm_unref((struct MPI_ABI_Comm *)h);
}
/* A request's reference turns idle (+1) or busy again (-1). */
static inline void smap_comm_idle(MPI_Comm h, int delta)
{
    if ((uintptr_t)h >= 65536)
        atomic_fetch_add_explicit(&((struct MPI_ABI_Comm *)h)->idle_refs, delta,
                                  memory_order_acq_rel);
}

/* The assertions of info that a communicator keeps (mpi_assert_*, "true"
 * or "false"; comm_hints.c): MPI_SUCCESS or MPI_ERR_NO_MEM. */
int smap_comm_take_hints(struct MPI_ABI_Comm *c, const struct MPI_ABI_Info *info);

/* ---- The queries of the MPI_Comm_* entry points (comm_api.c), called
 * once the handles and pointers are checked. ---- */
void smap_comm_compare(const struct MPI_ABI_Comm *a, const struct MPI_ABI_Comm *b, int *result);
void smap_comm_set_name(struct MPI_ABI_Comm *c, const char *comm_name);
/* MPI_COMM_NULL has a name too (MPI 4.1); MPI_ERR_COMM recorded (base/why.h)
 * for an invalid handle. */
int smap_comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen);
/* MPI_Comm_remote_group: a new reference to an intercommunicator's remote group. */
void smap_comm_remote_group(struct MPI_ABI_Comm *c, MPI_Group *group);

#endif
