#include "base/tunables.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct smap_tunables smap_tun;

const struct smap_tunable_desc smap_tunable_table[] = {
#define SMAP_TUNABLE(NAME, field, TYPE, def, doc) { #NAME, SMAP_TUNABLE_##TYPE, def, doc },
#include "base/tunables.def"
#undef SMAP_TUNABLE
};
const size_t smap_tunable_count = sizeof smap_tunable_table / sizeof smap_tunable_table[0];

const char *smap_tunable_type_name(enum smap_tunable_type t)
{
    switch (t) {
    case SMAP_TUNABLE_INT: return "int";
    case SMAP_TUNABLE_SIZE: return "size";
    case SMAP_TUNABLE_BOOL: return "bool";
    case SMAP_TUNABLE_STR: return "string";
    }
    return "?";
}

static int parse_int(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    if (*s == '-')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case '\0': break;
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    default: return -1;
    }
    if (*end == 'i' || *end == 'I')  /* accept KiB spelt "Ki" / "KiB" */
        end++;
    if (*end == 'b' || *end == 'B')
        end++;
    if (*end != '\0' || (shift && v > (UINT64_MAX >> shift)))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

static int parse_bool(const char *s, bool *out)
{
    static const char *yes[] = { "1", "yes", "on", "true" }, *no[] = { "0", "no", "off", "false" };
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(s, yes[i]) == 0) { *out = true; return 0; }
        if (strcasecmp(s, no[i]) == 0) { *out = false; return 0; }
    }
    return -1;
}

int smap_tunable_parse(enum smap_tunable_type t, const char *text, void *out)
{
    switch (t) {
    case SMAP_TUNABLE_INT: return parse_int(text, out);
    case SMAP_TUNABLE_SIZE: return parse_size(text, out);
    case SMAP_TUNABLE_BOOL: return parse_bool(text, out);
    case SMAP_TUNABLE_STR: *(const char **)out = text; return 0;
    }
    return -1;
}

/* The bounds and word lists of tunables.def. */
struct tunable_range {
    const char *name;
    uint64_t min, max, multiple;
};
static const struct tunable_range ranges[] = {
#define SMAP_TUNABLE(NAME, field, TYPE, def, doc)
#define SMAP_TUNABLE_RANGE(NAME, lo, hi, mult) { #NAME, (lo), (hi), (mult) },
#define SMAP_TUNABLE_CHOICES(NAME, words)
#include "base/tunables.def"
#undef SMAP_TUNABLE
#undef SMAP_TUNABLE_RANGE
#undef SMAP_TUNABLE_CHOICES
};
struct tunable_choices {
    const char *name, *words;
};
static const struct tunable_choices choices[] = {
#define SMAP_TUNABLE(NAME, field, TYPE, def, doc)
#define SMAP_TUNABLE_RANGE(NAME, lo, hi, mult)
#define SMAP_TUNABLE_CHOICES(NAME, words) { #NAME, words },
#include "base/tunables.def"
#undef SMAP_TUNABLE
#undef SMAP_TUNABLE_RANGE
#undef SMAP_TUNABLE_CHOICES
};

/* "1G" for 2^30, "1000" for 1000: the spelling SIZE values take. */
static void size_text(uint64_t v, char *buf, size_t len)
{
    static const char units[] = "KMGTPE";
    int u = -1;
    while (v && v % 1024 == 0 && u < 5) {
        v /= 1024;
        u++;
    }
    if (u >= 0)
        snprintf(buf, len, "%" PRIu64 "%c", v, units[u]);
    else
        snprintf(buf, len, "%" PRIu64, v);
}

static int in_range(const struct smap_tunable_desc *d, const struct tunable_range *r,
                    const void *value)
{
    if (d->type == SMAP_TUNABLE_INT) {
        int64_t v = *(const int64_t *)value;
        return v >= 0 && (uint64_t)v >= r->min && (uint64_t)v <= r->max &&
               (!r->multiple || (uint64_t)v % r->multiple == 0);
    }
    uint64_t v = *(const uint64_t *)value;
    return v >= r->min && v <= r->max && (!r->multiple || v % r->multiple == 0);
}

static int is_choice(const char *words, const char *v)
{
    size_t n = strlen(v);
    for (const char *w = words; *w;) {
        const char *bar = strchr(w, '|');
        size_t len = bar ? (size_t)(bar - w) : strlen(w);
        if (len == n && strncmp(w, v, n) == 0)
            return 1;
        w += len + (bar ? 1 : 0);
    }
    return 0;
}

int smap_tunable_check(const struct smap_tunable_desc *d, const void *value, char *err,
                       size_t errlen)
{
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        const struct tunable_range *r = &ranges[i];
        if (strcmp(r->name, d->name) != 0 || in_range(d, r, value))
            continue;
        char lo[32], hi[32], mult[48] = "";
        if (d->type == SMAP_TUNABLE_SIZE) {
            size_text(r->min, lo, sizeof lo);
            size_text(r->max, hi, sizeof hi);
        } else {
            snprintf(lo, sizeof lo, "%" PRIu64, r->min);
            snprintf(hi, sizeof hi, "%" PRIu64, r->max);
        }
        if (r->multiple) {
            char m[32];
            size_text(r->multiple, m, sizeof m);
            snprintf(mult, sizeof mult, "a multiple of %s ", m);
        }
        snprintf(err, errlen, "is out of range: expected %sfrom %s to %s", mult, lo, hi);
        return -1;
    }
    for (size_t i = 0; i < sizeof choices / sizeof choices[0]; i++) {
        const struct tunable_choices *c = &choices[i];
        if (strcmp(c->name, d->name) == 0 && !is_choice(c->words, *(const char *const *)value)) {
            snprintf(err, errlen, "is not one of %s", c->words);
            return -1;
        }
    }
    return 0;
}

/* Parses the default, then the environment (if set) into one field. */
static int load_one(const struct smap_tunable_desc *d, void *field, char *err, size_t errlen)
{
    if (smap_tunable_parse(d->type, d->def, field) != 0) {
        snprintf(err, errlen, "internal error: default of SMAP_%s is malformed", d->name);
        return -1;
    }
    char var[96];
    snprintf(var, sizeof var, "SMAP_%s", d->name);
    const char *env = getenv(var);
    if (env && smap_tunable_parse(d->type, env, field) != 0) {
        snprintf(err, errlen, "%s='%s' is not a valid %s (%s)", var, env,
                 smap_tunable_type_name(d->type), d->doc);
        return -1;
    }
    char why[160];
    if (env && smap_tunable_check(d, field, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s='%s' %s (%s)", var, env, why, d->doc);
        smap_tunable_parse(d->type, d->def, field);
        return -1;
    }
    return 0;
}

int smap_tunables_load(char *err, size_t errlen)
{
    int rc = 0;
    size_t i = 0;
#define SMAP_TUNABLE(NAME, field, TYPE, def, doc) \
    if (load_one(&smap_tunable_table[i++], &smap_tun.field, err, errlen) != 0) rc = -1;
#include "base/tunables.def"
#undef SMAP_TUNABLE
    return rc;
}

static pthread_once_t ensure_once = PTHREAD_ONCE_INIT;
static int ensure_rc;
static char ensure_err[512];

static void ensure_load(void)
{
    ensure_rc = smap_tunables_load(ensure_err, sizeof ensure_err);
}

int smap_tunables_ensure(char *err, size_t errlen)
{
    pthread_once(&ensure_once, ensure_load);
    if (ensure_rc != 0 && errlen)
        snprintf(err, errlen, "%s", ensure_err);
    return ensure_rc;
}
