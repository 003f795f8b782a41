/* The SMARTMAP layer's internal interface (DESIGN.md D2-D4).
 *
 * A rank exposes parts of its memory as memfd-backed shared mappings
 * ("regions"): its heap (a symmetric slot: the same virtual address in every
 * process of the node), the executable's writable segments, the main
 * thread's stack, and a small control region that always exists.  At
 * MPI_Init every rank maps every node peer's regions ("views") and then
 * reaches a peer's memory through smap_remote() (remote.h) or the copy
 * engine (smap_copy_from/to), which falls back to CMA and finally reports
 * "not reachable" so that callers bounce through shared cells.
 *
 * Exposure of data and stack happens in an ELF constructor, exposure of the
 * heap at the process's very first malloc: both before MPI_Init and before
 * the tunables table is loaded, so the few settings they need are read here
 * straight from the environment, without allocating. */
#ifndef SMAP_SMAP_SMAP_H
#define SMAP_SMAP_SMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- Region kinds ------------------------------------------------------ */
enum smap_region_kind {
    SMAP_REGION_HEAP,   /* symmetric heap slot (whole slot; sparse) */
    SMAP_REGION_DATA,   /* executable's writable PT_LOAD minus RELRO */
    SMAP_REGION_STACK,  /* main thread's stack below the kept argv/env page */
    SMAP_REGION_CTL,    /* control region: barrier, later shm queues */
    SMAP_REGION_KINDS
};
const char *smap_region_name(enum smap_region_kind k);

/* ---- Early configuration (no malloc, safe before constructors) --------- */
/* Bits of SMAP_EXPOSE. */
enum {
    SMAP_EXPOSE_HEAP = 1u << 0,
    SMAP_EXPOSE_DATA = 1u << 1,
    SMAP_EXPOSE_STACK = 1u << 2,
    SMAP_EXPOSE_THREADS = 1u << 3,   /* thread stacks on the heap */
    SMAP_EXPOSE_ALL = 0xfu
};
/* Levels of SMAP_COPY: the best level the copy engine may use. */
enum smap_copy_level { SMAP_COPY_DIRECT = 0, SMAP_COPY_CMA = 1, SMAP_COPY_BOUNCE = 2 };

/* getenv() that never allocates (scans environ). */
const char *smap_early_getenv(const char *name);
/* Parses an SMAP_EXPOSE value ("all", "none", or a comma list of heap, data,
 * stack, threads).  Returns the mask, or -1 and the bad word in *bad. */
int smap_parse_expose(const char *s, const char **bad, size_t *badlen);
/* The mask in force (parsed once from the environment; an unparsable value
 * gives the default here and an error at MPI_Init). */
unsigned smap_expose_mask(void);
/* Parses SMAP_COPY (direct|cma|bounce); -1 when malformed. */
int smap_parse_copy_level(const char *s);
/* True when a launcher started this process as a rank (PMI_RANK, PMI_FD or
 * SMAP_LOCAL_RANK in the environment): only ranks expose memory. */
int smap_launched(void);
/* The node-local rank known before MPI_Init (SMAP_LOCAL_RANK from smrun,
 * MPI_LOCALRANKID from hydra, else PMI_RANK), or 0.  It chooses the heap
 * slot; smap_init checks it against the bootstrap's answer. */
int smap_early_local_rank(void);
/* Size of each heap slot (SMAP_HEAP_SLOT, default 64 GiB) and the base of
 * slot 0 (16 TiB: below the legacy mmap base and the PIE base). */
size_t smap_heap_slot_size(void);
#define SMAP_HEAP_SLOT_BASE ((uintptr_t)1 << 44)
/* Writes a message to stderr with write(2): usable where stdio is not. */
void smap_early_warn(const char *msg);

/* ---- This rank's own regions (region.c) -------------------------------- */
struct smap_region {
    uintptr_t base;     /* page aligned; 0 when the region is not exposed */
    size_t len;
    int fd;             /* the memfd behind it (FD_CLOEXEC), -1 if none */
    size_t file_off;    /* offset of base inside fd */
    char why[96];       /* when not exposed: the reason, for smartmap_info */
};
/* Registers an exposed region (called by heap/data/stack/ctl code once). */
void smap_region_set(enum smap_region_kind k, uintptr_t base, size_t len, int fd, size_t file_off);
/* Records why a region is not exposed ("SMAP_EXPOSE excludes it", ...). */
void smap_region_unexposed(enum smap_region_kind k, const char *why);
const struct smap_region *smap_region_self(enum smap_region_kind k);

/* ---- Heap (heap.c) ---------------------------------------------------- */
/* True when this process's malloc family is served from the exposed slot. */
int smap_heap_exposed(void);
/* Bytes of the slot handed out so far (the bump pointer's offset). */
size_t smap_heap_used(void);
/* Returns all freed memory of the slot to the system (punches holes). */
void smap_heap_purge(void);

/* ---- Data, stack, threads (data.c, stack.c, threads.c) ---------------- */
/* Run from the library constructor; each registers its region or records
 * why it did not.  Idempotent. */
void smap_expose_data(void);
void smap_expose_stack(void);

/* ---- Fork (fork.c) ----------------------------------------------------- */
/* Registers the atfork handlers; must run before jemalloc registers its
 * own, i.e. from the heap's first-call initialisation. */
void smap_fork_init(void);
/* True in a process that forked off a rank: not a rank any more. */
int smap_is_fork_child(void);

/* ---- Peers (peers.c) --------------------------------------------------- */
/* A peer's view of one region: peer addresses [base, base+len) are at
 * local address + delta.  len 0: not mapped. */
struct smap_view {
    uintptr_t base;
    uintptr_t len;
    intptr_t delta;
};
struct smap_peer {
    struct smap_view view[SMAP_REGION_KINDS];
    pid_t pid;
    int pidfd;          /* -1 when pidfd_open is unavailable */
    int alive;
};
extern struct smap_peer *smap_peers;     /* indexed by local rank */
extern int smap_my_local_rank, smap_nlocal;

/* MPI_Init: exchange region descriptions through the bootstrap KVS, map
 * every node peer's regions, probe the copy engine's levels.  Returns 0, or
 * -1 with a message. */
int smap_init(char *err, size_t errlen);
/* MPI_Finalize: node barrier, then unmap all views. */
void smap_finalize(void);
/* Checks peers for death and unmaps the regions of those that died.
 * Returns the number of peers found dead by this call. */
int smap_peers_reap(void);
/* In a fork child: forget all peer views (unmapped). */
void smap_peers_forget(void);

/* ---- Copy engine (copy.c) ---------------------------------------------- */
/* Copies len bytes from peer `lr`'s address src into local dst (or from
 * local src into the peer's dst).  Returns the level used
 * (SMAP_COPY_DIRECT or SMAP_COPY_CMA), or SMAP_COPY_BOUNCE when neither can
 * reach that memory: the caller must then move it through shared cells.
 * Never copies part of the data. */
int smap_copy_from(int lr, void *dst, const void *src, size_t len);
int smap_copy_to(int lr, void *dst, const void *src, size_t len);
/* The level forced by SMAP_COPY and what the probe found. */
struct smap_caps {
    int copy_level;        /* best level allowed (SMAP_COPY) */
    int cma_ok;            /* process_vm_readv works between node peers */
    char cma_why[128];     /* e.g. "not permitted (ptrace)" */
    int shmem_thp;         /* 1 when shmem huge pages can back the heap */
    char thp_why[128];     /* e.g. "never - heap uses 4 KiB pages" */
};
extern struct smap_caps smap_caps;

/* ---- Node barrier (barrier.c) ------------------------------------------ */
/* Over the control region of local rank 0 once peers are attached; over the
 * bootstrap before.  Returns 0 or -1. */
int smap_node_barrier(void);

#endif
