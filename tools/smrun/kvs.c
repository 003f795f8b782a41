/* The job's one PMI key-value space: an open-addressing hash table, because
 * every rank reads every other rank's keys (N^2 gets at start-up).
 * Total size is capped so that a rank putting keys in a loop cannot eat the
 * launcher's memory. */
#include "smrun.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SMRUN_KVS_MAX_BYTES ((size_t)256 << 20)

struct smrun_kvs_entry {
    char *key;               /* NULL: empty slot; key and value share one block */
    char *value;
};

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static struct smrun_kvs_entry *find_slot(struct smrun_kvs_entry *slots, size_t cap, const char *key)
{
    size_t i = (size_t)hash(key) & (cap - 1);
    while (slots[i].key && strcmp(slots[i].key, key) != 0)
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

static int grow(struct smrun_kvs *kvs)
{
    size_t cap = kvs->cap ? kvs->cap * 2 : 256;
    struct smrun_kvs_entry *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < kvs->cap; i++)
        if (kvs->slots[i].key)
            *find_slot(slots, cap, kvs->slots[i].key) = kvs->slots[i];
    free(kvs->slots);
    kvs->slots = slots;
    kvs->cap = cap;
    return 0;
}

int smrun_kvs_put(struct smrun_kvs *kvs, const char *key, const char *value)
{
    size_t klen = strlen(key) + 1, vlen = strlen(value) + 1;
    if (kvs->bytes + klen + vlen > SMRUN_KVS_MAX_BYTES)
        return -1;
    if ((kvs->count + 1) * 10 > kvs->cap * 7 && grow(kvs) != 0)
        return -1;
    char *block = malloc(klen + vlen);
    if (!block)
        return -1;
    memcpy(block, key, klen);
    memcpy(block + klen, value, vlen);
    struct smrun_kvs_entry *e = find_slot(kvs->slots, kvs->cap, key);
    if (e->key) {            /* a later put replaces the value */
        kvs->bytes -= strlen(e->key) + strlen(e->value) + 2;
        free(e->key);
    } else {
        kvs->count++;
    }
    e->key = block;
    e->value = block + klen;
    kvs->bytes += klen + vlen;
    return 0;
}

const char *smrun_kvs_get(const struct smrun_kvs *kvs, const char *key)
{
    if (kvs->cap == 0)
        return NULL;
    const struct smrun_kvs_entry *e = find_slot(kvs->slots, kvs->cap, key);
    return e->key ? e->value : NULL;
}

void smrun_kvs_free(struct smrun_kvs *kvs)
{
    for (size_t i = 0; i < kvs->cap; i++)
        free(kvs->slots[i].key);
    free(kvs->slots);
    memset(kvs, 0, sizeof *kvs);
}
