/* smrun's command line.  Options come before the program; the first
 * argument that is not an option (or anything after "--") starts the
 * program's own command line.  Long options take one or two dashes
 * (-np, --np; -bind-to, --bind-to) so command lines written for Open MPI's
 * mpirun and MPICH's mpiexec both work. */
#include "smrun.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <net/if.h>

#include "smap_config.h"

#define SMRUN_MAX_RANKS 65536
#define SMRUN_CONTINUE  (-1)

static void print_version(void)
{
    printf("smrun (smartmap) %s\n%s\n", SMAP_VERSION_STRING, SMAP_BUILD_OPTIONS);
}

static int usage_error(const char *fmt, ...) SMAP_PRINTF_LIKE(1, 2);
static int usage_error(const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    smrun_msg("%s (see smrun --help)", text);
    return SMRUN_EXIT_USAGE;
}

/* Accepts only a whole positive decimal integer. */
static int parse_nranks(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > SMRUN_MAX_RANKS)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_seconds(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < 0 || v > 1e9)
        return -1;
    *out = v;
    return 0;
}

static int valid_env_name(const char *s, size_t len)
{
    if (len == 0 || (s[0] >= '0' && s[0] <= '9'))
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9')))
            return 0;
    return 1;
}

static int push_env(char ***envp, int *nenv, const char *name, size_t nlen, const char *value)
{
    char **env = realloc(*envp, (size_t)(*nenv + 1) * sizeof *env);
    if (!env)
        return -1;
    *envp = env;
    size_t vlen = strlen(value);
    char *entry = malloc(nlen + vlen + 2);
    if (!entry)
        return -1;
    memcpy(entry, name, nlen);
    entry[nlen] = '=';
    memcpy(entry + nlen + 1, value, vlen + 1);
    env[(*nenv)++] = entry;
    return 0;
}

static int add_env(struct smrun_options *o, const char *name, size_t nlen, const char *value)
{
    return push_env(&o->env, &o->nenv, name, nlen, value);
}

/* -x VAR or -x VAR=value */
static int opt_export(struct smrun_options *o, const char *arg)
{
    const char *eq = strchr(arg, '=');
    size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
    if (!valid_env_name(arg, nlen))
        return usage_error("-x: '%s' is not a valid variable name%s", arg, "");
    if (eq)
        return add_env(o, arg, nlen, eq + 1) ? SMRUN_EXIT_FAILURE : SMRUN_CONTINUE;
    const char *value = getenv(arg);
    if (!value) {
        /* Nothing to export; the rank would not have it either way. */
        if (!o->quiet)
            smrun_msg("warning: -x %s: %s is not set in smrun's environment", arg, arg);
        return SMRUN_CONTINUE;
    }
    return add_env(o, arg, nlen, value) ? SMRUN_EXIT_FAILURE : SMRUN_CONTINUE;
}

static int opt_genv(struct smrun_options *o, const char *name, const char *value)
{
    if (!valid_env_name(name, strlen(name)))
        return usage_error("-genv: '%s' is not a valid variable name%s", name, "");
    return add_env(o, name, strlen(name), value) ? SMRUN_EXIT_FAILURE : SMRUN_CONTINUE;
}

/* --bind-to LEVEL[:qualifiers] (Open MPI's overload-allowed and
 * if-supported qualifiers change nothing here: binding never refuses). */
static int parse_bind(struct smrun_options *o, const char *opt, const char *arg)
{
    size_t len = strcspn(arg, ":");
    enum smrun_level lv;
    if (smrun_level_parse(arg, len, &lv) != 0 || lv == SMRUN_LV_SLOT || lv == SMRUN_LV_NODE ||
        lv == SMRUN_LV_FILL || lv == SMRUN_LV_SPAN || lv == SMRUN_LV_DEFAULT)
        return usage_error("%s: '%s' is not a binding level (hwthread, core, l3cache, socket, "
                           "numa or none)", opt, arg);
    o->bind_level = lv;
    o->bind_spec = arg;
    return SMRUN_CONTINUE;
}

/* The qualifiers of --map-by: ":PE=n" (CPUs per rank); others (Open MPI's
 * oversubscribe, span, ...) are accepted and change nothing. */
static int map_qualifiers(struct smrun_options *o, const char *opt, const char *arg, const char *q)
{
    while (*q == ':') {
        q++;
        size_t len = strcspn(q, ":");
        if (strncasecmp(q, "PE=", 3) == 0) {
            char num[16];
            size_t nl = len - 3 < sizeof num - 1 ? len - 3 : sizeof num - 1;
            memcpy(num, q + 3, nl);
            num[nl] = '\0';
            if (parse_nranks(num, &o->map_pe))
                return usage_error("%s: '%s': PE= needs a positive number of CPUs per rank", opt, arg);
        }
        q += len;
    }
    return SMRUN_CONTINUE;
}

/* --map-by slot|hwthread|core|l3cache|socket|numa|node|ppr:N:LEVEL[:PE=n] */
static int parse_map(struct smrun_options *o, const char *opt, const char *arg)
{
    const char *q = arg;
    if (strncasecmp(arg, "ppr:", 4) == 0) {
        char *end;
        long n = strtol(arg + 4, &end, 10);
        size_t len = *end == ':' ? strcspn(end + 1, ":") : 0;
        enum smrun_level lv;
        if (n <= 0 || n > 65536 || !len || smrun_level_parse(end + 1, len, &lv) != 0 ||
            (lv != SMRUN_LV_NODE && lv != SMRUN_LV_SOCKET && lv != SMRUN_LV_NUMA &&
             lv != SMRUN_LV_L3 && lv != SMRUN_LV_CORE && lv != SMRUN_LV_HWTHREAD))
            return usage_error("%s: '%s' is not ppr:N:LEVEL (N ranks per node, socket, numa, "
                               "l3cache, core or hwthread)", opt, arg);
        if (lv == SMRUN_LV_NODE) {
            o->ppn = (int)n;     /* as -N / --npernode */
            lv = SMRUN_LV_CORE;
        } else if (lv == SMRUN_LV_CORE || lv == SMRUN_LV_HWTHREAD) {
            if (n > 1)
                return usage_error("%s: '%s': more than one rank per %s would share it; use "
                                   "ppr:N:socket or --map-by %s", opt, arg,
                                   smrun_level_name(lv), smrun_level_name(lv));
        } else {
            o->map_ppr = (int)n;
        }
        o->map = lv;
        q = end + 1 + len;
    } else {
        size_t len = strcspn(arg, ":");
        enum smrun_level lv;
        if (smrun_level_parse(arg, len, &lv) != 0 || lv == SMRUN_LV_NONE ||
            lv == SMRUN_LV_FILL || lv == SMRUN_LV_SPAN || lv == SMRUN_LV_DEFAULT)
            return usage_error("%s: '%s' is not a mapping (slot, hwthread, core, l3cache, "
                               "socket, numa, node or ppr:N:LEVEL)", opt, arg);
        o->map = lv == SMRUN_LV_SLOT ? SMRUN_LV_CORE : lv;
        q = arg + len;
    }
    o->map_spec = arg;
    return map_qualifiers(o, opt, arg, q);
}

/* --rank-by slot|hwthread|core|l3cache|socket|numa|node|fill|span */
static int parse_rank(struct smrun_options *o, const char *opt, const char *arg)
{
    size_t len = strcspn(arg, ":");
    enum smrun_level lv;
    if (smrun_level_parse(arg, len, &lv) != 0 || lv == SMRUN_LV_NONE || lv == SMRUN_LV_DEFAULT)
        return usage_error("%s: '%s' is not a ranking (slot, hwthread, core, l3cache, socket, "
                           "numa, node, fill or span)", opt, arg);
    o->rank_by = lv;
    o->rank_spec = arg;
    return SMRUN_CONTINUE;
}

int smrun_options_placement(struct smrun_options *o, const char *bind, const char *map,
                            const char *rank)
{
    int rc = SMRUN_CONTINUE;
    if (bind && *bind && strcmp(bind, "-") != 0)
        rc = parse_bind(o, "--bind-to", bind);
    if (rc == SMRUN_CONTINUE && map && *map && strcmp(map, "-") != 0)
        rc = parse_map(o, "--map-by", map);
    if (rc == SMRUN_CONTINUE && rank && *rank && strcmp(rank, "-") != 0)
        rc = parse_rank(o, "--rank-by", rank);
    return rc == SMRUN_CONTINUE ? 0 : rc;
}

/* -genvlist A,B,C: -x for each name, with smrun's value. */
static int opt_envlist(struct smrun_options *o, const char *opt, const char *list)
{
    const char *p = list;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char name[256];
        if (len == 0 || len >= sizeof name || !valid_env_name(p, len))
            return usage_error("%s: '%s' is not a comma-separated list of variable names", opt, list);
        memcpy(name, p, len);
        name[len] = '\0';
        const char *value = getenv(name);
        if (!value) {
            if (!o->quiet)
                smrun_msg("warning: %s %s: %s is not set in smrun's environment", opt, list, name);
        } else if (add_env(o, name, len, value)) {
            return SMRUN_EXIT_FAILURE;
        }
        p += len + (comma ? 1 : 0);
    }
    return SMRUN_CONTINUE;
}

/* -launcher NAME (hydra): ssh, rsh, fork or slurm; any other word is the
 * remote-shell command itself, as smrun's --launcher CMD always was. */
static int opt_launcher(struct smrun_options *o, const char *opt, const char *arg)
{
    static const char *const unsupported[] = { "pbs", "ll", "lsf", "sge", "manual", "persist" };
    if (!*arg)
        return usage_error("%s: empty launcher command%s", opt, "");
    for (size_t i = 0; i < SMAP_ARRAY_SIZE(unsupported); i++)
        if (strcmp(arg, unsupported[i]) == 0)
            return usage_error("%s %s: not supported (use ssh, rsh, fork, slurm or a remote-shell "
                               "command)", opt, arg);
    if (strcmp(arg, "fork") == 0) {
        o->launch = SMRUN_LAUNCH_FORK;
    } else if (strcmp(arg, "slurm") == 0) {
        o->launch = SMRUN_LAUNCH_SLURM;
    } else {
        o->launch = SMRUN_LAUNCH_RSH;
        o->launcher = arg;
    }
    return SMRUN_CONTINUE;
}

/* --output-filename DIR[:nocopy,nojobid] (Open MPI's directives, any
 * case); DIR is taken from where smrun starts, before -wdir. */
static int opt_output_filename(struct smrun_options *o, const char *opt, const char *arg)
{
    char dir[PATH_MAX], cwd[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", arg);
    char *colon = strrchr(dir, ':');
    if (colon) {
        *colon = '\0';
        char *save = NULL;
        for (char *d = strtok_r(colon + 1, ",", &save); d; d = strtok_r(NULL, ",", &save)) {
            if (strcasecmp(d, "nocopy") == 0)
                o->output_nocopy = 1;
            else if (strcasecmp(d, "nojobid") == 0)
                o->output_nojobid = 1;
            else
                return usage_error("--output-filename: unknown directive '%s' (known: nocopy, "
                                   "nojobid)%s", d, "");
        }
    }
    if (!dir[0])
        return usage_error("%s: empty directory%s", opt, "");
    if (dir[0] != '/' && !getcwd(cwd, sizeof cwd))
        return usage_error("%s: cannot tell the current directory%s", opt, "");
    free(o->output_dir);
    if (asprintf(&o->output_dir, "%s%s%s", dir[0] == '/' ? "" : cwd, dir[0] == '/' ? "" : "/",
                 dir) < 0) {
        o->output_dir = NULL;
        return SMRUN_EXIT_FAILURE;
    }
    return SMRUN_CONTINUE;
}

/* hydra's -outfile-pattern/-errfile-pattern: %r %h %p %g %t %%. */
static int opt_pattern(char **dst, const char *opt, const char *arg)
{
    char bad = 0;
    if (!*arg)
        return usage_error("%s: empty file name%s", opt, "");
    if (smrun_outfiles_check_pattern(arg, &bad) != 0) {
        char what[8];
        snprintf(what, sizeof what, "%%%c", bad);
        return usage_error(bad ? "%s: unknown specifier '%s' (known: %%r, %%h, %%p, %%g, %%t, %%%%)"
                               : "%s: a '%%' at the end%s", opt, bad ? what : "");
    }
    free(*dst);
    *dst = strdup(arg);
    return *dst ? SMRUN_CONTINUE : SMRUN_EXIT_FAILURE;
}

static int opt_host(struct smrun_options *o, char *arg)
{
    char **specs = realloc(o->host_specs, (size_t)(o->nhost_specs + 1) * sizeof *specs);
    if (!specs)
        return SMRUN_EXIT_FAILURE;
    o->host_specs = specs;
    o->host_specs[o->nhost_specs++] = arg;
    return SMRUN_CONTINUE;
}

enum opt_id {
    O_NP, O_X, O_GENV, O_BIND, O_REPORT, O_TAG, O_TIMEOUT, O_VERBOSE, O_HELP, O_VERSION,
    O_HOST, O_HOSTFILE, O_PPN, O_LAUNCHER, O_LAUNCHER_EXEC, O_HEAD_ADDR,
    O_WDIR, O_ENVLIST, O_QUIET, O_MCA, O_ACCEPTED, O_TIMESTAMP, O_DISPLAY_MAP,
    O_ENVNONE, O_ENVALL, O_OUTPUT_FILENAME, O_OUTFILE, O_ERRFILE, O_IFACE,
    O_MAP, O_RANK, O_NAMESERVER, O_USIZE,
};

struct opt_def {
    const char *name;        /* matched after stripping one or two dashes */
    enum opt_id id;
    int nargs;
};

static const struct opt_def opt_table[] = {
    { "n", O_NP, 1 },           { "np", O_NP, 1 },
    { "x", O_X, 1 },
    { "genv", O_GENV, 2 },      { "env", O_GENV, 2 },
    { "bind-to", O_BIND, 1 },   { "bind", O_BIND, 1 },
    { "map-by", O_MAP, 1 },     { "rank-by", O_RANK, 1 },
    { "report-bindings", O_REPORT, 0 },
    { "l", O_TAG, 0 },          { "tag-output", O_TAG, 0 }, { "prepend-rank", O_TAG, 0 },
    { "timeout", O_TIMEOUT, 1 },
    { "v", O_VERBOSE, 0 },      { "verbose", O_VERBOSE, 0 },
    { "h", O_HELP, 0 },         { "help", O_HELP, 0 },
    { "V", O_VERSION, 0 },      { "version", O_VERSION, 0 },
    /* Across hosts: Open MPI, MPICH (hydra) and Slurm-style spellings. */
    { "host", O_HOST, 1 },      { "hosts", O_HOST, 1 },     { "H", O_HOST, 1 },
    { "hostfile", O_HOSTFILE, 1 }, { "f", O_HOSTFILE, 1 }, { "machinefile", O_HOSTFILE, 1 },
    { "ppn", O_PPN, 1 },        { "npernode", O_PPN, 1 },
    { "launcher", O_LAUNCHER, 1 }, { "bootstrap", O_LAUNCHER, 1 },
    { "launcher-exec", O_LAUNCHER_EXEC, 1 }, { "bootstrap-exec", O_LAUNCHER_EXEC, 1 },
    { "head-addr", O_HEAD_ADDR, 1 }, { "localhost", O_HEAD_ADDR, 1 },
    { "iface", O_IFACE, 1 },
    { "nameserver", O_NAMESERVER, 1 },
    { "usize", O_USIZE, 1 }, { "universe-size", O_USIZE, 1 },
    { "N", O_PPN, 1 },
    { "timestamp-output", O_TIMESTAMP, 0 },
    { "display-map", O_DISPLAY_MAP, 0 },
    { "wdir", O_WDIR, 1 },      { "wd", O_WDIR, 1 },
    { "genvlist", O_ENVLIST, 1 }, { "envlist", O_ENVLIST, 1 },
    { "q", O_QUIET, 0 },        { "quiet", O_QUIET, 0 },
    { "mca", O_MCA, 2 },        { "gmca", O_MCA, 2 },
    /* What smartmap does anyway: accepted so that scripts written for
     * Open MPI or hydra run unchanged. */
    { "oversubscribe", O_ACCEPTED, 0 }, { "allow-run-as-root", O_ACCEPTED, 0 },
    { "genvall", O_ENVALL, 0 }, { "envall", O_ENVALL, 0 },
    { "genvnone", O_ENVNONE, 0 }, { "envnone", O_ENVNONE, 0 },
    { "output-filename", O_OUTPUT_FILENAME, 1 },
    { "outfile-pattern", O_OUTFILE, 1 }, { "errfile-pattern", O_ERRFILE, 1 },
};

/* Finds the option for "-name", "--name" or "--name=value". */
static const struct opt_def *lookup(const char *arg, const char **inline_value)
{
    const char *name = arg + (arg[1] == '-' ? 2 : 1);
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    for (size_t i = 0; i < SMAP_ARRAY_SIZE(opt_table); i++) {
        if (strlen(opt_table[i].name) == len && strncmp(opt_table[i].name, name, len) == 0) {
            *inline_value = eq ? eq + 1 : NULL;
            return &opt_table[i];
        }
    }
    return NULL;
}

static int apply(struct smrun_options *o, const struct opt_def *d, const char *opt, char **args)
{
    switch (d->id) {
    case O_NP:
        if (parse_nranks(args[0], &o->nranks))
            return usage_error("%s: '%s' is not a valid number of ranks (expected a positive integer)",
                               opt, args[0]);
        o->nranks_given = 1;
        return SMRUN_CONTINUE;
    case O_HOST:    return opt_host(o, args[0]);
    case O_HOSTFILE: o->hostfile = args[0]; return SMRUN_CONTINUE;
    case O_PPN:
        if (parse_nranks(args[0], &o->ppn))
            return usage_error("%s: '%s' is not a valid number of ranks per host", opt, args[0]);
        return SMRUN_CONTINUE;
    case O_LAUNCHER:       return opt_launcher(o, opt, args[0]);
    case O_LAUNCHER_EXEC:
        if (!*args[0])
            return usage_error("%s: empty launcher command%s", opt, "");
        o->launcher = args[0];
        return SMRUN_CONTINUE;
    case O_HEAD_ADDR: o->head_addr = args[0]; return SMRUN_CONTINUE;
    case O_NAMESERVER:
        /* read by the name requests (dynamic.c) and by spawned jobs */
        if (!*args[0] || setenv("SMRUN_NAMESERVER", args[0], 1) != 0)
            return usage_error("%s: empty or unusable name server address%s", opt, "");
        return SMRUN_CONTINUE;
    case O_USIZE:
        if (parse_nranks(args[0], &o->universe))
            return usage_error("%s: '%s' is not a valid universe size (expected a positive integer)",
                               opt, args[0]);
        return SMRUN_CONTINUE;
    case O_IFACE:
        if (!*args[0])
            return usage_error("%s: empty interface name%s", opt, "");
        o->iface = args[0];
        return SMRUN_CONTINUE;
    case O_X:       return opt_export(o, args[0]);
    case O_GENV:    return opt_genv(o, args[0], args[1]);
    case O_BIND:    return parse_bind(o, opt, args[0]);
    case O_MAP:     return parse_map(o, opt, args[0]);
    case O_RANK:    return parse_rank(o, opt, args[0]);
    case O_REPORT:  o->report_bindings = 1; return SMRUN_CONTINUE;
    case O_TAG:     o->tag_output |= SMRUN_TAG_RANK; return SMRUN_CONTINUE;
    case O_TIMESTAMP: o->tag_output |= SMRUN_TAG_TIME; return SMRUN_CONTINUE;
    case O_DISPLAY_MAP: o->display_map = 1; return SMRUN_CONTINUE;
    case O_WDIR:
        if (!*args[0])
            return usage_error("%s: empty directory%s", opt, "");
        o->wdir = args[0];
        return SMRUN_CONTINUE;
    case O_ENVLIST: return opt_envlist(o, opt, args[0]);
    case O_QUIET:   o->quiet = 1; return SMRUN_CONTINUE;
    case O_MCA:
        if (!o->quiet)
            smrun_msg("warning: %s %s %s is an Open MPI parameter; smartmap ignores it "
                      "(its tunables are SMAP_* variables: smartmap_info)", opt, args[0], args[1]);
        return SMRUN_CONTINUE;
    case O_ACCEPTED: return SMRUN_CONTINUE;
    case O_ENVNONE: o->envnone = 1; return SMRUN_CONTINUE;
    case O_ENVALL:  o->envnone = 0; return SMRUN_CONTINUE;
    case O_OUTPUT_FILENAME: return opt_output_filename(o, opt, args[0]);
    case O_OUTFILE: return opt_pattern(&o->outfile_pattern, opt, args[0]);
    case O_ERRFILE: return opt_pattern(&o->errfile_pattern, opt, args[0]);
    case O_VERBOSE: o->verbose = 1; return SMRUN_CONTINUE;
    case O_TIMEOUT:
        if (parse_seconds(args[0], &o->timeout_s))
            return usage_error("%s: '%s' is not a valid number of seconds", opt, args[0]);
        return SMRUN_CONTINUE;
    case O_HELP:
        fputs(smrun_usage_text, stdout);
        return 0;
    case O_VERSION:
        print_version();
        return 0;
    }
    return SMRUN_CONTINUE;
}

/* Defaults from the environment; the command line overrides them. */
static int defaults_from_env(struct smrun_options *o)
{
    const char *s = getenv("MPIEXEC_TIMEOUT");
    if (s && *s && parse_seconds(s, &o->timeout_s))
        return usage_error("MPIEXEC_TIMEOUT='%s' is not a valid number of seconds%s", s, "");
    s = getenv("SMRUN_BIND_TO");
    if (s && *s && parse_bind(o, "SMRUN_BIND_TO", s) != SMRUN_CONTINUE)
        return SMRUN_EXIT_USAGE;
    return SMRUN_CONTINUE;
}

/* -iface IF: the interface must exist here (where the head listens); the
 * ranks' network engines get it through their variables, unless the user
 * set one (in smrun's environment or with -genv/-x). */
static int apply_iface(struct smrun_options *o)
{
    static const char *const vars[] = { "FI_TCP_IFACE", "FI_NET_IFACE", "FI_SOCKETS_IFACE",
                                        "UCX_NET_DEVICES" };
    if (!o->iface)
        return SMRUN_CONTINUE;
    if (if_nametoindex(o->iface) == 0) {
        char names[512] = "";
        struct if_nameindex *ifs = if_nameindex();
        for (struct if_nameindex *i = ifs; i && i->if_name; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                     names[0] ? ", " : "", i->if_name);
        if (ifs)
            if_freenameindex(ifs);
        smrun_msg("-iface %s: no such network interface here (there are: %s)", o->iface, names);
        return SMRUN_EXIT_USAGE;
    }
    for (size_t v = 0; v < SMAP_ARRAY_SIZE(vars); v++) {
        size_t n = strlen(vars[v]);
        int given = getenv(vars[v]) != NULL;
        for (int i = 0; i < o->nenv && !given; i++)
            given = strncmp(o->env[i], vars[v], n) == 0 && o->env[i][n] == '=';
        if (!given && add_env(o, vars[v], n, o->iface))
            return SMRUN_EXIT_FAILURE;
    }
    return SMRUN_CONTINUE;
}

/* ---- MPMD: "-n 1 ./a x : -n 2 -env V 1 ./b y" ------------------------- */

static int is_colon(const char *a)
{
    return a && strcmp(a, ":") == 0;
}

/* A part's own options (hydra's local options, Open MPI's per-app ones);
 * k: the first word after ':'.  Returns the index of its program or an
 * exit code (> argc never happens: codes are small, checked by caller). */
static int parse_part_options(int argc, char **argv, int k, struct smrun_app *a, int *next)
{
    while (k < argc && argv[k][0] == '-' && argv[k][1] && !is_colon(argv[k])) {
        const char *arg = argv[k];
        if (strcmp(arg, "--") == 0) {
            k++;
            break;
        }
        const char *name = arg + (arg[1] == '-' ? 2 : 1);
        if (!strcmp(name, "envnone") || !strcmp(name, "envall")) {
            a->envnone = !strcmp(name, "envnone");
            k++;
            continue;
        }
        int is_host = !strcmp(name, "host") || !strcmp(name, "hosts") || !strcmp(name, "H");
        int nargs = !strcmp(name, "env") || !strcmp(name, "genv") ? 2 :
                    !strcmp(name, "n") || !strcmp(name, "np") || !strcmp(name, "x") ||
                    !strcmp(name, "wdir") || !strcmp(name, "wd") || is_host ? 1 : -1;
        if (nargs < 0)
            return usage_error("option '%s' is not one of an MPMD part's (-n, -env, -x, -wdir, "
                               "-host, -envnone, -envall); "
                               "put it before the first program%s", arg, "");
        if (k + nargs >= argc)
            return usage_error("option '%s' needs %s", arg, nargs == 2 ? "two arguments" : "an argument");
        const char *v = argv[k + 1];
        if (!strcmp(name, "n") || !strcmp(name, "np")) {
            if (parse_nranks(v, &a->nranks))
                return usage_error("%s: '%s' is not a valid number of ranks (expected a positive integer)",
                                   arg, v);
        } else if (!strcmp(name, "wdir") || !strcmp(name, "wd")) {
            a->wdir = v;
        } else if (is_host) {
            if (!*v)
                return usage_error("%s: empty host list%s", arg, "");
            a->hosts = v;
        } else if (nargs == 2 || strchr(v, '=')) {
            const char *eq = nargs == 2 ? NULL : strchr(v, '=');
            size_t nlen = eq ? (size_t)(eq - v) : strlen(v);
            if (!valid_env_name(v, nlen))
                return usage_error("%s: '%s' is not a valid variable name", arg, v);
            if (push_env(&a->env, &a->nenv, v, nlen, eq ? eq + 1 : argv[k + 2]))
                return SMRUN_EXIT_FAILURE;
        } else if (getenv(v) && push_env(&a->env, &a->nenv, v, strlen(v), getenv(v))) {
            return SMRUN_EXIT_FAILURE;
        }
        k += 1 + nargs;
    }
    if (k >= argc || is_colon(argv[k]))
        return usage_error("an MPMD part after ':' has no program%s%s", "", "");
    *next = k;
    return SMRUN_CONTINUE;
}

/* Cuts smrun's argv at each lone ':' into parts (part 0: the global -n and
 * the first program). */
static int parse_mpmd(int argc, char **argv, int first, struct smrun_options *o)
{
    o->napps = 1;
    int k = first;
    while (k < argc && !is_colon(argv[k]))
        k++;
    if (k >= argc)
        return SMRUN_CONTINUE;
    if (k == first)   /* "smrun -n 2 : ...": the first part has no program */
        return usage_error("no program before the first ':'%s%s", "", "");
    struct smrun_app *apps = calloc(1, sizeof *apps);
    if (!apps)
        return SMRUN_EXIT_FAILURE;
    apps[0].argv = o->argv;
    apps[0].nranks = o->nranks;
    apps[0].envnone = -1;
    o->apps = apps;
    long total = o->nranks;
    while (k < argc && is_colon(argv[k])) {
        argv[k] = NULL;   /* ends the previous part's argv */
        apps = realloc(o->apps, (size_t)(o->napps + 1) * sizeof *apps);
        if (!apps)
            return SMRUN_EXIT_FAILURE;
        o->apps = apps;
        struct smrun_app *a = &apps[o->napps++];
        memset(a, 0, sizeof *a);
        a->nranks = 1;
        a->envnone = -1;
        int prog = 0;
        int rc = parse_part_options(argc, argv, k + 1, a, &prog);
        if (rc != SMRUN_CONTINUE)
            return rc;
        a->argv = &argv[prog];
        total += a->nranks;
        if (total > SMRUN_MAX_RANKS)
            return usage_error("the MPMD parts add up to more than %s ranks%s", "65536", "");
        for (k = prog; k < argc && !is_colon(argv[k]); k++)
            ;
    }
    o->nranks = (int)total;
    o->nranks_given = 1;
    return SMRUN_CONTINUE;
}

int smrun_options_parse(int argc, char **argv, struct smrun_options *o)
{
    memset(o, 0, sizeof *o);
    o->nranks = 1;
    int rc = defaults_from_env(o);
    if (rc != SMRUN_CONTINUE)
        return rc;
    int i = 1;
    while (i < argc && argv[i][0] == '-' && argv[i][1] != '\0') {
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        }
        const char *inline_value;
        const struct opt_def *d = lookup(arg, &inline_value);
        if (!d)
            return usage_error("unknown option '%s'%s", arg, "");
        char *args[2] = { NULL, NULL };
        int used = 1;
        if (inline_value) {
            if (d->nargs != 1)
                return usage_error("option '%s' takes %s", arg, d->nargs ? "two arguments" : "no argument");
            args[0] = (char *)inline_value;
        } else {
            if (i + d->nargs >= argc)
                return usage_error("option '%s' needs %s", arg, d->nargs == 2 ? "two arguments" : "an argument");
            for (int k = 0; k < d->nargs; k++)
                args[k] = argv[i + 1 + k];
            used += d->nargs;
        }
        rc = apply(o, d, arg, args);
        if (rc != SMRUN_CONTINUE)
            return rc;
        i += used;
    }
    if (o->output_dir && (o->outfile_pattern || o->errfile_pattern))
        return usage_error("--output-filename and -outfile-pattern/-errfile-pattern: use one "
                           "or the other%s%s", "", "");
    if (i >= argc)
        return usage_error("no program to run%s%s", "", "");
    rc = apply_iface(o);
    if (rc != SMRUN_CONTINUE)
        return rc;
    o->argv = &argv[i];
    return parse_mpmd(argc, argv, i, o);
}

void smrun_options_free(struct smrun_options *o)
{
    for (int a = 1; a < o->napps && o->apps; a++) {
        for (int i = 0; i < o->apps[a].nenv; i++)
            free(o->apps[a].env[i]);
        free(o->apps[a].env);
    }
    for (int a = 0; a < o->napps && o->apps; a++)
        free(o->apps[a].path);
    free(o->apps);
    o->apps = NULL;
    o->napps = 0;
    for (int i = 0; i < o->nenv; i++)
        free(o->env[i]);
    free(o->env);
    free(o->host_specs);
    free(o->job_hosts);
    o->job_hosts = NULL;
    smrun_alloc_free(o);
    free(o->output_dir);
    free(o->outfile_pattern);
    free(o->errfile_pattern);
    o->output_dir = o->outfile_pattern = o->errfile_pattern = NULL;
    o->host_specs = NULL;
    o->nhost_specs = 0;
    o->env = NULL;
    o->nenv = 0;
}
