/* smrun's command line.  Options come before the program; the first
 * argument that is not an option (or anything after "--") starts the
 * program's own command line.  Long options take one or two dashes
 * (-np, --np; -bind-to, --bind-to) so command lines written for Open MPI's
 * mpirun and MPICH's mpiexec both work. */
#include "smrun.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smap_config.h"

#define SMRUN_MAX_RANKS 65536
#define SMRUN_CONTINUE  (-1)

static const char usage_text[] =
"NAME\n"
"    smrun, mpiexec, mpirun - start an MPI job of smartmap on this node or\n"
"    across hosts\n"
"\n"
"SYNOPSIS\n"
"    smrun [options] [--] program [arguments...]\n"
"    smrun --host h1:2,h2:2 [--launcher CMD] [options] [--] program [args...]\n"
"    smrun [options] -n N1 prog1 [args...] : [-n N2] [-env VAR VALUE] [-x VAR]\n"
"          [-wdir DIR] prog2 [args...] : ...   (MPMD)\n"
"\n"
"DESCRIPTION\n"
"    smrun starts N copies (ranks) of program on this node, serves them the\n"
"    PMI-1 wire protocol (the MPICH \"simple\" PMI of mpiexec.hydra), forwards\n"
"    their standard output and error, and forwards its standard input to\n"
"    rank 0 (the other ranks read /dev/null).  The environment of smrun is\n"
"    passed on to every rank.\n"
"\n"
"    If any rank exits with a non-zero status or is killed by a signal, smrun\n"
"    prints which rank failed and how, stops the other ranks (SIGTERM, then\n"
"    SIGKILL 2 s later, to each rank's process group, so children of ranks\n"
"    stop too) and exits with that rank's status.  The first failure decides.\n"
"    A rank may exit without using MPI at all; only exit statuses count.\n"
"\n"
"OPTIONS\n"
"    Options come before the program.  Long options take one or two dashes\n"
"    (-np or --np, -bind-to or --bind-to); one with a single argument may\n"
"    also be written --name=value.\n"
"\n"
"    -n N, -np N, --np N\n"
"        Number of ranks (default 1).\n"
"    -x VAR, -x VAR=VALUE\n"
"        Export VAR to every rank with smrun's current value, or with VALUE.\n"
"    -genv VAR VALUE, -env VAR VALUE\n"
"        Set VAR to VALUE in every rank (MPICH style).\n"
"    --bind-to core|none\n"
"        core: pin rank i to the i-th CPU of smrun's affinity mask (round\n"
"        robin when there are more ranks than CPUs).  none: no pinning.\n"
"        Default: core when N is at most the number of CPUs smrun may run\n"
"        on, none otherwise.\n"
"    --report-bindings\n"
"        Print each rank's binding on stderr.\n"
"    -l, --tag-output, -prepend-rank\n"
"        Prefix each line a rank writes (stdout and stderr) with \"[rank] \".\n"
"        Output is forwarded whole lines at a time, so lines of different\n"
"        ranks never mix; a last line without newline is printed at exit.\n"
"    --timestamp-output\n"
"        Prefix each line a rank writes with the wall-clock time it was\n"
"        forwarded, \"[YYYY-MM-DD HH:MM:SS.mmm] \" (before -l's tag).\n"
"    --display-map\n"
"        Before the ranks start, print on stderr which ranks go to which\n"
"        host (\"smrun: map: host NAME: ranks A-B (N)\").\n"
"    --timeout SECONDS\n"
"        Stop the job after SECONDS (0: never) and exit with 124.\n"
"    -wdir DIR, --wdir DIR, -wd DIR\n"
"        Start the ranks in DIR (default: smrun's working directory).  smrun\n"
"        itself moves there, so a program named by a relative path is\n"
"        looked up in DIR, as with hydra; across hosts every host uses DIR.\n"
"    -genvlist A,B,..., -envlist A,B,...\n"
"        Export each named variable with smrun's current value (-x for\n"
"        each).\n"
"    -genvall, -envall\n"
"        Pass smrun's whole environment on: what smrun always does.\n"
"    -q, --quiet\n"
"        No warnings from smrun (errors are still reported).\n"
"    --mca KEY VALUE, -gmca KEY VALUE\n"
"        Open MPI's parameters: accepted with a warning and ignored.\n"
"        smartmap's tunables are SMAP_* environment variables (smartmap_info\n"
"        lists them; pass them with -x or -genv).\n"
"    --oversubscribe, --allow-run-as-root\n"
"        Accepted for Open MPI's command lines; smartmap needs neither (more\n"
"        ranks than CPUs run unbound and wait politely; root may run jobs).\n"
"\n"
"  MPMD (several programs in one MPI_COMM_WORLD, as hydra and Open MPI):\n"
"    A lone ':' after a program's arguments starts another part: its own\n"
"    -n N (default 1), -env VAR VALUE (-genv too), -x VAR[=VALUE] and -wdir\n"
"    DIR, then its program and arguments.  Ranks are numbered part after\n"
"    part; MPI_APPNUM is the part's index (0 for the first); the options\n"
"    before the first program are the first part's and apply to every part.\n"
"    Every part's program is found before any rank starts.  On one host\n"
"    only for now (with --host/--hostfile: a usage error).\n"
"\n"
"  Across hosts (any of --host/--hostfile makes a job across hosts):\n"
"    --host LIST, -host, -hosts, -H LIST\n"
"        Comma-separated hosts, each \"name\" (1 slot) or \"name:N\" (N slots).\n"
"        May be repeated; a host named twice gets the sum of its slots.\n"
"    --hostfile FILE, -f, -machinefile FILE\n"
"        One host per line: \"name\", \"name:N\" or \"name slots=N\" (other\n"
"        key=value words are ignored); '#' starts a comment.\n"
"    -ppn N, -npernode N, -N N\n"
"        N ranks on every host, whatever its slots.\n"
"        Ranks fill the hosts in order, each up to its slots before the next\n"
"        (rank blocks), and wrap around to the first host while ranks remain.\n"
"        Without -n the job has as many ranks as slots.\n"
"    --launcher CMD, -launcher-exec CMD\n"
"        The remote shell (default ssh), called as CMD HOST COMMAND... like\n"
"        ssh; CMD may hold options (\"ssh -p 2222\").  This machine, named\n"
"        localhost, by its host name (short or long) or by one of its\n"
"        addresses, is started directly, without CMD.\n"
"    --head-addr ADDR, -localhost ADDR\n"
"        Address on which this smrun listens for its agents: IPv4 (or a\n"
"        name), optionally ADDR:PORT, or IPv6 as ::1, [::1] or [::1]:PORT\n"
"        (default port: any free one); it must be reachable from every\n"
"        host.  Default: SMRUN_HEAD_ADDR, else the address from which\n"
"        this machine routes to the first remote host (given as an address\n"
"        or a name of /etc/hosts: no name is asked of the resolver), else\n"
"        the first non-loopback IPv4 address of an interface that is up\n"
"        (127.0.0.1 when every host is localhost).\n"
"        Each host runs one agent, \"smrun --agent ...\" (the same path as\n"
"        this smrun), which connects back, forks that host's ranks, serves\n"
"        them PMI-1 (the key-value space and barrier span every host) and\n"
"        relays their output, signals and exits.  Ranks get the agent's\n"
"        environment, plus the variables of smrun's environment the agent\n"
"        lacks, plus -x/-genv, and start in smrun's working directory.\n"
"\n"
"    -v, --verbose\n"
"        Trace the launch and the PMI traffic on stderr.\n"
"    -h, --help\n"
"        Print this text and exit.\n"
"    -V, --version\n"
"        Print the version and exit.\n"
"    --\n"
"        End of options: the next argument is the program.\n"
"\n"
"ENVIRONMENT\n"
"    Set by smrun in every rank:\n"
"    PMI_FD            the rank's end of its PMI-1 socket (file descriptor)\n"
"    PMI_RANK          the rank, 0 .. N-1\n"
"    PMI_SIZE          N\n"
"    SMAP_SESSION_DIR  the job's session directory (see FILES)\n"
"    SMAP_LAUNCHER     \"smrun\"\n"
"    SMAP_NODE_CPUS    number of CPUs in smrun's affinity mask (all ranks\n"
"                      together may use this many, even when each is pinned)\n"
"    SMAP_LOCAL_RANK   the rank's index on this host (chooses its heap slot)\n"
"    SMAP_NODE_NAME    across hosts: the host's name as placed (node identity\n"
"                      comes from the placement, never from the host name)\n"
"    Removed from the ranks' environment: PMI_PORT, PMI_ID, PMI_SPAWNED\n"
"    (left over from an enclosing launcher, they would confuse PMI clients).\n"
"\n"
"    Read by smrun:\n"
"    MPIEXEC_TIMEOUT   default for --timeout, in seconds\n"
"    SMRUN_HEAD_ADDR   default for --head-addr\n"
"    SMRUN_BIND_TO     default for --bind-to (core or none), e.g. for test\n"
"                      suites that run several jobs at once\n"
"    PATH              searched for a program named without '/'\n"
"    TMPDIR            session directory location when /dev/shm is unusable\n"
"\n"
"PMI-1 SERVICE\n"
"    Each rank's PMI_FD speaks the PMI-1 wire protocol (lines of key=value):\n"
"    init, get_maxes, get_appnum, get_my_kvsname, get_universe_size, put,\n"
"    get, barrier_in/barrier_out, finalize/finalize_ack, abort.  One key-value\n"
"    space per job; it also holds PMI_process_mapping.  A malformed or\n"
"    oversized request is a failure of the rank that sent it.\n"
"\n"
"FILES\n"
"    /dev/shm/smartmap-UID-PID-RANDOM/\n"
"        Session directory of the job run by the smrun with process id PID\n"
"        (RANDOM: 16 hex digits, so that no other local user can take the\n"
"        name first; the KVS name, after which the ranks name their abstract\n"
"        sockets, is smap-PID-RANDOM likewise)\n"
"        ($TMPDIR or /tmp when /dev/shm is unusable).  Removed with anything\n"
"        named smartmap-UID-PID-* or smartmap-UID-PID.* next to it when the\n"
"        job ends, however it ends; directories of launchers that no longer\n"
"        exist are removed when smrun starts.\n"
"\n"
"EXIT STATUS\n"
"    0      every rank exited with 0\n"
"    N      the first rank to fail exited with N, or called MPI_Abort with N\n"
"    128+S  the first rank to fail was killed by signal S, or smrun itself\n"
"           received signal S (SIGINT 130, SIGTERM 143, SIGHUP 129)\n"
"    1      a rank broke the PMI protocol, or smrun could not start the job,\n"
"           or lost an agent\n"
"    128+S  across hosts, also: an agent was killed by signal S\n"
"    2      bad command line\n"
"    124    --timeout expired\n"
"    126    the program is not executable\n"
"    127    the program was not found\n"
"\n"
"EXAMPLES\n"
"    smrun -n 4 ./ring\n"
"    mpiexec -np 2 -genv SMAP_VERBOSE 2 -l ./a.out input.dat\n"
"    mpiexec --host node1:4,node2:4 -l ./a.out\n"
"    mpiexec -f hosts.txt -ppn 2 --launcher \"ssh -p 2222\" ./a.out\n";

static void print_version(void)
{
    printf("smrun (smartmap) %s\n%s\n", SMAP_VERSION_STRING, SMAP_BUILD_OPTIONS);
}

static int usage_error(const char *fmt, const char *a, const char *b)
{
    char text[512];
    snprintf(text, sizeof text, fmt, a, b);
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

static int opt_bind(struct smrun_options *o, const char *arg)
{
    if (strcmp(arg, "core") == 0 || strcmp(arg, "cores") == 0)
        o->bind = SMRUN_BIND_CORE;
    else if (strcmp(arg, "none") == 0)
        o->bind = SMRUN_BIND_NONE;
    else
        return usage_error("--bind-to: '%s' is not supported (use core or none)%s", arg, "");
    return SMRUN_CONTINUE;
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
    O_HOST, O_HOSTFILE, O_PPN, O_LAUNCHER, O_HEAD_ADDR,
    O_WDIR, O_ENVLIST, O_QUIET, O_MCA, O_ACCEPTED, O_TIMESTAMP, O_DISPLAY_MAP,
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
    { "bind-to", O_BIND, 1 },
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
    { "launcher", O_LAUNCHER, 1 }, { "launcher-exec", O_LAUNCHER, 1 },
    { "head-addr", O_HEAD_ADDR, 1 }, { "localhost", O_HEAD_ADDR, 1 },
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
    { "genvall", O_ACCEPTED, 0 }, { "envall", O_ACCEPTED, 0 },
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
    case O_LAUNCHER:
        if (!*args[0])
            return usage_error("%s: empty launcher command%s", opt, "");
        o->launcher = args[0];
        return SMRUN_CONTINUE;
    case O_HEAD_ADDR: o->head_addr = args[0]; return SMRUN_CONTINUE;
    case O_X:       return opt_export(o, args[0]);
    case O_GENV:    return opt_genv(o, args[0], args[1]);
    case O_BIND:    return opt_bind(o, args[0]);
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
    case O_VERBOSE: o->verbose = 1; return SMRUN_CONTINUE;
    case O_TIMEOUT:
        if (parse_seconds(args[0], &o->timeout_s))
            return usage_error("%s: '%s' is not a valid number of seconds", opt, args[0]);
        return SMRUN_CONTINUE;
    case O_HELP:
        fputs(usage_text, stdout);
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
    if (s && *s) {
        if (strcmp(s, "core") == 0)
            o->bind = SMRUN_BIND_CORE;
        else if (strcmp(s, "none") == 0)
            o->bind = SMRUN_BIND_NONE;
        else
            return usage_error("SMRUN_BIND_TO='%s' is not supported (use core or none)%s", s, "");
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
        int nargs = !strcmp(name, "env") || !strcmp(name, "genv") ? 2 :
                    !strcmp(name, "n") || !strcmp(name, "np") || !strcmp(name, "x") ||
                    !strcmp(name, "wdir") || !strcmp(name, "wd") ? 1 : -1;
        if (nargs < 0)
            return usage_error("option '%s' is not one of an MPMD part's (-n, -env, -x, -wdir); "
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
    if (smrun_hosts_requested(o))
        return usage_error("MPMD (':') across hosts is not supported yet: run one program per job "
                           "there, or start the parts on this host%s%s", "", "");
    struct smrun_app *apps = calloc(1, sizeof *apps);
    if (!apps)
        return SMRUN_EXIT_FAILURE;
    apps[0].argv = o->argv;
    apps[0].nranks = o->nranks;
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
    o->bind = SMRUN_BIND_DEFAULT;
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
    if (i >= argc)
        return usage_error("no program to run%s%s", "", "");
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
    o->host_specs = NULL;
    o->nhost_specs = 0;
    o->env = NULL;
    o->nenv = 0;
}
