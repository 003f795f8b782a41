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
    SMAP_REGION_COLL,   /* collectives' per-communicator control blocks */
    SMAP_REGION_RMA,    /* one-sided windows: control blocks, Win_allocate memory */
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
 * gives the default here and an error at MPI_Init).  The default is "all",
 * and "none" when the process runs under valgrind. */
unsigned smap_expose_mask(void);
/* True when the process runs under valgrind (any tool): nothing is exposed
 * by default, malloc is glibc's (which valgrind replaces), the one-sided
 * region is small.  docs/USAGE.md, "Debugging". */
int smap_under_valgrind(void);
/* Why a part is not exposed when SMAP_EXPOSE leaves it out. */
const char *smap_expose_excluded_why(void);
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
/* Reads a small text file (sysfs, procfs) into buf, NUL-terminated, the
 * trailing newline cut, without allocating.  0, or -1 when unreadable. */
int smap_read_small_file(const char *path, char *buf, size_t len);
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
/* What start-up exposure cost this rank (ctor.c; printed at SMAP_VERBOSE>=3
 * from the constructor, and readable by smartmap_info or the lead's code). */
struct smap_expose_stats {
    uint64_t data_ns, stack_ns;   /* wall time of each step */
    uint64_t data_bss_pages;      /* .bss pages written into the memfd */
    uint64_t stack_bytes;         /* live stack bytes written into the memfd */
    int data_pagemap;             /* 1: the .bss copy used /proc/self/pagemap */
};
extern struct smap_expose_stats smap_expose_stats;

/* ---- Fork (fork.c) ----------------------------------------------------- */
/* Registers the atfork handlers; must run before jemalloc registers its
 * own, i.e. from the heap's first-call initialisation. */
void smap_fork_init(void);
/* True in a process that forked off a rank: not a rank any more. */
int smap_is_fork_child(void);
/* libsmartmap_heap only: run hook in a fork child after privatising. */
void smap_fork_set_child_hook(void (*hook)(void));

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
/* Entries of smap_peers that may hold views: smap_nlocal (the job's node
 * ranks, 0..smap_nlocal-1) plus the spare indices handed to processes of
 * other jobs on this node so far (foreign.c); translation and the copy
 * engine accept an index below it.  0 before smap_init and after
 * smap_finalize.  The table has smap_peers_capacity() entries. */
extern int smap_npeers;
/* smap_job.local_size + SMAP_SPAWN_PEERS (the spare indices), once the
 * bootstrap has run: the control region holds a queue for each. */
int smap_peers_capacity(void);

/* MPI_Init: exchange region descriptions through the bootstrap KVS, map
 * every node peer's regions, probe the copy engine's levels.  Returns 0, or
 * -1 with a message. */
int smap_init(char *err, size_t errlen);
/* MPI_Finalize: node barrier, then unmap all views. */
void smap_finalize(void);
/* Checks peers for death and unmaps the regions of those that died.
 * Returns the number of peers found dead by this call. */
int smap_peers_reap(void);
/* Page tables for the populated parts of [off, off+len) of fd, mapped at
 * local (holes stay holes: reading one would allocate it). */
void smap_prefault_file(int fd, size_t off, size_t len, char *local);
/* Maps a node peer's region (kind, at `base` in its address space, `len`
 * bytes at `off` of fd) here: the heap at its own address when that is
 * free (pointer identity), anything else, and a heap whose address is
 * taken, anywhere (its pointers then translated); never dumped in a core.
 * MAP_FAILED with errno.  peers.c (the job's ranks), foreign.c (another
 * job's processes). */
void *smap_view_mmap(int fd, int kind, uintptr_t base, uint64_t off, size_t len);
/* Unmaps every view of p: translation to it fails from then on. */
void smap_views_unmap(struct smap_peer *p);
/* In a fork child: forget all peer views (unmapped). */
void smap_peers_forget(void);
/* True once every node peer's regions are mapped (between smap_init and
 * smap_finalize, not in a fork child). */
int smap_peers_attached(void);

/* ---- Processes of other jobs on this node (foreign.c; DESIGN D17) ------
 * src/spawn joins two jobs; those of their processes that share a node
 * become node peers of each other at spare indices of smap_peers
 * (smap_nlocal..smap_peers_capacity()-1, each handed out once): their
 * heap, globals, stack and control region are mapped as a job peer's are,
 * so the shm queues and the single-copy rendezvous reach them.  The
 * record travels between the jobs as bytes (fixed-width fields). */
struct smap_node_rec {
    char node[96];       /* boot id, host name, pid namespace: equal on one node */
    int64_t pid;
    int32_t uid, dumpable;
    int32_t cap;         /* capacity of its peer table; 0: takes no foreign peer */
    int32_t next;        /* its first spare index never handed out */
    struct {
        uint64_t base, len, off, ino;
        int32_t fd, pad;
    } r[SMAP_REGION_KINDS];
};
/* This process's record (cap 0 when peers are not attached, in a fork
 * child, or SMAP_SPAWN_PEERS is 0). */
void smap_node_rec_self(struct smap_node_rec *r);
/* 1 when the record's process is on this node, in our pid namespace, and
 * is not ourselves. */
int smap_node_rec_same(const struct smap_node_rec *r);
/* The job's own node rank that the record describes (its pid), or -1. */
int smap_node_rec_job_peer(const struct smap_node_rec *r);
/* Maps the record's regions (heap, globals, stack, control) at spare
 * index idx (smap_nlocal <= idx < capacity, unused) and watches its pid.
 * 0, or -1 with a message (nothing left mapped). */
int smap_peers_attach_at(int idx, const struct smap_node_rec *r, char *err, size_t errlen);
/* Unmaps index idx's views (attached by smap_peers_attach_at) and stops
 * watching it; the index is not handed out again. */
void smap_peers_detach_at(int idx);
/* Spare indices below next are used (never handed out again). */
void smap_peers_reserve(int next);

/* This rank's control region (ctl.c): a memfd "smartmap-ctl", registered
 * as SMAP_REGION_CTL.  Layout:
 *   [0, SMAP_CTL_BARRIER_BYTES)          the node barrier (barrier.c: every
 *                                        rank's arrival line, local rank 0's
 *                                        release line)
 *   [SMAP_CTL_BARRIER_BYTES, SMAP_CTL_FIXED)  the shm layer's fixed words
 *                                        (completion words of this rank's sends)
 *   [SMAP_CTL_FIXED + lr * SMAP_CTL_PER_PEER, +SMAP_CTL_PER_PEER)
 *                                        the shm queue that local rank lr
 *                                        writes into (src/shm/); spare
 *                                        indices lr >= smap_nlocal: a
 *                                        process of another job (foreign.c)
 * so its size grows with smap_peers_capacity(); pages are only allocated
 * when touched (the spare queues cost address space only). */
#define SMAP_CTL_BARRIER_BYTES 256
#define SMAP_CTL_FIXED ((size_t)64 << 10)
#define SMAP_CTL_PER_PEER ((size_t)520 << 10)   /* 64 cells, 64 slots of 8 KiB, control */
size_t smap_ctl_size(void);                        /* valid after creation */
int smap_ctl_create(char *err, size_t errlen);   /* idempotent; 0 or -1 */
void *smap_ctl_base(void);                         /* NULL before creation */

/* Getting a node peer's region fds (fdpass.c; findings §3.6). */
enum smap_attach_mode { SMAP_ATTACH_AUTO, SMAP_ATTACH_PROC, SMAP_ATTACH_PIDFD, SMAP_ATTACH_SOCKET };
int smap_attach_parse(const char *s);              /* -1 when malformed */
const char *smap_attach_name(int mode);
/* Opens the file behind peer pid's descriptor fd: through /proc/<pid>/fd
 * (PTRACE_MODE_READ) or pidfd_getfd (PTRACE_MODE_ATTACH).  Returns a new
 * O_CLOEXEC descriptor with its own file offset, or -1 with a message. */
int smap_fd_from_proc(pid_t pid, int fd, char *err, size_t errlen);
int smap_fd_from_pidfd(int pidfd, int fd, char *err, size_t errlen);
/* SCM_RIGHTS over abstract Unix sockets with random names (*token, which
 * the description published at the bootstrap fence carries): works for
 * non-dumpable ranks and across uids.  listen() before that fence; then
 * exchange() connects to every peer (tokens[lr]), serves every peer its
 * fds own_fds[SMAP_REGION_KINDS] (-1: none) and receives theirs into
 * peer_fds[lr * SMAP_REGION_KINDS + k].  Credentials are checked against
 * pids[] (the node's ranks by local rank). */
int smap_fdsock_listen(int backlog, uint64_t *token, char *err, size_t errlen);
int smap_fdsock_exchange(int lsock, int me, int nlocal, const pid_t *pids,
                         const uint64_t *tokens, const int *own_fds, int *peer_fds, char *err,
                         size_t errlen);

/* Shared regions that exist whatever SMAP_EXPOSE says (shared_region.c): a
 * sparse memfd `name` of `size` bytes, mapped here and registered as kind
 * k.  Returns its address, or NULL with a message. */
void *smap_shared_region_create(enum smap_region_kind k, const char *name, size_t size,
                                char *err, size_t errlen);
/* The collectives' region "smartmap-coll" (SMAP_COLL_REGION_SIZE, sparse):
 * per-communicator control blocks of src/coll/smap live in it, so they are
 * reachable by node peers even when the heap is not exposed.  Created in
 * smap_init; smap_coll_region() is NULL before. */
#define SMAP_COLL_REGION_SIZE ((size_t)16 << 20)   /* 8 slots of 2 MiB */
int smap_coll_region_create(char *err, size_t errlen);
void *smap_coll_region(void);
/* The one-sided region "smartmap-rma" (smap_rma_region_size() bytes,
 * sparse): the window control blocks and the memory of
 * MPI_Win_allocate(_shared) live in it (src/rma/), so windows are
 * reachable by node peers whatever SMAP_EXPOSE says.  Created in
 * smap_init; NULL before.  Pages are only allocated when touched; src/rma
 * punches freed ranges out again. */
int smap_rma_region_create(char *err, size_t errlen);
void *smap_rma_region(void);
/* Its size: the node's memory (MPI_Win_allocate_shared takes the whole
 * node's window from one rank's region, so windows are limited by memory,
 * not by the region), at least 1 GiB, and small enough that every rank's
 * views of all its node peers' regions fit in SMAP_RMA_VIEWS_MAX of
 * address space.  Fixed once the region exists. */
#define SMAP_RMA_VIEWS_MAX ((size_t)32 << 40)
size_t smap_rma_region_size(void);
#define SMAP_RMA_REGION_VALGRIND ((size_t)64 << 20)

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

/* ---- Copy engine capabilities (caps.c, copy.c; the copy helper's part) - */
/* "direct", "cma" or "bounce". */
const char *smap_copy_level_name(int level);
/* Validates SMAP_COPY and SMAP_EXPOSE (values as given, NULL: unset), sets
 * smap_caps.copy_level and the THP fields.  -1 with a message naming the
 * variable when one is malformed.  Needs no rank: smartmap_info uses it. */
int smap_caps_configure(const char *copy, const char *expose, char *err, size_t errlen);
/* Fills smap_caps.shmem_thp/thp_why from /sys/kernel/mm/transparent_hugepage. */
void smap_caps_check_thp(void);
/* /proc/sys/kernel/yama/ptrace_scope, or -1 when Yama is absent. */
int smap_yama_scope(void);
/* Why process_vm_readv failed with errno err, in smartmap_info's words. */
void smap_cma_reason(int err, char *why, size_t whylen);
/* Reads up to 64 bytes at addr in process pid: 1 when that works, else 0
 * and the reason in why. */
int smap_cma_try(pid_t pid, const void *addr, size_t len, char *why, size_t whylen);
/* At the end of smap_init, once peers are attached: validates SMAP_COPY and
 * SMAP_EXPOSE (from smap_tun), probes CMA against a node peer and the shmem
 * THP setting, logs the result at SMAP_VERBOSE>=2.  Returns 0, or -1 with a
 * message naming the malformed variable (MPI_Init must then fail). */
int smap_caps_probe(char *err, size_t errlen);

/* ---- Node barrier (barrier.c) ------------------------------------------ */
/* Flag lines in the control regions once peers are attached (flat, or
 * gather/release: barrier.c); over the bootstrap before.  Returns 0 or
 * -1. */
int smap_node_barrier(void);
/* The same in two halves, for callers that must do other work while they
 * wait (MPI_Barrier drives point-to-point progress).  Only once peers are
 * attached and with more than one local rank.  arrive: 1 done at once, 0
 * wait for *gen, -1 failure.  done: 1 once the barrier of *gen completed
 * for this rank (the barrier finishes its steps inside done, so callers
 * keep calling it until 1).  late: this rank consumed peers' data since
 * its last barrier, so in the flat shape it leaves after a peer that saw
 * every arrival (barrier.c: the producers of the next call leave first). */
int smap_node_barrier_arrive(unsigned *gen, int late);
int smap_node_barrier_done(unsigned gen);
int smap_node_barrier_peer_died(void);

#endif
