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

static const char usage_text[] =
"NAME\n"
"    smrun, mpiexec, mpirun - start an MPI job of smartmap on this node or\n"
"    across hosts\n"
"\n"
"SYNOPSIS\n"
"    smrun [options] [--] program [arguments...]\n"
"    smrun --host h1:2,h2:2 [--launcher CMD] [options] [--] program [args...]\n"
"    smrun [options] -n N1 prog1 [args...] : [-n N2] [-env VAR VALUE] [-x VAR]\n"
"          [-wdir DIR] [-host LIST] [-envnone] prog2 [args...] : ...   (MPMD)\n"
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
"    --map-by slot|core|hwthread|l3cache|socket|numa|node|ppr:N:LEVEL[:PE=n]\n"
"        Where each host's ranks go on its CPUs (hwloc's view of the host,\n"
"        limited to the CPUs smrun may use).  slot, core: one core after the\n"
"        other (the default); hwthread: one hardware thread after the other;\n"
"        l3cache, socket, numa: round robin over those objects, each rank\n"
"        on the next free core of its object; node: round robin over the\n"
"        hosts (one rank per host in turn) instead of filling each host's\n"
"        slots first; ppr:N:socket (numa, l3cache): N ranks per object, in\n"
"        order, at most N times their number per host; ppr:N:node: N ranks\n"
"        per host (as -N).  :PE=n gives each rank n cores (n hardware\n"
"        threads with hwthread), e.g. for OpenMP threads.  More ranks than\n"
"        cores: the mapping wraps around (with a warning).  Also -map-by.\n"
"    --rank-by slot|core|hwthread|fill|l3cache|socket|numa|span|node\n"
"        The order of the ranks over the mapped places: slot, core,\n"
"        hwthread, fill: by CPU number; socket, numa, l3cache, span:\n"
"        alternating over those objects (rank 0 on the first, rank 1 on the\n"
"        second...); node: as --map-by node.  Default: the mapping's order.\n"
"    --bind-to hwthread|core|l3cache|socket|numa|none[:overload-allowed]\n"
"        Pin each rank to its mapped CPUs widened to that level: one\n"
"        hardware thread per mapped core, the cores, or the whole L3\n"
"        cache, package or NUMA node holding them; none: no pinning.\n"
"        Default: core (hwthread with --map-by hwthread) while every rank\n"
"        has a core of its own, none once ranks outnumber the cores.  Also\n"
"        -bind-to and hydra's -bind.\n"
"    --report-bindings\n"
"        Print each rank's binding on stderr (\"rank R (pid P) on HOST:\n"
"        bound to CPUs 0-3 (--bind-to socket)\").  Under a topology that is\n"
"        not this machine's (hwloc's HWLOC_SYNTHETIC or HWLOC_XMLFILE) the\n"
"        binding is computed and reported but not applied.\n"
"    -l, --tag-output, -prepend-rank\n"
"        Prefix each line a rank writes (stdout and stderr) with \"[rank] \".\n"
"        Output is forwarded whole lines at a time, so lines of different\n"
"        ranks never mix; a last line without newline is printed at exit.\n"
"    --timestamp-output\n"
"        Prefix each line a rank writes with the wall-clock time it was\n"
"        forwarded, \"[YYYY-MM-DD HH:MM:SS.mmm] \" (before -l's tag).\n"
"    --output-filename DIR[:nocopy,nojobid]\n"
"        (Open MPI) Each rank's stdout and stderr also go to the files\n"
"        DIR/1/rank.N/stdout and DIR/1/rank.N/stderr, N zero-padded to the\n"
"        width of the largest rank (rank.00 .. rank.10).  nocopy: to the\n"
"        files only; nojobid: DIR/rank.N/.  A relative DIR is taken from\n"
"        where smrun starts (not -wdir); DIR may not contain ':'.\n"
"    -outfile-pattern PATTERN, -errfile-pattern PATTERN\n"
"        (hydra) Each rank's stdout (stderr) goes to the file PATTERN, not\n"
"        to the terminal, with %r the rank, %h the host as placed, %p the\n"
"        host's index in the job, %g the process group (0), %t the seconds\n"
"        since the start (0: files are made before the ranks start), %% a\n"
"        '%'.  Ranks whose names coincide share the file, line by line.\n"
"        Files are made (truncated, with the user's umask) by the launching\n"
"        smrun before any rank starts, so an unwritable place stops the job\n"
"        at once (exit 1); across hosts each agent then appends to its\n"
"        ranks' files, which must be on a file system the hosts share.\n"
"        Lines in the files carry no -l or --timestamp-output tag.\n"
"    --display-map\n"
"        Before the ranks start, print on stderr which ranks go to which\n"
"        host (\"smrun: map: host NAME: ranks A-B (N)\").\n"
"    --timeout SECONDS\n"
"        Stop the job after SECONDS (0: never) and exit with 124.\n"
"    -nameserver ADDR:PORT\n"
"        (hydra) The name server (smrun --name-server) that answers the\n"
"        ranks' MPI_Publish_name, MPI_Lookup_name and MPI_Unpublish_name,\n"
"        shared by every job given it; without it a job has a name table\n"
"        of its own (across hosts: the head's, for every host).  Exported\n"
"        as SMRUN_NAMESERVER to the jobs the ranks spawn.\n"
"    -usize N, --universe-size N\n"
"        MPI_UNIVERSE_SIZE (what MPI_Comm_spawn may fill).  Default: the\n"
"        slots of the job's hosts (--host, --hostfile, -ppn, the\n"
"        allocation); on one node the CPUs smrun may run on; never less\n"
"        than the job's size.\n"
"    smrun --name-server [ADDR]\n"
"        Runs a name server instead of a job: listens on ADDR (default:\n"
"        every IPv4 address), prints ADDR:PORT (the first non-loopback\n"
"        address when ADDR is not given) as its first line, serves until\n"
"        SIGINT or SIGTERM.\n"
"    -wdir DIR, --wdir DIR, -wd DIR\n"
"        Start the ranks in DIR (default: smrun's working directory).  smrun\n"
"        itself moves there, so a program named by a relative path is\n"
"        looked up in DIR, as with hydra; across hosts every host uses DIR.\n"
"    -genvlist A,B,..., -envlist A,B,...\n"
"        Export each named variable with smrun's current value (-x for\n"
"        each).\n"
"    -genvall, -envall\n"
"        Pass smrun's whole environment on (the default).\n"
"    -genvnone, -envnone\n"
"        Pass none of smrun's environment (nor, across hosts, the agent's):\n"
"        the ranks get only -genv/-env/-x/-genvlist and what smartmap\n"
"        itself needs: PMI_FD, PMI_RANK, PMI_SIZE, SMAP_SESSION_DIR,\n"
"        SMAP_LAUNCHER, SMAP_NODE_CPUS, SMAP_LOCAL_RANK, SMAP_NODE_NAME,\n"
"        LD_PRELOAD=libsmartmap_heap.so (the heap preload, unless\n"
"        SMAP_PRELOAD=0 is passed with -genv) and -iface's variables.  No\n"
"        PATH, HOME, LD_LIBRARY_PATH, SMAP_* tunable or network setting\n"
"        (FI_PROVIDER, UCX_*) unless passed that way.  The last of\n"
"        -genvall/-genvnone wins; in an MPMD part, -envnone/-envall\n"
"        override it for that part.\n"
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
"    -n N (default 1), -env VAR VALUE (-genv too), -x VAR[=VALUE], -wdir\n"
"    DIR, -host LIST, -envnone and -envall, then its program and\n"
"    arguments.  Ranks are numbered part after\n"
"    part; MPI_APPNUM is the part's index (0 for the first); the options\n"
"    before the first program are the first part's and apply to every part.\n"
"    Every part's program is found before any rank starts (across hosts:\n"
"    by each host's agent, before its ranks start).  Across hosts the parts'\n"
"    ranks are placed one after the other as the ranks of a one-part job\n"
"    would be (each host up to its slots, then the next), except that a\n"
"    part may name its own hosts with -host LIST (-hosts, -H; the same\n"
"    \"name:N\" syntax): its ranks fill those.  Parts without -host use the\n"
"    job's hosts (--host, --hostfile, the allocation; this machine when\n"
"    only parts name hosts).\n"
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
"    --launcher CMD, -launcher-exec CMD, -bootstrap-exec CMD\n"
"        The remote shell (default ssh), called as CMD HOST COMMAND... like\n"
"        ssh; CMD may hold options (\"ssh -p 2222\").  This machine, named\n"
"        localhost, by its host name (short or long) or by one of its\n"
"        addresses, is started directly, without CMD.  Under -launcher\n"
"        slurm, -launcher-exec CMD is the srun to run.\n"
"    -launcher NAME, -bootstrap NAME\n"
"        hydra's launcher names: ssh or rsh (that remote shell), fork (every\n"
"        host's agent is started on this machine), slurm (each host's agent\n"
"        is one srun step: \"srun --nodelist=HOST --nodes=1 --ntasks=1\n"
"        --kill-on-bad-exit --cpu-bind=none --mpi=none --overlap smrun\n"
"        --agent ...\"; the default inside a Slurm allocation whose nodes\n"
"        smrun uses).  Any other word is a remote-shell command, as with\n"
"        --launcher; pbs, lsf, sge, ll, manual and persist are refused.\n"
"    --head-addr ADDR, -localhost ADDR\n"
"        Address on which this smrun listens for its agents: IPv4 (or a\n"
"        name), optionally ADDR:PORT, or IPv6 as ::1, [::1] or [::1]:PORT\n"
"        (default port: any free one); it must be reachable from every\n"
"        host.  Default: SMRUN_HEAD_ADDR, else the address from which\n"
"        this machine routes to the first remote host (given as an address\n"
"        or a name of /etc/hosts: no name is asked of the resolver), else\n"
"        the first non-loopback IPv4 address of an interface that is up\n"
"        (127.0.0.1 when every host is localhost).\n"
"    -iface IF, --iface IF\n"
"        (hydra) The network interface of the job: without --head-addr the\n"
"        head listens on IF's first address (IPv4, else IPv6), and the\n"
"        ranks' network engines get IF as FI_TCP_IFACE, FI_NET_IFACE,\n"
"        FI_SOCKETS_IFACE and UCX_NET_DEVICES (over each host's own\n"
"        values) unless smrun's environment or -genv/-x sets one.  IF must\n"
"        exist on this machine (else exit 2) and, by that name, on every\n"
"        host.\n"
"        Each host runs one agent, \"smrun --agent ...\" (the same path as\n"
"        this smrun), which connects back, forks that host's ranks, serves\n"
"        them PMI-1 (the key-value space and barrier span every host) and\n"
"        relays their output, signals and exits.  Ranks get the agent's\n"
"        environment, plus the variables of smrun's environment the agent\n"
"        lacks, plus -x/-genv, and start in smrun's working directory.\n"
"\n"
"  Batch allocations (without --host/--hostfile):\n"
"    Inside a Slurm allocation (SLURM_JOB_NODELIST, else SLURM_NODELIST,\n"
"    e.g. \"node[01-03,07],gpu5\", with SLURM_TASKS_PER_NODE, e.g.\n"
"    \"2(x3),1,4\": slots per node in the list's order) or a PBS/Torque one\n"
"    (PBS_NODEFILE: one line per slot), the allocation's nodes are the host\n"
"    list: ranks fill them in order, each up to its slots, and without -n\n"
"    the job has as many ranks as slots (as with Open MPI and hydra).\n"
"    Slurm nodes are started through srun (see -launcher slurm; another\n"
"    -launcher or --launcher wins), PBS nodes through the remote shell.\n"
"    An allocation whose nodes are all this machine is a one-node job\n"
"    without agents or srun.  --host/--hostfile win over the allocation\n"
"    (and go through the remote shell unless -launcher slurm is given).\n"
"    A malformed value is an error naming the variable (exit 2).\n"
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
"    PMI_SPAWNED=1     in the ranks of a job that ranks spawned\n"
"                      (MPI_Comm_spawn: a nested smrun, see Dynamic processes)\n"
"\n"
"    Read by smrun:\n"
"    MPIEXEC_TIMEOUT   default for --timeout, in seconds\n"
"    SMRUN_HEAD_ADDR   default for --head-addr (-iface wins over it)\n"
"    SMRUN_NAMESERVER  default for -nameserver\n"
"    SMRUN_SPAWN_KVS   set by smrun for a spawned job's smrun: the parents'\n"
"                      keys (\"KEY=VALUE ...\") for its key-value space\n"
"    SLURM_JOB_NODELIST, SLURM_NODELIST, SLURM_TASKS_PER_NODE, PBS_NODEFILE\n"
"                      the batch allocation (see Batch allocations)\n"
"    SMRUN_BIND_TO     default for --bind-to (a level as above), e.g. for test\n"
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
"    Also publish_name, unpublish_name, lookup_name (the job's name table,\n"
"    the head's across hosts, or the -nameserver's) and MPICH's\n"
"    multi-line spawn (mcmd=spawn).\n"
"\n"
"DYNAMIC PROCESSES\n"
"    MPI_Comm_spawn and MPI_Comm_spawn_multiple reach smrun as a PMI spawn\n"
"    request; smrun starts the children as a job of their own: a nested\n"
"    smrun (one MPMD part per command, --bind-to none), whose ranks get\n"
"    PMI_SPAWNED=1 and the parents' port in their key-value space.  On\n"
"    one node it runs there; across hosts it is the head of a job over\n"
"    the job's hosts, children placed one per host in turn (--map-by\n"
"    node), started with the job's launcher.  Info keys: wdir (-wdir),\n"
"    host (-host), hostfile (its hosts as -host), path (searched first\n"
"    for the command), soft (accepted; maxprocs are started), arch\n"
"    (ignored).  The spawned job is part of\n"
"    this job: its smrun's exit status is judged like a rank's (a child\n"
"    that fails stops the whole job with the same exit status rules), it\n"
"    is stopped with the job, and smrun waits for it before exiting.\n"
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
