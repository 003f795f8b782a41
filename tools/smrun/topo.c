/* Where on this host each of its ranks runs: --map-by, --rank-by and
 * --bind-to (Open MPI's and hydra's spellings) over hwloc's view of the
 * host, restricted to the CPUs smrun may use.
 *
 * Mapping picks, per rank, PE "units" (cores, or hardware threads with
 * --map-by hwthread): in order (slot, core, hwthread), round robin over
 * the packages, NUMA nodes or L3 caches (socket, numa, l3cache), or N per
 * such object (ppr:N:socket...).  Ranking orders the ranks over those
 * picks (by CPU, or alternating over the objects).  Binding widens each
 * rank's units to the objects of the --bind-to level that hold them.
 * With more ranks than units, mapping wraps around (ranks share CPUs) and
 * says so.  A topology that is not this machine's (HWLOC_SYNTHETIC,
 * HWLOC_XMLFILE: the tests) is reported but not applied.
 *
 * Hosts that are one machine (emulated hosts, containers: the agents'
 * boot ids match) each hold a slice of the machine's ranks (the head
 * numbers them, options' slice_first/slice_total): mapping runs over all
 * of them and this host takes its slice, so two hosts' local ranks 0 are
 * not both pinned to CPU 0 (where a 2-host ping-pong took 100 times
 * longer than unpinned, issue 38). */
#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/machine.h"
#include "smrun.h"

void smrun_machine_id(char *buf, size_t len)
{
    char id[64];
    smap_machine_boot_id(id, sizeof id);
    snprintf(buf, len, "%s", id[0] ? id : "-");
}

/* Why the placement failed (smrun_topo_place's caller reports it). */
static char why[256];
const char *smrun_topo_why(void)
{
    return why;
}

struct level {
    const char *name;
    enum smrun_level lv;
};
static const struct level levels[] = {
    { "hwthread", SMRUN_LV_HWTHREAD }, { "hwthreads", SMRUN_LV_HWTHREAD },
    { "cpu", SMRUN_LV_HWTHREAD },      { "core", SMRUN_LV_CORE },
    { "cores", SMRUN_LV_CORE },        { "slot", SMRUN_LV_SLOT },
    { "l3cache", SMRUN_LV_L3 },        { "l3", SMRUN_LV_L3 },
    { "socket", SMRUN_LV_SOCKET },     { "sockets", SMRUN_LV_SOCKET },
    { "package", SMRUN_LV_SOCKET },    { "numa", SMRUN_LV_NUMA },
    { "numanode", SMRUN_LV_NUMA },     { "node", SMRUN_LV_NODE },
    { "board", SMRUN_LV_NODE },        { "none", SMRUN_LV_NONE },
    { "fill", SMRUN_LV_FILL },         { "span", SMRUN_LV_SPAN },
};

int smrun_level_parse(const char *s, size_t len, enum smrun_level *out)
{
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
        if (strlen(levels[i].name) == len && strncasecmp(levels[i].name, s, len) == 0) {
            *out = levels[i].lv;
            return 0;
        }
    return -1;
}

const char *smrun_level_name(enum smrun_level lv)
{
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
        if (levels[i].lv == lv)
            return levels[i].name;
    return "?";
}

static hwloc_obj_type_t type_of(enum smrun_level lv)
{
    switch (lv) {
    case SMRUN_LV_HWTHREAD: return HWLOC_OBJ_PU;
    case SMRUN_LV_L3: return HWLOC_OBJ_L3CACHE;
    case SMRUN_LV_SOCKET: return HWLOC_OBJ_PACKAGE;
    case SMRUN_LV_NUMA: return HWLOC_OBJ_NUMANODE;
    case SMRUN_LV_NODE: return HWLOC_OBJ_MACHINE;
    default: return HWLOC_OBJ_CORE;
    }
}

/* The objects of level lv, in logical order (a level the host lacks: the
 * whole machine as one). */
static int objects(hwloc_topology_t t, enum smrun_level lv, hwloc_obj_t **out)
{
    hwloc_obj_type_t ty = type_of(lv);
    int n = hwloc_get_nbobjs_by_type(t, ty);
    if (n <= 0 && ty == HWLOC_OBJ_CORE)
        ty = HWLOC_OBJ_PU, n = hwloc_get_nbobjs_by_type(t, ty);
    if (n <= 0)
        ty = HWLOC_OBJ_MACHINE, n = 1;
    *out = malloc((size_t)n * sizeof **out);
    if (!*out)
        return -1;
    for (int i = 0; i < n; i++)
        (*out)[i] = hwloc_get_obj_by_type(t, ty, (unsigned)i);
    return n;
}

/* A unit (core or PU) lies in object o. */
static int within(hwloc_obj_t unit, hwloc_obj_t o)
{
    return hwloc_bitmap_isincluded(unit->cpuset, o->cpuset);
}

struct pick {
    int obj;        /* index of the mapping object (round robin, ppr) */
    int nth;        /* the rank's turn within that object */
    int first;      /* logical index of its first unit (rank-by fill) */
    hwloc_bitmap_t units;
};

/* Assigns PE free units to pick p, taken in order inside object o (NULL:
 * anywhere); 0, or -1 when o has no PE free units left. */
static int take(hwloc_obj_t *units, int nunits, char *used, hwloc_obj_t o, int pe, struct pick *p)
{
    int got = 0;
    for (int u = 0; u < nunits && got < pe; u++)
        if (!used[u] && (!o || within(units[u], o)))
            got++;
    if (got < pe)
        return -1;
    got = 0;
    for (int u = 0; u < nunits && got < pe; u++)
        if (!used[u] && (!o || within(units[u], o))) {
            if (got++ == 0)
                p->first = u;
            used[u] = 1;
            hwloc_bitmap_or(p->units, p->units, units[u]->cpuset);
        }
    return 0;
}

static int map_ranks(const struct smrun_options *o, hwloc_obj_t *units, int nunits,
                     hwloc_obj_t *objs, int nobjs, int n, struct pick *picks, int *wrapped)
{
    char *used = calloc((size_t)nunits, 1);
    int *count = calloc((size_t)nobjs, sizeof(int));
    if (!used || !count) {
        free(used), free(count);
        return -1;
    }
    int pe = o->map_pe > 0 ? o->map_pe : 1, next = 0, rc = 0;
    for (int k = 0; k < n && rc == 0; k++) {
        struct pick *p = &picks[k];
        int ob = o->map_ppr > 0 ? k / o->map_ppr : next % nobjs;
        if (o->map_ppr > 0 && ob >= nobjs) {
            snprintf(why, sizeof why,
                     "--map-by ppr:%d:%s allows at most %d ranks on this host (it has %d of "
                     "level %s), but %d ranks were placed here",
                     o->map_ppr, smrun_level_name(o->map), o->map_ppr * nobjs, nobjs,
                     smrun_level_name(o->map), n);
            rc = SMRUN_EXIT_USAGE;
            break;
        }
        /* round robin: the next object that still has room */
        for (int tries = 0; o->map_ppr == 0 && tries < nobjs; tries++, ob = (ob + 1) % nobjs) {
            if (take(units, nunits, used, objs[ob], pe, p) == 0)
                goto placed;
        }
        if (o->map_ppr > 0 && take(units, nunits, used, objs[ob], pe, p) == 0)
            goto placed;
        /* every unit is taken: start over (ranks share CPUs) */
        *wrapped = 1;
        memset(used, 0, (size_t)nunits);
        if (take(units, nunits, used, objs[ob], pe, p) != 0) {
            snprintf(why, sizeof why, "--map-by %s:PE=%d: this host has fewer than %d %s per %s",
                     smrun_level_name(o->map), pe, pe,
                     o->map == SMRUN_LV_HWTHREAD ? "hardware threads" : "cores",
                     o->map == SMRUN_LV_SOCKET || o->map == SMRUN_LV_NUMA || o->map == SMRUN_LV_L3
                         ? smrun_level_name(o->map)
                         : "host");
            rc = SMRUN_EXIT_USAGE;
            break;
        }
    placed:
        p->obj = ob;
        p->nth = count[ob]++;
        next = ob + 1;
    }
    free(used), free(count);
    return rc;
}

/* --rank-by socket (numa, l3cache, span): each pick's object of that
 * level and its turn there (by CPU), so that ranks alternate objects. */
static void rank_keys(hwloc_topology_t t, enum smrun_level by, hwloc_obj_t *units,
                      struct pick *picks, int n)
{
    hwloc_obj_t *objs;
    int nobjs = objects(t, by == SMRUN_LV_SPAN ? SMRUN_LV_SOCKET : by, &objs);
    for (int k = 0; k < n; k++) {
        picks[k].obj = 0;
        for (int i = 0; i < nobjs; i++)
            if (within(units[picks[k].first], objs[i]))
                picks[k].obj = i;
    }
    for (int k = 0; k < n; k++) {
        picks[k].nth = 0;
        for (int j = 0; j < n; j++)
            picks[k].nth += picks[j].obj == picks[k].obj && picks[j].first < picks[k].first;
    }
    free(objs);
}

struct rank_order {
    const struct pick *picks;
    enum smrun_level by;
};
static int by_rank_order(const void *a, const void *b, void *arg)
{
    const struct rank_order *ro = arg;
    const struct pick *x = &ro->picks[*(const int *)a], *y = &ro->picks[*(const int *)b];
    enum smrun_level sort_by = ro->by;
    if (sort_by == SMRUN_LV_SPAN || sort_by == SMRUN_LV_SOCKET || sort_by == SMRUN_LV_NUMA ||
        sort_by == SMRUN_LV_L3) {
        if (x->nth != y->nth)
            return x->nth < y->nth ? -1 : 1;
        if (x->obj != y->obj)
            return x->obj < y->obj ? -1 : 1;
    }
    return x->first < y->first ? -1 : x->first > y->first;
}

/* The binding of a pick: its units widened to the --bind-to level. */
static hwloc_bitmap_t widen(hwloc_topology_t t, const struct pick *p, enum smrun_level bind)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set)
        return NULL;
    if (bind == SMRUN_LV_HWTHREAD) {   /* the first hardware thread of each core it has */
        hwloc_bitmap_t in_core = hwloc_bitmap_alloc();
        hwloc_obj_t pu = NULL;
        while (in_core &&
               (pu = hwloc_get_next_obj_inside_cpuset_by_type(t, p->units, HWLOC_OBJ_PU, pu))) {
            hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, pu);
            if (core)
                hwloc_bitmap_and(in_core, core->cpuset, p->units);
            if (!core || hwloc_bitmap_first(in_core) == (int)pu->os_index)
                hwloc_bitmap_set(set, pu->os_index);
        }
        hwloc_bitmap_free(in_core);
        return set;
    }
    hwloc_obj_type_t ty = type_of(bind);
    hwloc_obj_t u = NULL;
    while ((u = hwloc_get_next_obj_inside_cpuset_by_type(t, p->units, HWLOC_OBJ_PU, u))) {
        hwloc_obj_t a = ty == HWLOC_OBJ_NUMANODE ? NULL : hwloc_get_ancestor_obj_by_type(t, ty, u);
        if (ty == HWLOC_OBJ_NUMANODE) {   /* memory children: by locality */
            hwloc_obj_t nn = NULL;
            while ((nn = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, nn)))
                if (hwloc_bitmap_isset(nn->cpuset, u->os_index))
                    a = nn;
        }
        hwloc_bitmap_or(set, set, a ? a->cpuset : u->cpuset);
    }
    hwloc_bitmap_and(set, set, hwloc_topology_get_allowed_cpuset(t));
    return set;
}

int smrun_topo_place(struct smrun_job *job)
{
    const struct smrun_options *o = job->opt;
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0 || hwloc_topology_load(t) != 0) {
        smrun_msg("warning: cannot read this host's topology (hwloc): %s; ranks not bound",
                  strerror(errno));
        return 0;
    }
    job->topo_foreign = !hwloc_topology_is_thissystem(t);
    /* the CPUs smrun itself may run on (taskset, a batch system's mask),
     * which hwloc does not treat as disallowed */
    hwloc_bitmap_t mine = hwloc_bitmap_alloc();
    if (!job->topo_foreign && mine && hwloc_get_cpubind(t, mine, HWLOC_CPUBIND_PROCESS) == 0 &&
        !hwloc_bitmap_isequal(mine, hwloc_topology_get_topology_cpuset(t)))
        (void)hwloc_topology_restrict(t, mine, 0);
    hwloc_bitmap_free(mine);
    hwloc_obj_t *units = NULL, *objs = NULL;
    /* the machine's ranks when hosts share it, ours from `first` */
    int all = job->n, first = 0;
    if (!job->topo_foreign && o->slice_total > job->n && o->slice_first + job->n <= o->slice_total)
        all = o->slice_total, first = o->slice_first;
    struct pick *picks = calloc((size_t)all, sizeof *picks);
    int *order = calloc((size_t)job->n, sizeof *order);
    int nunits = objects(t, o->map == SMRUN_LV_HWTHREAD ? SMRUN_LV_HWTHREAD : SMRUN_LV_CORE,
                         &units);
    enum smrun_level per = o->map == SMRUN_LV_SOCKET || o->map == SMRUN_LV_NUMA ||
                                   o->map == SMRUN_LV_L3
                               ? o->map
                               : SMRUN_LV_NODE;
    int nobjs = objects(t, per, &objs), rc = 0, wrapped = 0;
    if (!picks || !order || nunits < 0 || nobjs < 0) {
        rc = SMRUN_EXIT_FAILURE;
        goto out;
    }
    for (int k = 0; k < all; k++)
        if (!(picks[k].units = hwloc_bitmap_alloc())) {
            rc = SMRUN_EXIT_FAILURE;
            goto out;
        }
    if ((rc = map_ranks(o, units, nunits, objs, nobjs, all, picks, &wrapped)))
        goto out;
    enum smrun_level bind = o->bind_level;
    if (bind == SMRUN_LV_DEFAULT)   /* pinned while each rank has a core of its own */
        bind = wrapped || all > nunits ? SMRUN_LV_NONE
               : o->map_pe > 1        ? SMRUN_LV_CORE
                                      : (o->map == SMRUN_LV_HWTHREAD ? SMRUN_LV_HWTHREAD
                                                                     : SMRUN_LV_CORE);
    if (wrapped && bind != SMRUN_LV_NONE)
        smrun_msg("warning: %d ranks on %d %s: mapping wraps around, ranks share CPUs", all,
                  nunits, o->map == SMRUN_LV_HWTHREAD ? "hardware threads" : "cores");
    for (int k = 0; k < job->n; k++)
        order[k] = first + k;
    if (o->rank_by == SMRUN_LV_SPAN || o->rank_by == SMRUN_LV_SOCKET ||
        o->rank_by == SMRUN_LV_NUMA || o->rank_by == SMRUN_LV_L3)
        rank_keys(t, o->rank_by, units, picks, all);
    if (o->rank_by != SMRUN_LV_DEFAULT && o->rank_by != SMRUN_LV_NODE)
        qsort_r(order, (size_t)job->n, sizeof *order, by_rank_order,
                &(struct rank_order){ picks, o->rank_by });
    job->ncores = nunits;
    job->machine_ranks = all;
    job->bind = bind != SMRUN_LV_NONE && !job->topo_foreign;
    job->bind_level = bind;
    for (int k = 0; k < job->n && bind != SMRUN_LV_NONE; k++) {
        hwloc_bitmap_t set = widen(t, &picks[order[k]], bind);
        if (!set) {
            rc = SMRUN_EXIT_FAILURE;
            goto out;
        }
        char *list = NULL;
        if (hwloc_bitmap_list_asprintf(&list, set) < 0)
            list = NULL;
        job->ranks[k].cpulist = list;
        hwloc_bitmap_free(set);
    }
out:
    for (int k = 0; picks && k < all; k++)
        hwloc_bitmap_free(picks[k].units);
    free(picks), free(order), free(units), free(objs);
    hwloc_topology_destroy(t);
    if (rc == SMRUN_EXIT_FAILURE)
        snprintf(why, sizeof why, "out of memory while mapping the ranks");
    return rc;
}

/* In the rank, before exec: its CPU list ("0-3,8") as its affinity. */
void smrun_topo_bind_self(const char *cpulist)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set || hwloc_bitmap_list_sscanf(set, cpulist) != 0) {
        hwloc_bitmap_free(set);
        return;
    }
    int last = hwloc_bitmap_last(set);
    cpu_set_t *cs = CPU_ALLOC(last + 1);
    size_t size = CPU_ALLOC_SIZE(last + 1);
    if (cs) {
        CPU_ZERO_S(size, cs);
        int c;
        hwloc_bitmap_foreach_begin(c, set) CPU_SET_S((unsigned)c, size, cs);
        hwloc_bitmap_foreach_end();
        if (sched_setaffinity(0, size, cs) != 0)
            dprintf(STDERR_FILENO, "smrun: warning: cannot bind to CPUs %s: %s\n", cpulist,
                    strerror(errno));
        CPU_FREE(cs);
    }
    hwloc_bitmap_free(set);
}
