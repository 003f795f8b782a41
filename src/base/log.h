/* Diagnostics for every layer: one prefix ("smartmap[rank]"), levels chosen by
 * the SMAP_VERBOSE tunable, and a fatal path that never returns. */
#ifndef SMAP_BASE_LOG_H
#define SMAP_BASE_LOG_H

#include <stdarg.h>

#include "base/compiler.h"

enum smap_log_level { SMAP_LOG_ERROR = 0, SMAP_LOG_WARN = 1, SMAP_LOG_INFO = 2, SMAP_LOG_DEBUG = 3 };

/* Who is speaking: set once the rank is known ("smrun", "rank 3", ...). */
void smap_log_set_name(const char *name);
const char *smap_log_name(void);
void smap_log_set_level(int level);
int smap_log_level(void);

void smap_log(int level, const char *fmt, ...) SMAP_PRINTF_LIKE(2, 3);
void smap_vlog(int level, const char *fmt, va_list ap);
_Noreturn void smap_fatal(const char *fmt, ...) SMAP_PRINTF_LIKE(1, 2);
_Noreturn void smap_vfatal(const char *fmt, va_list ap);

#define smap_warn(...)  smap_log(SMAP_LOG_WARN, __VA_ARGS__)
#define smap_info(...)  smap_log(SMAP_LOG_INFO, __VA_ARGS__)
#define smap_debug(...) do { if (smap_log_level() >= SMAP_LOG_DEBUG) smap_log(SMAP_LOG_DEBUG, __VA_ARGS__); } while (0)

#endif
