/* The few compiler features we use, each with a portable fallback. */
#ifndef SMAP_BASE_COMPILER_H
#define SMAP_BASE_COMPILER_H

#if defined(__GNUC__) || defined(__clang__)
#define SMAP_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define SMAP_LIKELY(x)   __builtin_expect(!!(x), 1)
#define SMAP_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SMAP_COLD        __attribute__((cold, noinline))
#define SMAP_EXPORT      __attribute__((visibility("default")))
#define SMAP_HAVE_WEAK_ALIAS 1
#else
#define SMAP_PRINTF_LIKE(f, a)
#define SMAP_LIKELY(x)   (x)
#define SMAP_UNLIKELY(x) (x)
#define SMAP_COLD
#define SMAP_EXPORT
#define SMAP_HAVE_WEAK_ALIAS 0
#endif

#define SMAP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
