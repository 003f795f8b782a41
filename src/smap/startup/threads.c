/* Thread stacks on the exposed heap (findings §2 item 7, §3.4).
 *
 * pthread_create is interposed.  glibc still creates the thread on its own
 * private stack (which also holds struct pthread and the TLS), but the
 * start routine runs on a stack taken from the heap slot with
 * aligned_alloc, switched to with makecontext/swapcontext, so a peer can
 * reach the thread's locals.  Do not hand glibc slot memory through
 * pthread_attr_setstack: it would put struct pthread there, and a fork
 * child's CLONE_CHILD_SETTID and stack reclaiming would then write into the
 * parent's shared thread descriptors.
 *
 * pthread_exit and cancellation unwind from the slot stack: the unwinder
 * stops at makecontext's outermost frame and glibc's unwind_stop then
 * long-jumps back to start_thread on the private stack.  That works because
 * the slot lies below every glibc stack: glibc decides which cleanup frames
 * have been passed by comparing stack addresses.  The slot stack is freed
 * when the routine returns, or by a thread-specific-data destructor after
 * pthread_exit or cancellation skipped that path. */
#define _GNU_SOURCE
#include "base/compiler.h"
#include "smap/smap.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* PROT_NONE at the low end of each slot stack: one page (4 KiB on x86-64,
 * 4-64 KiB on aarch64). */
#define GUARD ((size_t)sysconf(_SC_PAGESIZE))
#define DEFAULT_STACK ((size_t)8 << 20)

struct slot_thread {
    void *(*fn)(void *);
    void *arg;
    void *rv;
    char *stack;            /* aligned_alloc'd; its lowest page is PROT_NONE */
    size_t size;
    ucontext_t uc, back;
};

static _Atomic(create_fn) real_create;
static pthread_key_t slot_key;
static pthread_once_t slot_once = PTHREAD_ONCE_INIT;
static int slot_key_ok;
static __thread struct slot_thread *starting;

static void slot_free(struct slot_thread *t)
{
    /* The guard must be writable again before the allocator reuses it. */
    mprotect(t->stack, GUARD, PROT_READ | PROT_WRITE);
    free(t->stack);
    free(t);
}

/* Runs in the exiting thread after pthread_exit or cancellation unwound
 * the slot stack (long-jumped over the normal return path). */
static void slot_destructor(void *p)
{
    slot_free(p);
}

static void slot_key_init(void)
{
    slot_key_ok = pthread_key_create(&slot_key, slot_destructor) == 0;
}

static create_fn resolve_real(void)
{
    create_fn f = atomic_load_explicit(&real_create, memory_order_acquire);
    if (SMAP_UNLIKELY(!f)) {
        f = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
        if (!f) {
            smap_early_warn("cannot find the C library's pthread_create");
            abort();
        }
        atomic_store_explicit(&real_create, f, memory_order_release);
    }
    return f;
}

/* The routine's outermost frame on the slot stack; uc_link returns to
 * slot_start when it comes back. */
static void slot_entry(void)
{
    struct slot_thread *t = starting;
    t->rv = t->fn(t->arg);
}

/* The start routine glibc runs, on its private stack. */
static void *slot_start(void *p)
{
    struct slot_thread *t = p;
    pthread_setspecific(slot_key, t);
    starting = t;
    getcontext(&t->uc);
    t->uc.uc_stack.ss_sp = t->stack + GUARD;
    t->uc.uc_stack.ss_size = t->size - GUARD;
    t->uc.uc_link = &t->back;
    makecontext(&t->uc, slot_entry, 0);
    swapcontext(&t->back, &t->uc);
    void *rv = t->rv;
    pthread_setspecific(slot_key, NULL);
    slot_free(t);
    return rv;
}

/* The stack size the thread would have had: the attribute's, or the
 * process default. */
static size_t wanted_stack_size(const pthread_attr_t *attr)
{
    size_t sz = 0;
    pthread_attr_t def;
    if (attr) {
        pthread_attr_getstacksize(attr, &sz);
    } else if (pthread_getattr_default_np(&def) == 0) {
        pthread_attr_getstacksize(&def, &sz);
        pthread_attr_destroy(&def);
    }
    if (sz == 0)
        sz = DEFAULT_STACK;
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    sz = (sz + pg - 1) & ~(pg - 1);
    return sz < 4 * GUARD ? 4 * GUARD : sz;
}

static int user_stack(const pthread_attr_t *attr)
{
    void *addr = NULL;
    size_t size = 0;
    return attr && pthread_attr_getstack(attr, &addr, &size) == 0 && addr != NULL;
}

static struct slot_thread *slot_thread_new(const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    struct slot_thread *t = malloc(sizeof *t);
    if (!t)
        return NULL;
    t->fn = fn;
    t->arg = arg;
    t->rv = NULL;
    t->size = wanted_stack_size(attr);
    t->stack = aligned_alloc(GUARD, t->size);
    if (!t->stack) {
        free(t);
        return NULL;
    }
    if (mprotect(t->stack, GUARD, PROT_NONE) != 0) {
        free(t->stack);
        free(t);
        return NULL;
    }
    return t;
}

SMAP_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                               void *(*start_routine)(void *), void *arg)
{
    create_fn real = resolve_real();
    if (!smap_heap_exposed() || !(smap_expose_mask() & SMAP_EXPOSE_THREADS) || user_stack(attr))
        return real(thread, attr, start_routine, arg);
    pthread_once(&slot_once, slot_key_init);
    if (!slot_key_ok)
        return real(thread, attr, start_routine, arg);
    struct slot_thread *t = slot_thread_new(attr, start_routine, arg);
    if (!t)
        return EAGAIN;
    int rc = real(thread, attr, slot_start, t);
    if (rc != 0)
        slot_free(t);
    return rc;
}
