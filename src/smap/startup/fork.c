/* fork() after exposure (findings §2 item 8, §3.5).
 *
 * A rank's heap slot, globals and main stack are MAP_SHARED mappings of
 * memfds, so a plain fork() leaves parent and child sharing them: both run
 * on the same stack, the same jemalloc state and the same globals, and the
 * parent is corrupted every time.  Therefore:
 *
 *  - fork() (and _Fork()) are interposed.  The wrapper switches to a private
 *    stack (a buffer in libsmartmap_heap's own .bss, never exposed) and calls
 *    glibc's fork there, so that neither process touches the shared stack
 *    until the child has its own copy.
 *  - Our atfork handlers are registered before jemalloc's, so our prepare
 *    handler runs after jemalloc locked itself (the heap is quiescent) and
 *    our child/parent handlers run before jemalloc touches its state again.
 *  - The child handler copies every exposed region (only populated file
 *    ranges, found with SEEK_DATA/SEEK_HOLE) into fresh anonymous memory and
 *    mremaps it over the original addresses; the rest of the heap slot
 *    becomes private NORESERVE memory, so the child's allocator keeps working
 *    at the same addresses.  It then drops the region fds and peer views and
 *    stops being a rank.
 *  - The parent handler waits on a pipe until the child says it has copied,
 *    so the child's snapshot is the parent's state at fork time.
 *
 * When nothing is exposed, fork() is glibc's fork, unchanged.  vfork,
 * posix_spawn, system and popen share memory with the parent by design and
 * exec at once: they are left alone.  A fork that bypasses the wrapper
 * (glibc-internal callers such as daemon(), or a raw clone) is detected by
 * the prepare handler when it runs on an exposed stack, and warned about. */
#define _GNU_SOURCE
#include "smap/smap.h"

#include "base/compiler.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* libmpi's part of the child's clean-up (forgetting the peer views), set
 * through the start-up API once libmpi is loaded (api.c). */
static void (*_Atomic child_hook)(void);

void smap_fork_set_child_hook(void (*hook)(void))
{
    atomic_store_explicit(&child_hook, hook, memory_order_release);
}

/* Big enough for glibc's fork, every atfork handler of the process and a
 * signal handler on top. */
#define FORK_STACK_SIZE ((size_t)1 << 20)

static _Alignas(64) unsigned char fork_stack[FORK_STACK_SIZE];
static pthread_mutex_t wrapper_lock = PTHREAD_MUTEX_INITIALIZER;
static ucontext_t wrapper_ctx, fork_ctx;
static struct {
    int underscore;     /* _Fork(): no atfork handlers run */
    pid_t pid;
    int err;
} fork_call;

static pid_t (*real_fork)(void);
static pid_t (*real_underscore_fork)(void);

/* State of the fork in progress, set by the prepare handler (the atfork
 * lock, or our wrapper lock for _Fork, serialises forks). */
static int privatise;           /* something is exposed: copy in the child */
static int sync_pipe[2] = { -1, -1 };
static sigset_t saved_mask;

static atomic_int fork_child;
static atomic_int fork_inited;

/* ---- Region helpers ----------------------------------------------------- */

static int region_exposed(enum smap_region_kind k)
{
    const struct smap_region *r = smap_region_self(k);
    return r->base != 0 && r->len != 0 && r->fd >= 0;
}

static int anything_exposed(void)
{
    for (int k = 0; k < SMAP_REGION_KINDS; k++)
        if (region_exposed((enum smap_region_kind)k))
            return 1;
    return 0;
}

static int addr_in_region(enum smap_region_kind k, uintptr_t a)
{
    const struct smap_region *r = smap_region_self(k);
    return region_exposed(k) && a >= r->base && a - r->base < r->len;
}

/* The caller runs on memory that the child will share until it has copied:
 * the main stack, or a thread stack in the heap slot. */
static int on_exposed_stack(void)
{
    unsigned char here;
    return addr_in_region(SMAP_REGION_STACK, (uintptr_t)&here) ||
           addr_in_region(SMAP_REGION_HEAP, (uintptr_t)&here);
}

static int on_private_stack(void)
{
    unsigned char here;
    uintptr_t a = (uintptr_t)&here;
    return a >= (uintptr_t)fork_stack && a < (uintptr_t)fork_stack + FORK_STACK_SIZE;
}

/* Reads [off, off+len) of fd into dst, retrying short reads. */
static int read_fully(int fd, unsigned char *dst, size_t len, off_t off)
{
    while (len > 0) {
        ssize_t n = pread(fd, dst, len, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        dst += n;
        len -= (size_t)n;
        off += n;
    }
    return 0;
}

/* Copies the populated parts of [file_off, file_off+copy_len) of fd into
 * tmp (holes stay as the zero pages of fresh anonymous memory). */
static int copy_populated(int fd, unsigned char *tmp, size_t file_off, size_t copy_len)
{
    off_t end = (off_t)(file_off + copy_len);
    off_t off = (off_t)file_off;
    while (off < end) {
        off_t data = lseek(fd, off, SEEK_DATA);
        if (data < 0 && errno == ENXIO)
            break;  /* no data after off */
        if (data < 0)
            data = off;  /* no SEEK_DATA: copy the rest */
        if (data >= end)
            break;
        off_t hole = lseek(fd, data, SEEK_HOLE);
        if (hole < 0 || hole > end)
            hole = end;
        unsigned char *dst = tmp + (data - (off_t)file_off);
        size_t n = (size_t)(hole - data);
        /* Faulting in the whole range at once is cheaper than page by page
         * under pread (findings §4b); failure (old kernel) is harmless. */
        (void)madvise(dst, n, MADV_POPULATE_WRITE);
        if (read_fully(fd, dst, n, data) != 0)
            return -1;
        off = hole;
    }
    return 0;
}

/* "/proc/self/fd/N" without stdio (async-signal-safe, for _Fork). */
static void proc_fd_path(char *buf, int fd)
{
    static const char prefix[] = "/proc/self/fd/";
    char digits[12];
    int n = 0;
    unsigned v = (unsigned)fd;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    memcpy(buf, prefix, sizeof prefix - 1);
    buf += sizeof prefix - 1;
    while (n > 0)
        *buf++ = digits[--n];
    *buf = '\0';
}

/* Replaces region k by a private anonymous copy of its first copy_len
 * bytes (the rest reads as zeros).  Runs in the child only. */
static int privatise_region(enum smap_region_kind k, size_t copy_len)
{
    const struct smap_region *r = smap_region_self(k);
    if (copy_len > r->len)
        copy_len = r->len;
    unsigned char *tmp = mmap(NULL, r->len, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (tmp == MAP_FAILED)
        return -1;
    /* A file description of our own: SEEK_DATA moves the offset, and the
     * one behind r->fd is shared with the parent.  Read-only, too: the child
     * must never write the parent's file. */
    char path[32];
    proc_fd_path(path, r->fd);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc = copy_populated(fd >= 0 ? fd : r->fd, tmp, r->file_off, copy_len);
    if (fd >= 0)
        close(fd);
    if (rc == 0 && mremap(tmp, r->len, r->len, MREMAP_MAYMOVE | MREMAP_FIXED,
                          (void *)r->base) == MAP_FAILED)
        rc = -1;
    if (rc != 0)
        munmap(tmp, r->len);
    return rc;
}

/* ---- atfork handlers ---------------------------------------------------- */

static void fork_prepare(void)
{
    privatise = anything_exposed();
    if (!privatise)
        return;
    /* Bypassing the wrapper is only fatal when we run on an exposed stack:
     * the main stack, or a thread stack in the heap slot. */
    if (!on_private_stack() && on_exposed_stack())
        smap_early_warn("fork() reached without going through smartmap's fork wrapper "
                        "(daemon(), forkpty() or a direct clone?) while running on an "
                        "exposed stack: parent and child share that stack and the "
                        "parent may be corrupted");
    /* Signal handlers in either process would change memory that the child
     * is copying; they run once the copy is done. */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &saved_mask);
    if (pipe2(sync_pipe, O_CLOEXEC) != 0) {
        /* Without the pipe the parent cannot wait; the copy still happens,
         * but the snapshot may include the parent's later writes. */
        sync_pipe[0] = sync_pipe[1] = -1;
        smap_early_warn("fork(): pipe2 failed; the child's copy of the exposed memory "
                        "may not be a snapshot");
    }
}

static void close_pipe_end(int i)
{
    if (sync_pipe[i] >= 0)
        close(sync_pipe[i]);
    sync_pipe[i] = -1;
}

static void fork_parent(void)
{
    if (!privatise)
        return;
    close_pipe_end(1);
    if (sync_pipe[0] >= 0) {
        /* One byte when the child has copied, EOF if it died first or if
         * there is no child (fork failed). */
        char c;
        while (read(sync_pipe[0], &c, 1) < 0 && errno == EINTR)
            ;
        close_pipe_end(0);
    }
    pthread_sigmask(SIG_SETMASK, &saved_mask, NULL);
}

static void privatise_all(void)
{
    for (int k = 0; k < SMAP_REGION_KINDS; k++) {
        enum smap_region_kind kind = (enum smap_region_kind)k;
        if (!region_exposed(kind))
            continue;
        const struct smap_region *r = smap_region_self(kind);
        size_t copy_len = r->len;
        if (kind == SMAP_REGION_HEAP)
            copy_len = smap_heap_used();
        if (privatise_region(kind, copy_len) != 0) {
            /* Continuing would let the child write the parent's memory. */
            smap_early_warn("fork(): the child could not make a private copy of this "
                            "rank's exposed memory; the child exits");
            _exit(127);
        }
        int fd = r->fd;
        smap_region_unexposed(kind, "private copy in a fork child");
        close(fd);
    }
}

static void fork_child_handler(void)
{
    atomic_store_explicit(&fork_child, 1, memory_order_relaxed);
    if (!privatise)
        return;
    close_pipe_end(0);
    privatise_all();
    /* Peer views are the peers' live memory: a process that is no rank
     * must not keep them.  (It must not allocate: jemalloc is still locked.) */
    void (*hook)(void) = atomic_load_explicit(&child_hook, memory_order_acquire);
    if (hook)
        hook();
    if (sync_pipe[1] >= 0) {
        char c = 1;
        while (write(sync_pipe[1], &c, 1) < 0 && errno == EINTR)
            ;
    }
    close_pipe_end(1);
    pthread_sigmask(SIG_SETMASK, &saved_mask, NULL);
}

void smap_fork_init(void)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong_explicit(&fork_inited, &expect, 1, memory_order_acq_rel,
                                                 memory_order_relaxed))
        return;
    if (pthread_atfork(fork_prepare, fork_parent, fork_child_handler) != 0)
        smap_early_warn("pthread_atfork failed: fork() after exposure is not safe");
}

/* Under AddressSanitizer (or with SMAP_EXPOSE=none) the heap's first call
 * never runs; data and stack may still be exposed. */
static void resolve_real(void);

SMAP_CONSTRUCTOR static void fork_ctor(void)
{
    smap_fork_init();
    resolve_real();
}

int smap_is_fork_child(void)
{
    return atomic_load_explicit(&fork_child, memory_order_relaxed);
}

/* ---- The wrappers ------------------------------------------------------- */

static void resolve_real(void)
{
    if (!real_fork)
        real_fork = (pid_t(*)(void))dlsym(RTLD_NEXT, "fork");
    if (!real_underscore_fork)
        real_underscore_fork = (pid_t(*)(void))dlsym(RTLD_NEXT, "_Fork");
}

/* _Fork runs no atfork handlers, so it runs ours itself (they take no
 * locks and allocate nothing, as _Fork's async-signal-safety requires). */
static pid_t underscore_fork_with_handlers(void)
{
    fork_prepare();
    pid_t pid = real_underscore_fork();
    int err = errno;
    if (pid == 0)
        fork_child_handler();
    else
        fork_parent();
    errno = err;
    return pid;
}

/* Runs on fork_stack; returning resumes wrapper_ctx (uc_link). */
static void fork_on_stack(void)
{
    fork_call.pid = fork_call.underscore ? underscore_fork_with_handlers() : real_fork();
    fork_call.err = errno;
}

/* Switches to fork_stack for the fork; call with wrapper_lock held. */
static pid_t fork_on_private_stack(int underscore)
{
    if (getcontext(&fork_ctx) != 0)
        return -1;
    fork_ctx.uc_stack.ss_sp = fork_stack;
    fork_ctx.uc_stack.ss_size = FORK_STACK_SIZE;
    fork_ctx.uc_link = &wrapper_ctx;
    makecontext(&fork_ctx, fork_on_stack, 0);
    fork_call.underscore = underscore;
    if (swapcontext(&wrapper_ctx, &fork_ctx) != 0)
        return -1;
    errno = fork_call.err;
    return fork_call.pid;
}

/* fork or _Fork of a process with exposed memory.  The lock serialises
 * our forks (one private stack; _Fork has no atfork lock to do it). */
static pid_t exposed_fork(int underscore)
{
    pthread_mutex_lock(&wrapper_lock);
    pid_t pid;
    if (on_exposed_stack())
        pid = fork_on_private_stack(underscore);
    else    /* a private stack already: the handlers alone suffice */
        pid = underscore ? underscore_fork_with_handlers() : real_fork();
    int err = errno;
    /* In the child this unlocks the child's own copy of the lock. */
    pthread_mutex_unlock(&wrapper_lock);
    errno = err;
    return pid;
}

SMAP_EXPORT pid_t fork(void)
{
    resolve_real();
    if (!real_fork) {
        errno = ENOSYS;
        return -1;
    }
    smap_fork_init();
    if (!anything_exposed())
        return real_fork();
    return exposed_fork(0);
}

SMAP_EXPORT pid_t _Fork(void)
{
    resolve_real();
    if (!real_underscore_fork) {
        errno = ENOSYS;
        return -1;
    }
    if (!anything_exposed())
        return real_underscore_fork();
    return exposed_fork(1);
}
