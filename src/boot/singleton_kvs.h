/* The key-value space of a job started without a launcher: local, tiny. */
#ifndef SMAP_BOOT_SINGLETON_KVS_H
#define SMAP_BOOT_SINGLETON_KVS_H

#include <stddef.h>

int smap_singleton_kvs_put(const char *key, const char *value);
int smap_singleton_kvs_get(const char *key, char *value, size_t len);
void smap_singleton_kvs_clear(void);

#endif
