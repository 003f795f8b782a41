/* Allocation for schedules: freed schedules keep their operation chunks and
 * arrays in a small cache, and scratch blocks go to a cache of their own
 * (best fit), so that repeated collectives reuse memory instead of calling
 * the allocator.  A mutex guards both caches (threads may start
 * collectives concurrently). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "coll/sched/internal.h"

#define SCHED_CACHE_MAX 16
#define TMP_CACHE_MAX 32
#define TMP_CACHE_BYTES ((size_t)64 << 20)   /* keep at most this much scratch */

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct smap_sched *sched_cache[SCHED_CACHE_MAX];
static int nsched;
static struct sched_tmp *tmp_cache;
static int ntmp;
static size_t tmp_bytes;

static void reset(struct smap_sched *s)
{
    for (struct sched_chunk *k = s->chunks; k; k = k->next)
        k->used = 0;
    s->cur = s->chunks;
    s->nops = 0;
    s->nrounds = 0;
    s->round_start[0] = 0;
    s->c = NULL;
    s->next = NULL;
    s->req = NULL;
    s->tmps = NULL;
    s->round = s->round_started = s->done = s->pos = s->posted_round = 0;
    s->err = MPI_SUCCESS;
    s->tag = s->ctx = 0;
    s->lanes = NULL;
    s->nlanes = 0;
    s->gate = NULL;
}

static void destroy(struct smap_sched *s)
{
    while (s->chunks) {
        struct sched_chunk *k = s->chunks;
        s->chunks = k->next;
        free(k);
    }
    free(s->ops);
    free(s->round_start);
    free(s);
}

struct smap_sched *sched_pool_get(void)
{
    struct smap_sched *s = NULL;
    pthread_mutex_lock(&pool_lock);
    if (nsched)
        s = sched_cache[--nsched];
    pthread_mutex_unlock(&pool_lock);
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s)
            return NULL;
        s->rounds_cap = 8;
        s->round_start = malloc((size_t)(s->rounds_cap + 1) * sizeof *s->round_start);
        if (!s->round_start) {
            free(s);
            return NULL;
        }
    }
    reset(s);
    return s;
}

/* Scratch blocks back into their cache (or freed past its bounds). */
static void put_tmps(struct sched_tmp *t)
{
    while (t) {
        struct sched_tmp *next = t->next;
        pthread_mutex_lock(&pool_lock);
        int keep = ntmp < TMP_CACHE_MAX && tmp_bytes + t->cap <= TMP_CACHE_BYTES;
        if (keep) {
            t->next = tmp_cache;
            tmp_cache = t;
            ntmp++;
            tmp_bytes += t->cap;
        }
        pthread_mutex_unlock(&pool_lock);
        if (!keep)
            free(t);
        t = next;
    }
}

void sched_pool_put(struct smap_sched *s)
{
    put_tmps(s->tmps);
    s->tmps = NULL;
    pthread_mutex_lock(&pool_lock);
    int keep = nsched < SCHED_CACHE_MAX;
    if (keep)
        sched_cache[nsched++] = s;
    pthread_mutex_unlock(&pool_lock);
    if (!keep)
        destroy(s);
}

struct sched_op *sched_op_alloc(struct smap_sched *s)
{
    if (s->nops == s->ops_cap) {
        int cap = s->ops_cap ? 2 * s->ops_cap : 64;
        struct sched_op **o = realloc(s->ops, (size_t)cap * sizeof *o);
        if (!o)
            return NULL;
        s->ops = o;
        s->ops_cap = cap;
    }
    if (s->cur && s->cur->used == SCHED_CHUNK && s->cur->next)
        s->cur = s->cur->next;
    if (!s->cur || s->cur->used == SCHED_CHUNK) {
        struct sched_chunk *k = malloc(sizeof *k);
        if (!k)
            return NULL;
        k->next = NULL;
        k->used = 0;
        if (s->cur)
            s->cur->next = k;
        else
            s->chunks = k;
        s->cur = k;
    }
    struct sched_op *op = &s->cur->ops[s->cur->used++];
    memset(op, 0, sizeof *op);
    s->ops[s->nops++] = op;
    return op;
}

int sched_add_round(struct smap_sched *s)
{
    if (s->nrounds + 1 >= s->rounds_cap) {
        int cap = 2 * s->rounds_cap;
        int *r = realloc(s->round_start, (size_t)(cap + 1) * sizeof *r);
        if (!r)
            return -1;
        s->round_start = r;
        s->rounds_cap = cap;
    }
    s->round_start[++s->nrounds] = s->nops;
    return 0;
}

/* The smallest cached block that fits without wasting more than 4x. */
static struct sched_tmp *take_cached(size_t bytes)
{
    struct sched_tmp **best = NULL;
    pthread_mutex_lock(&pool_lock);
    for (struct sched_tmp **pp = &tmp_cache; *pp; pp = &(*pp)->next)
        if ((*pp)->cap >= bytes && (*pp)->cap / 4 <= bytes + 4096 &&
            (!best || (*pp)->cap < (*best)->cap))
            best = pp;
    struct sched_tmp *t = NULL;
    if (best) {
        t = *best;
        *best = t->next;
        ntmp--;
        tmp_bytes -= t->cap;
    }
    pthread_mutex_unlock(&pool_lock);
    return t;
}

void *sched_tmp_alloc(struct smap_sched *s, size_t bytes)
{
    if (bytes == 0)
        bytes = 1;
    struct sched_tmp *t = take_cached(bytes);
    if (!t) {
        t = malloc(sizeof *t + bytes);
        if (!t)
            return NULL;
        t->cap = bytes;
    }
    t->next = s->tmps;
    s->tmps = t;
    return t->data;
}
