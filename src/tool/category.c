/* Categories: one per layer a variable belongs to, all under the root
 * "smartmap" (which also holds tunables no layer has claimed yet).  The
 * set never changes while the process runs, so MPI_T_category_changed
 * always reports the same number. */
#include "tool/tool.h"

#include <string.h>

static const struct {
    const char *name, *desc;
} cats[SMAP_CAT_N] = {
    [SMAP_CAT_ROOT] = { "smartmap", "all of smartmap's variables, by layer" },
    [SMAP_CAT_RUNTIME] = { "smartmap_runtime",
                           "start-up of the library: diagnostics, thread level, node identity" },
    [SMAP_CAT_MEMORY] = { "smartmap_memory",
                          "SMARTMAP exposure of memory and the copy engine (direct, CMA, bounce)" },
    [SMAP_CAT_P2P] = { "smartmap_p2p",
                       "point-to-point protocols on the node: eager and rendezvous limits, "
                       "message counts, queues" },
    [SMAP_CAT_COLL] = { "smartmap_coll", "collective algorithms" },
};

int smap_tool_cat_num(void)
{
    return SMAP_CAT_N;
}

int smap_tool_cat_index(const char *name, int *index)
{
    for (int i = 0; i < SMAP_CAT_N; i++)
        if (!strcmp(cats[i].name, name)) {
            *index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

/* Members of category cat of one kind, in index order: fills at most len
 * of them into out (may be NULL) and returns how many there are. */
static int members(int cat, int kind, int len, int *out)
{
    int n = 0, total = kind == 'c' ? smap_cvar_num() : kind == 'p' ? smap_pvar_num() : SMAP_CAT_N;
    for (int i = 0; i < total; i++) {
        int in;
        if (kind == 'c') {
            struct smap_cvar_info ci;
            in = smap_cvar_info(i, &ci) == MPI_SUCCESS && ci.category == cat;
        } else if (kind == 'p') {
            struct smap_pvar_info pi;
            in = smap_pvar_info(i, &pi) == MPI_SUCCESS && pi.category == cat;
        } else {
            in = cat == SMAP_CAT_ROOT && i != SMAP_CAT_ROOT;
        }
        if (!in)
            continue;
        if (out && n < len)
            out[n] = i;
        n++;
    }
    return n;
}

int smap_tool_cat_info(int index, char *name, int *name_len, char *desc, int *desc_len,
                       int *num_cvars, int *num_pvars, int *num_categories)
{
    if (index < 0 || index >= SMAP_CAT_N)
        return MPI_T_ERR_INVALID_INDEX;
    smap_tool_str(cats[index].name, name, name_len);
    smap_tool_str(cats[index].desc, desc, desc_len);
    if (num_cvars)
        *num_cvars = members(index, 'c', 0, NULL);
    if (num_pvars)
        *num_pvars = members(index, 'p', 0, NULL);
    if (num_categories)
        *num_categories = members(index, 's', 0, NULL);
    return MPI_SUCCESS;
}

int smap_tool_cat_members(int index, int kind, int len, int indices[])
{
    if (index < 0 || index >= SMAP_CAT_N)
        return MPI_T_ERR_INVALID_INDEX;
    (void)members(index, kind, len, indices);
    return MPI_SUCCESS;
}
