/* MPI_T enumerations: named value sets that describe an integer variable
 * (the copy level of the SMARTMAP copy engine, the log verbosity). */
#include "tool/tool.h"

#include <stddef.h>

#include "smap/smap.h"

#define SMAP_ENUM_MAGIC 0x454e554du   /* "ENUM" */

struct enum_item {
    int value;
    const char *name;
};

struct MPI_ABI_T_enum {
    unsigned magic;
    const char *name;
    int n;
    const struct enum_item *items;
};

static const struct enum_item copy_levels[] = {
    { SMAP_COPY_DIRECT, "direct" }, { SMAP_COPY_CMA, "cma" }, { SMAP_COPY_BOUNCE, "bounce" },
};
static const struct enum_item verbosities[] = {
    { 0, "error" }, { 1, "warning" }, { 2, "info" }, { 3, "debug" },
};

static struct MPI_ABI_T_enum enums[SMAP_ENUM_N] = {
    [SMAP_ENUM_COPY_LEVEL] = { SMAP_ENUM_MAGIC, "smap_copy_level", 3, copy_levels },
    [SMAP_ENUM_VERBOSITY] = { SMAP_ENUM_MAGIC, "smap_verbosity", 4, verbosities },
};

MPI_T_enum smap_tool_enum(enum smap_tool_enum_id id)
{
    return &enums[id];
}

/* Only our own static objects are enumerations: compare addresses rather
 * than reading through a pointer the caller may have made up. */
static const struct MPI_ABI_T_enum *lookup(MPI_T_enum e)
{
    for (size_t i = 0; i < SMAP_ENUM_N; i++)
        if (e == &enums[i])
            return &enums[i];
    return NULL;
}

int smap_tool_enum_info(MPI_T_enum e, int *num, char *name, int *name_len)
{
    const struct MPI_ABI_T_enum *en = lookup(e);
    if (!en)
        return MPI_T_ERR_INVALID_HANDLE;
    *num = en->n;
    smap_tool_str(en->name, name, name_len);
    return MPI_SUCCESS;
}

int smap_tool_enum_item(MPI_T_enum e, int index, int *value, char *name, int *name_len)
{
    const struct MPI_ABI_T_enum *en = lookup(e);
    if (!en)
        return MPI_T_ERR_INVALID_HANDLE;
    if (index < 0 || index >= en->n)
        return MPI_T_ERR_INVALID_ITEM;
    *value = en->items[index].value;
    smap_tool_str(en->items[index].name, name, name_len);
    return MPI_SUCCESS;
}
