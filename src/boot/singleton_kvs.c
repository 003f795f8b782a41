#include "boot/singleton_kvs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct kv {
    struct kv *next;
    char *key, *value;
};

static struct kv *kvs;
static pthread_mutex_t kvs_lock = PTHREAD_MUTEX_INITIALIZER;

static struct kv *find(const char *key)
{
    for (struct kv *e = kvs; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

int smap_singleton_kvs_put(const char *key, const char *value)
{
    char *v = strdup(value);
    if (!v)
        return -1;
    pthread_mutex_lock(&kvs_lock);
    struct kv *e = find(key);
    if (!e) {
        e = calloc(1, sizeof *e);
        if (e)
            e->key = strdup(key);
        if (!e || !e->key) {
            pthread_mutex_unlock(&kvs_lock);
            free(e);
            free(v);
            return -1;
        }
        e->next = kvs;
        kvs = e;
    }
    free(e->value);
    e->value = v;
    pthread_mutex_unlock(&kvs_lock);
    return 0;
}

int smap_singleton_kvs_get(const char *key, char *value, size_t len)
{
    pthread_mutex_lock(&kvs_lock);
    struct kv *e = find(key);
    int rc = -1;
    if (e && strlen(e->value) < len) {
        memcpy(value, e->value, strlen(e->value) + 1);
        rc = 0;
    }
    pthread_mutex_unlock(&kvs_lock);
    return rc;
}

void smap_singleton_kvs_clear(void)
{
    pthread_mutex_lock(&kvs_lock);
    while (kvs) {
        struct kv *e = kvs;
        kvs = e->next;
        free(e->key);
        free(e->value);
        free(e);
    }
    pthread_mutex_unlock(&kvs_lock);
}
