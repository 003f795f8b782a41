/* The batch system's allocation, read when the command line names no host:
 * a Slurm job (SLURM_JOB_NODELIST "node[01-03,07],gpu5" with
 * SLURM_TASKS_PER_NODE "2(x3),1,4": slots per node, in the node list's
 * order) or a PBS/Torque job (PBS_NODEFILE: one line per slot).  As Open
 * MPI and hydra do, a plain "mpiexec -n 4 ./a" inside the allocation then
 * spreads the ranks over its nodes, and -n defaults to its slots.  Values
 * are checked: a malformed one is an error naming the variable, never a
 * silently smaller job. */
#include "smrun.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALLOC_MAX_HOSTS 65536
#define ALLOC_MAX_SLOTS 65536

struct expand {
    struct smrun_options *o;
    const char *var;         /* for messages */
    const char *value;
};

static int alloc_error(const struct expand *e, const char *why)
{
    smrun_msg("%s='%s': %s (see smrun --help, Batch allocations)", e->var, e->value, why);
    return SMRUN_EXIT_USAGE;
}

static int push_host(struct smrun_options *o, const char *name, size_t len, int slots)
{
    if (o->nalloc >= ALLOC_MAX_HOSTS)
        return -1;
    struct smrun_alloc_host *a = realloc(o->alloc, (size_t)(o->nalloc + 1) * sizeof *a);
    if (!a)
        return -1;
    o->alloc = a;
    a[o->nalloc].name = strndup(name, len);
    a[o->nalloc].slots = slots;
    if (!a[o->nalloc].name)
        return -1;
    o->nalloc++;
    return 0;
}

/* One "[01-03,07]" group: every number of it, zero-padded to the width of
 * the range's lower bound as Slurm writes them.  Calls back for each. */
static int expand_item(struct expand *e, char *buf, size_t blen, const char *rest);

static int expand_group(struct expand *e, char *buf, size_t blen, const char *open)
{
    const char *close = strchr(open, ']');
    if (!close || memchr(open + 1, '[', (size_t)(close - open - 1)))
        return alloc_error(e, "a '[' without its ']'");
    const char *p = open + 1;
    if (p == close)
        return alloc_error(e, "an empty '[]' range");
    while (p < close) {
        const char *lo = p;
        while (p < close && isdigit((unsigned char)*p))
            p++;
        size_t width = (size_t)(p - lo);
        const char *hi = lo;
        size_t hwidth = width;
        if (p < close && *p == '-') {
            hi = ++p;
            while (p < close && isdigit((unsigned char)*p))
                p++;
            hwidth = (size_t)(p - hi);
        }
        if (width == 0 || hwidth == 0 || width > 9 || hwidth > 9 || (p < close && *p != ','))
            return alloc_error(e, "a range is not N, N-M or a comma-separated list of them");
        long a = strtol(lo, NULL, 10), b = strtol(hi, NULL, 10);
        if (b < a)
            return alloc_error(e, "a range goes downwards");
        if (b - a >= ALLOC_MAX_HOSTS)
            return alloc_error(e, "more than 65536 hosts");
        for (long n = a; n <= b; n++) {
            char *end = buf + blen;
            int k = snprintf(end, 32, "%0*ld", (int)width, n);
            int rc = expand_item(e, buf, blen + (size_t)k, close + 1);
            *end = '\0';
            if (rc != 0)
                return rc;
        }
        if (p < close)
            p++;   /* the comma */
    }
    return 0;
}

/* buf holds the name so far (blen chars); rest: what follows in the item. */
static int expand_item(struct expand *e, char *buf, size_t blen, const char *rest)
{
    size_t n = strcspn(rest, "[],");
    if (blen + n + 32 >= 256)
        return alloc_error(e, "a host name longer than 255 characters");
    memcpy(buf + blen, rest, n);
    buf[blen + n] = '\0';
    if (rest[n] == '[')
        return expand_group(e, buf, blen + n, rest + n);
    if (rest[n] == ']')
        return alloc_error(e, "a ']' without its '['");
    if (blen + n == 0)
        return alloc_error(e, "an empty host name");
    if (push_host(e->o, buf, blen + n, 0) != 0)
        return e->o->nalloc >= ALLOC_MAX_HOSTS ? alloc_error(e, "more than 65536 hosts")
                                                : SMRUN_EXIT_FAILURE;
    return 0;
}

/* Splits the list at the commas outside brackets. */
static int expand_nodelist(struct expand *e)
{
    const char *p = e->value;
    if (!*p)
        return alloc_error(e, "no host");
    for (;;) {
        size_t len = 0;
        int depth = 0;
        while (p[len] && (depth || p[len] != ',')) {
            depth += p[len] == '[' ? 1 : p[len] == ']' ? -1 : 0;
            len++;
        }
        char item[1024], buf[256];
        if (len == 0 || len >= sizeof item)
            return alloc_error(e, len ? "an item is too long" : "an empty item between commas");
        memcpy(item, p, len);
        item[len] = '\0';
        int rc = expand_item(e, buf, 0, item);
        if (rc != 0)
            return rc;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

/* "2(x3),1": 2 slots on each of the first three hosts, then 1. */
static int tasks_per_node(struct expand *e)
{
    const char *p = e->value;
    int host = 0;
    while (*p) {
        char *end;
        errno = 0;
        long slots = strtol(p, &end, 10), times = 1;
        if (errno || end == p || !isdigit((unsigned char)*p) || slots < 1 || slots > ALLOC_MAX_SLOTS)
            return alloc_error(e, "an item is not a positive count, N or N(xM)");
        p = end;
        if (strncmp(p, "(x", 2) == 0) {
            const char *t = p + 2;
            errno = 0;
            times = strtol(t, &end, 10);
            if (errno || end == t || !isdigit((unsigned char)*t) || *end != ')' || times < 1 ||
                times > ALLOC_MAX_HOSTS)
                return alloc_error(e, "a repeat count is not (xM) with M a positive count");
            p = end + 1;
        }
        if (*p && *p != ',')
            return alloc_error(e, "an item is not a positive count, N or N(xM)");
        if (*p == ',' && !*++p)
            return alloc_error(e, "ends with a comma");
        for (long k = 0; k < times; k++, host++) {
            if (host >= e->o->nalloc) {
                char why[128];
                snprintf(why, sizeof why, "counts more nodes than the %d of the node list",
                         e->o->nalloc);
                return alloc_error(e, why);
            }
            e->o->alloc[host].slots = (int)slots;
        }
    }
    if (host != e->o->nalloc) {
        char why[128];
        snprintf(why, sizeof why, "counts %d node%s, but the node list has %d", host,
                 host == 1 ? "" : "s", e->o->nalloc);
        return alloc_error(e, why);
    }
    return 0;
}

static int read_slurm(struct smrun_options *o, const char *nodelist, const char *nlvar)
{
    struct expand e = { .o = o, .var = nlvar, .value = nodelist };
    int rc = expand_nodelist(&e);
    if (rc != 0)
        return rc;
    const char *tpn = getenv("SLURM_TASKS_PER_NODE");
    if (!tpn) {
        smrun_msg("%s is set but SLURM_TASKS_PER_NODE is not: cannot tell the slots of the "
                  "allocation's nodes (give --host or --hostfile)", nlvar);
        return SMRUN_EXIT_USAGE;
    }
    e.var = "SLURM_TASKS_PER_NODE";
    e.value = tpn;
    rc = tasks_per_node(&e);
    o->alloc_src = nlvar;
    o->alloc_slurm = 1;
    return rc;
}

/* PBS_NODEFILE: one host per slot; a host's slots are its lines. */
static int read_pbs(struct smrun_options *o, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        smrun_msg("PBS_NODEFILE=%s: %s", path, strerror(errno));
        return SMRUN_EXIT_USAGE;
    }
    char line[1024];
    int rc = 0, lineno = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        char *h = line + strspn(line, " \t");
        size_t n = strcspn(h, " \t\r\n");
        if (n == 0)
            continue;
        int found = 0;
        for (int i = 0; i < o->nalloc && !found; i++)
            if (strlen(o->alloc[i].name) == n && strncmp(o->alloc[i].name, h, n) == 0)
                found = ++o->alloc[i].slots;
        if (!found && push_host(o, h, n, 1) != 0)
            rc = SMRUN_EXIT_FAILURE;
        if (h[n] && h[n + strspn(h + n, " \t\r\n")]) {
            smrun_msg("PBS_NODEFILE=%s:%d: more than a host name on the line", path, lineno);
            rc = SMRUN_EXIT_USAGE;
        }
    }
    fclose(f);
    if (rc == 0 && o->nalloc == 0) {
        smrun_msg("PBS_NODEFILE=%s: no host in the file", path);
        rc = SMRUN_EXIT_USAGE;
    }
    o->alloc_src = "PBS_NODEFILE";
    return rc;
}

int smrun_alloc_read(struct smrun_options *o)
{
    if (smrun_hosts_requested(o))
        return 0;   /* the user's hosts win */
    const char *nl = getenv("SLURM_JOB_NODELIST"), *var = "SLURM_JOB_NODELIST";
    if (!nl) {
        nl = getenv("SLURM_NODELIST");
        var = "SLURM_NODELIST";
    }
    int rc = 0;
    if (nl)
        rc = read_slurm(o, nl, var);
    else if (getenv("PBS_NODEFILE"))
        rc = read_pbs(o, getenv("PBS_NODEFILE"));
    if (rc == SMRUN_EXIT_FAILURE)
        smrun_msg("out of memory");
    return rc;
}

void smrun_alloc_free(struct smrun_options *o)
{
    for (int i = 0; i < o->nalloc; i++)
        free(o->alloc[i].name);
    free(o->alloc);
    o->alloc = NULL;
    o->nalloc = 0;
}
