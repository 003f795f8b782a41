/* The few compiler features we use, each with a portable fallback. */
#ifndef SMAP_BASE_COMPILER_H
#define SMAP_BASE_COMPILER_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define SMAP_HAVE_BUILTIN_OVERFLOW 1
#define SMAP_CONSTRUCTOR __attribute__((constructor))
#define SMAP_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define SMAP_LIKELY(x)   __builtin_expect(!!(x), 1)
#define SMAP_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SMAP_COLD        __attribute__((cold, noinline))
/* A function of the per-message path (p2p, the network engines).  GCC and
 * clang place hot functions together (.text.hot), so the path's code
 * occupies consecutive instruction-cache sets instead of piling, with
 * UCX's and libc's, into a few sets that then miss on every message. */
#define SMAP_HOT         __attribute__((hot))
#define SMAP_EXPORT      __attribute__((visibility("default")))
#define SMAP_HAVE_WEAK_ALIAS 1
#define SMAP_NOINLINE    __attribute__((noinline))
#define SMAP_TLS_INITIAL_EXEC __attribute__((tls_model("initial-exec")))
#define SMAP_FRAME_ADDRESS() ((uintptr_t)__builtin_frame_address(0))
#define SMAP_PREFETCH_WRITE(p) __builtin_prefetch((p), 1, 3)
#else
#define SMAP_HAVE_BUILTIN_OVERFLOW 0
#define SMAP_CONSTRUCTOR   /* callers also initialise explicitly, idempotently */
#define SMAP_PRINTF_LIKE(f, a)
#define SMAP_LIKELY(x)   (x)
#define SMAP_UNLIKELY(x) (x)
#define SMAP_COLD
#define SMAP_HOT
#define SMAP_EXPORT
#define SMAP_HAVE_WEAK_ALIAS 0
#define SMAP_NOINLINE
#define SMAP_TLS_INITIAL_EXEC
#define SMAP_PREFETCH_WRITE(p) ((void)(p))   /* a hint only */
/* Close enough for "where is this frame": a local's address. */
#define SMAP_FRAME_ADDRESS() ({ volatile char smap_here_; (uintptr_t)&smap_here_; })
#endif

#define SMAP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Checked 64-bit arithmetic for sizes computed from user counts: return 1
 * (and leave *r alone) when the exact result does not fit. */
static inline int smap_mul_overflow_i64(int64_t a, int64_t b, int64_t *r)
{
#if SMAP_HAVE_BUILTIN_OVERFLOW
    return __builtin_mul_overflow(a, b, r);
#else
    if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
              : (b > 0 ? a < INT64_MIN / b : (a != 0 && b < INT64_MAX / a)))
        return 1;
    *r = a * b;
    return 0;
#endif
}

/* size_t product; returns 1 on overflow. */
static inline int smap_mul_overflow_size(size_t a, size_t b, size_t *r)
{
#if SMAP_HAVE_BUILTIN_OVERFLOW
    return __builtin_mul_overflow(a, b, r);
#else
    if (b != 0 && a > SIZE_MAX / b)
        return 1;
    *r = a * b;
    return 0;
#endif
}

/* Bit scans of a non-zero word. */
static inline int smap_ctz_size(size_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll((unsigned long long)x);
#else
    int n = 0;
    while (!(x & 1)) { x >>= 1; n++; }
    return n;
#endif
}

static inline int smap_bit_width_size(size_t x)   /* index of the top bit + 1 */
{
#if defined(__GNUC__) || defined(__clang__)
    return 64 - __builtin_clzll((unsigned long long)x);
#else
    int n = 0;
    while (x) { x >>= 1; n++; }
    return n;
#endif
}

static inline int smap_popcount_u32(uint32_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcount(x);
#else
    int n = 0;
    for (; x; x &= x - 1) n++;
    return n;
#endif
}

static inline int smap_add_overflow_i64(int64_t a, int64_t b, int64_t *r)
{
#if SMAP_HAVE_BUILTIN_OVERFLOW
    return __builtin_add_overflow(a, b, r);
#else
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
        return 1;
    *r = a + b;
    return 0;
#endif
}

#endif
