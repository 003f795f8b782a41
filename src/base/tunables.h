/* Typed access to the tunables declared in tunables.def. */
#ifndef SMAP_BASE_TUNABLES_H
#define SMAP_BASE_TUNABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum smap_tunable_type { SMAP_TUNABLE_INT, SMAP_TUNABLE_SIZE, SMAP_TUNABLE_BOOL, SMAP_TUNABLE_STR };

/* The current values, one field per table row. */
struct smap_tunables {
#define SMAP_TUNABLE_FIELD_INT  int64_t
#define SMAP_TUNABLE_FIELD_SIZE uint64_t
#define SMAP_TUNABLE_FIELD_BOOL bool
#define SMAP_TUNABLE_FIELD_STR  const char *
#define SMAP_TUNABLE(NAME, field, TYPE, def, doc) SMAP_TUNABLE_FIELD_##TYPE field;
#include "base/tunables.def"
#undef SMAP_TUNABLE
};
extern struct smap_tunables smap_tun;

/* One row of the table, for listing. */
struct smap_tunable_desc {
    const char *name;         /* without the SMAP_ prefix */
    enum smap_tunable_type type;
    const char *def;
    const char *doc;
};
extern const struct smap_tunable_desc smap_tunable_table[];
extern const size_t smap_tunable_count;

/* Reads every SMAP_<NAME> variable.  On a malformed value, writes a message
 * naming the variable into err and returns -1 (values keep their defaults). */
int smap_tunables_load(char *err, size_t errlen);

/* Loads the table once per process (the first of MPI_T_init_thread and
 * MPI_Init does it), so that values a tool wrote through MPI_T before
 * MPI_Init survive it.  Returns 0, or -1 with the first load's message. */
int smap_tunables_ensure(char *err, size_t errlen);

const char *smap_tunable_type_name(enum smap_tunable_type t);

/* Checks a parsed value of row d against its bounds or words in
 * tunables.def.  0, or -1 with the reason ("is out of range: ...") in err. */
int smap_tunable_check(const struct smap_tunable_desc *d, const void *value, char *err,
                       size_t errlen);

/* Parses text as the given type into *out (int64_t, uint64_t, bool or
 * const char *).  Returns 0 or -1. */
int smap_tunable_parse(enum smap_tunable_type t, const char *text, void *out);

#endif
