/* smrun: the launcher (also mpiexec, mpirun).  State shared by its files:
 * the options, one entry per rank (pid, PMI connection, output pipes) and
 * the job (KVS, barrier, stdin forwarding, how and why it is stopping).
 *
 * The launcher is one single-threaded poll() loop (job.c); every other file
 * handles one kind of event and never blocks on a rank. */
#ifndef SMRUN_SMRUN_H
#define SMRUN_SMRUN_H

#include <limits.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "base/compiler.h"
#include "boot/pmi_wire.h"

/* Exit codes that are not a rank's own. */
#define SMRUN_EXIT_FAILURE 1     /* launcher-detected failure (PMI protocol, setup) */
#define SMRUN_EXIT_USAGE   2     /* bad command line */
#define SMRUN_EXIT_TIMEOUT 124   /* like timeout(1) */
#define SMRUN_EXIT_NOEXEC  126   /* program found but not executable */
#define SMRUN_EXIT_NOTFOUND 127  /* program not found */

/* Seconds between SIGTERM and SIGKILL when the job is stopped. */
#define SMRUN_KILL_GRACE_S 2.0
/* Seconds to wait for output pipes to reach EOF once every rank has exited
 * (a grandchild may still hold them). */
#define SMRUN_DRAIN_S      1.0
/* Untagged output: a partial line is forwarded after this much silence, so
 * prompts show up; tagged output waits for the newline. */
#define SMRUN_PARTIAL_FLUSH_S 0.2

/* ---- options.c ------------------------------------------------------- */

/* The levels of --map-by, --rank-by and --bind-to (topo.c). */
enum smrun_level {
    SMRUN_LV_DEFAULT, SMRUN_LV_NONE, SMRUN_LV_HWTHREAD, SMRUN_LV_CORE, SMRUN_LV_SLOT,
    SMRUN_LV_L3, SMRUN_LV_SOCKET, SMRUN_LV_NUMA, SMRUN_LV_NODE, SMRUN_LV_FILL, SMRUN_LV_SPAN,
};

/* One part of an MPMD command line ("-n 1 ./a : -n 2 ./b"): its ranks
 * follow the previous parts' in MPI_COMM_WORLD and get MPI_APPNUM = its
 * index.  Part 0 is the global -n/-env/-wdir and the first program. */
struct smrun_app {
    char **argv;             /* NULL-terminated, within smrun's own argv */
    int nranks;
    char **env;              /* "VAR=value" of this part's -env/-x, over the global ones */
    int nenv;
    const char *wdir;        /* NULL: the job's */
    int envnone;             /* -envnone 1, -envall 0, -1: the global choice */
    const char *hosts;       /* this part's -host list (hydra, Open MPI); NULL: the job's */
    char *path;              /* the program as found (main.c), malloc'd */
};

/* How agents are started on hosts other than this one (-launcher). */
enum smrun_launch {
    SMRUN_LAUNCH_DEFAULT,    /* srun in a Slurm allocation whose nodes we use, else the remote shell */
    SMRUN_LAUNCH_RSH,        /* the remote shell: --launcher CMD (default ssh) */
    SMRUN_LAUNCH_FORK,       /* every agent here (hydra's -launcher fork) */
    SMRUN_LAUNCH_SLURM,      /* srun --nodelist=HOST ... (hydra's -launcher slurm) */
};

/* A node of the batch allocation (alloc.c). */
struct smrun_alloc_host {
    char *name;
    int slots;
};

/* What each forwarded line is prefixed with (-l, --timestamp-output). */
#define SMRUN_TAG_RANK 1
#define SMRUN_TAG_TIME 2

struct smrun_options {
    int nranks;
    /* --bind-to, --map-by (ppr:N:level, :PE=n), --rank-by (topo.c); the
     * texts as given travel to the agents, which parse them again */
    enum smrun_level bind_level, map, rank_by;
    int map_ppr, map_pe;
    const char *bind_spec, *map_spec, *rank_spec;
    int report_bindings;
    int tag_output;          /* SMRUN_TAG_RANK | SMRUN_TAG_TIME; 0: lines as they are */
    int display_map;         /* --display-map: where the ranks go, before they start */
    int verbose;
    double timeout_s;        /* 0: none */
    char **env;              /* "VAR=value" from -x/-genv, in order */
    int nenv;
    char **argv;             /* the program and its arguments (NULL-terminated) */
    int nranks_given;        /* -n was on the command line */
    /* Across hosts (hosts.c); no host option: one node, no agents. */
    char **host_specs;       /* --host arguments, in order */
    int nhost_specs;
    const char *hostfile;
    int ppn;                 /* 0: the hosts' slots */
    const char *launcher;    /* remote shell (or srun's path under -launcher slurm); NULL: ssh, srun */
    enum smrun_launch launch;
    /* The batch allocation, when no host option is given (alloc.c). */
    struct smrun_alloc_host *alloc;
    int nalloc;
    const char *alloc_src;   /* the variable it came from, for messages */
    int alloc_slurm;         /* from Slurm: agents start through srun by default */
    const char *head_addr;   /* NULL: SMRUN_HEAD_ADDR or chosen */
    const char *iface;       /* -iface: the network interface of the head and the ranks */
    const char *wdir;        /* -wdir: the ranks' working directory; NULL: smrun's */
    struct smrun_app *apps;  /* MPMD parts after the first (index 1..napps-1); NULL: none */
    int napps;               /* 1 without ':' */
    int quiet;               /* -q: no warnings */
    int envnone;             /* -genvnone: ranks inherit no variable of smrun's environment */
    /* Per-rank output files (outfiles.c). */
    char *output_dir;        /* --output-filename, made absolute; malloc'd */
    int output_nocopy, output_nojobid;
    char *outfile_pattern, *errfile_pattern;   /* hydra's; malloc'd */
    /* Agents on hosts that are one machine (the same boot_id: emulated
     * hosts, containers) map their ranks as slices of the machine's
     * ranks, so that they are bound to distinct CPUs (head.c, topo.c):
     * this agent's ranks are slice_first.. of slice_total there (0: the
     * host is a machine of its own). */
    int slice_first, slice_total;
    /* MPI_UNIVERSE_SIZE: -usize N, or (head, agent) the slots of the
     * job's hosts; 0: computed where the ranks start (main.c) */
    int universe;
    /* An agent's view of its job, for the jobs its ranks spawn (dynamic.c):
     * the head's host list ("h1:2,h2:1", every host of the job with its
     * slots), NULL on one node */
    char *job_hosts;
};

/* Returns -1 when smrun should go on, otherwise the exit code to leave with
 * (0 after --help/--version, SMRUN_EXIT_USAGE after an error). */
int smrun_options_parse(int argc, char **argv, struct smrun_options *o);
/* An agent's --bind-to, --map-by, --rank-by, as the head's command line
 * gave them ("-": not given): 0, or an exit code after a message. */
int smrun_options_placement(struct smrun_options *o, const char *bind, const char *map,
                            const char *rank);
void smrun_options_free(struct smrun_options *o);

/* ---- alloc.c: the batch system's allocation ------------------------------ */

/* Without --host/--hostfile: reads a Slurm (SLURM_JOB_NODELIST and
 * SLURM_TASKS_PER_NODE) or PBS (PBS_NODEFILE) allocation into o->alloc.
 * Returns 0 (nothing found is fine), or an exit code after a message. */
int smrun_alloc_read(struct smrun_options *o);
void smrun_alloc_free(struct smrun_options *o);

/* ---- outfiles.c: per-rank output files --------------------------------- */

struct smrun_outfile_where {
    const char *host;        /* %h: the host as placed */
    int node;                /* %p: its index among the job's hosts */
    int size;                /* ranks in the job (--output-filename's padding) */
};

int smrun_outfiles_wanted(const struct smrun_options *o);
/* 0, or -1 with *bad the unknown specifier ('\0': a '%' at the end). */
int smrun_outfiles_check_pattern(const char *pattern, char *bad);
/* Rank's stdout (which 1) or stderr (2) file: 0, 1 when it has none, -1
 * when the name does not fit. */
int smrun_outfiles_path(const struct smrun_options *o, int which, const struct smrun_outfile_where *w,
                        int rank, char *out, size_t len);
/* The launching smrun, before anything starts: makes (truncates) the files
 * of ranks[0..n-1] (NULL: 0..n-1) on host w.  0, or an exit code after a
 * message. */
int smrun_outfiles_prepare(const struct smrun_options *o, const struct smrun_outfile_where *w,
                           const int *ranks, int n);

/* ---- preload.c -------------------------------------------------------- */

/* Adds libsmartmap_heap.so to LD_PRELOAD in env (a NULL-terminated array of
 * malloc'd strings, which may be reallocated) unless SMAP_PRELOAD=0 there.
 * 0, or -1 when out of memory. */
int smrun_preload_apply(char ***envp);

/* ---- msg.c ----------------------------------------------------------- */

/* One line on stderr, prefixed "smrun: ", written with one write(). */
void smrun_msg(const char *fmt, ...) SMAP_PRINTF_LIKE(1, 2);

/* "SIGSEGV" for 11; "signal 77" style text when the number has no name. */
const char *smrun_signame(int sig, char *buf, size_t len);

/* ---- signals.c ------------------------------------------------------- */

/* Installs the handlers (SIGCHLD, SIGINT, SIGTERM, SIGHUP; SIGPIPE ignored)
 * and returns the read end of the self-pipe that wakes the loop, or -1. */
int smrun_signals_install(void);
/* Drains the self-pipe.  Returns the terminating signal received since the
 * last call (0 if none); *nterm counts them all (a second ^C escalates). */
int smrun_signals_take(int *nterm);
/* Nonzero once SIGINT/SIGTERM/SIGHUP arrived: blocked writes give up. */
int smrun_signals_terminating(void);
/* In a forked child before exec: default dispositions, empty mask. */
void smrun_signals_reset_in_child(void);

/* ---- kvs.c ----------------------------------------------------------- */

struct smrun_kvs_entry;
struct smrun_kvs {
    struct smrun_kvs_entry *slots;
    size_t cap, count, bytes;
};

/* 0, or -1 when the store is full (SMRUN_KVS_MAX_BYTES) or out of memory. */
int smrun_kvs_put(struct smrun_kvs *kvs, const char *key, const char *value);
const char *smrun_kvs_get(const struct smrun_kvs *kvs, const char *key);
void smrun_kvs_free(struct smrun_kvs *kvs);

/* ---- hosts.c: where the ranks go --------------------------------------- */

struct smrun_host {
    char *name;              /* as placed: the launcher is given this name */
    int local;               /* this machine: the agent starts without the launcher */
    int slots;
    int nranks;              /* ranks placed here */
    int *ranks;              /* their global ranks, ascending */
};

struct smrun_placement {
    struct smrun_host *hosts;   /* distinct names, in order of first mention */
    int nhosts;
    int nranks;
};

/* Nonzero when the command line names hosts. */
int smrun_hosts_requested(const struct smrun_options *o);
/* Nonzero when the job goes through agents: hosts named, or an allocation
 * with a node other than this machine (main.c drops an all-local one). */
int smrun_across_hosts(const struct smrun_options *o);
/* This machine by one of its names or addresses (never looked up). */
int smrun_is_local_host(const char *name);
/* Reads --host/--hostfile/-ppn/-n into a placement: hosts in order, each
 * filled with its slots (or -ppn) before the next (--map-by node: one rank
 * per host in turn), wrapping around while
 * ranks remain.  Returns 0, or an exit code after a message. */
int smrun_placement_make(const struct smrun_options *o, struct smrun_placement *p);
/* The first address of interface ifname (IPv4 first, then IPv6 other than
 * link-local) into ss: 0, or -1 when it has none. */
int smrun_iface_addr(const char *ifname, struct sockaddr_storage *ss, socklen_t *len);
/* The source address of this machine's route toward host (an address
 * literal or a name of /etc/hosts, never looked up otherwise), port 0:
 * route.c.  0, or -1 when host is neither or no route leads there. */
int smrun_route_source(const char *host, struct sockaddr_storage *src, socklen_t *srclen);
/* --display-map: "smrun: map: host NAME: ranks 0-3,8 (5)". */
void smrun_map_print(const char *host, const int *ranks, int n);
void smrun_placement_free(struct smrun_placement *p);

/* ---- link.c: head <-> agent messages ------------------------------------ */

#define SMRUN_LINK_MAX_WORDS 12

struct smrun_link {
    int fd;                  /* -1: closed */
    char *in, *out;
    size_t in_len, in_cap, in_used;
    size_t out_len, out_cap, out_off;
};

struct smrun_link_msg {
    int n;
    const char *w[SMRUN_LINK_MAX_WORDS];   /* w[0] is the verb; missing words are "" */
};

void smrun_link_init(struct smrun_link *l, int fd);
void smrun_link_close(struct smrun_link *l);
/* Queues one message (NULL-terminated words after the verb) and writes what
 * the socket takes now; -1 when the link is broken. */
int smrun_link_send(struct smrun_link *l, const char *verb, ...);
int smrun_link_sendv(struct smrun_link *l, int nwords, const char *const *words);
int smrun_link_flush(struct smrun_link *l);
int smrun_link_pending(const struct smrun_link *l);
void smrun_link_flush_blocking(struct smrun_link *l, double seconds);
/* Reads once: 1 read something, 0 nothing now, -1 EOF or error. */
int smrun_link_fill(struct smrun_link *l);
/* Next complete message: 1 (m valid until the next call), 0 none, -1 garbage. */
int smrun_link_next(struct smrun_link *l, struct smrun_link_msg *m);

/* ---- per-rank state -------------------------------------------------- */

/* One rank's stdout or stderr pipe and the line being assembled. */
struct smrun_stream {
    int fd;                  /* our read end, -1 once at EOF */
    int dest;                /* STDOUT_FILENO or STDERR_FILENO */
    int rank;
    char *buf;
    size_t len, cap;
    int mid_line;            /* tagged output stopped inside a line */
    int file_fd;             /* its output file (outfiles.c), -1: none */
    int copy;                /* with a file: to dest too */
    double partial_since;    /* when the buffered partial line arrived, 0 if none */
};

struct smrun_pmi_conn {
    int fd;                  /* our end of the socketpair, -1 once closed */
    int initialized;
    int finalized;
    int in_barrier;
    struct smap_pmi_reader rd;
};

struct smrun_spawn_req;

/* A job spawned by a rank (dynamic.c): a nested smrun. */
struct smrun_kid {
    pid_t pid;
    int alive;
};

/* A published service name (dynamic.c). */
struct smrun_name {
    struct smrun_name *next;
    char *service, *port;
};

struct smrun_rank {
    struct smrun_spawn_req *spawn;   /* a spawn request being read (dynamic.c), or NULL */
    int rank;
    pid_t pid;               /* also its process group id; 0 before fork */
    int alive;               /* forked and not yet reaped */
    int status;              /* wait status once reaped */
    int unjudged;            /* reaped, exit status not judged yet */
    char *cpulist;           /* CPUs it is bound to ("0-3,8"), NULL if unbound */
    int app;                 /* its MPMD part (MPI_APPNUM), 0 without ':' */
    int child_pmi_fd;        /* the rank's ends, open only around fork */
    int child_out_fd, child_err_fd;
    struct smrun_pmi_conn pmi;
    struct smrun_stream out, err;
};

/* smrun's stdin, forwarded to rank 0's stdin pipe. */
struct smrun_stdin {
    int src;                 /* STDIN_FILENO, -1 when no longer read */
    int dst;                 /* write end of rank 0's pipe, -1 once closed */
    int child_fd;            /* rank 0's read end, open only around fork */
    size_t off, len;
    char buf[65536];
};

/* Session directory: <base>/smartmap-<uid>-<smrun pid> */
struct smrun_session {
    char base[PATH_MAX];
    char prefix[64];         /* "smartmap-<uid>-<pid>-<16 random hex digits>" */
    char path[PATH_MAX + 64];
};

struct smrun_job {
    const struct smrun_options *opt;
    const char *program;     /* resolved path to exec */
    int n;                   /* ranks started here */
    int size;                /* ranks of the whole job (n unless an agent) */
    struct smrun_rank *ranks;
    struct smrun_agent *agent;   /* non-NULL: this smrun is an agent of a head */
    const char *node_name;   /* SMAP_NODE_NAME for the ranks (agent), or NULL */
    int node_index;          /* the host's index in the job (0 on one node) */
    char host_name[256];     /* this machine's name (one node: for %h) */
    pid_t launcher_pid;
    int alive;               /* ranks not yet reaped */

    int *cpus;               /* CPUs in smrun's affinity mask */
    int ncpus;
    int bind;                /* ranks are pinned */
    enum smrun_level bind_level;   /* what --bind-to meant here */
    int topo_foreign;        /* hwloc's topology is not this machine's: nothing applied */
    int ncores;              /* the units ranks were mapped over (cores or PUs) */
    int machine_ranks;       /* ranks mapped over them: ours, or the machine's when hosts share it */
    char **env;              /* environment shared by all ranks (NULL-terminated) */
    char **env_bare;         /* the same without smrun's inherited environment (-envnone), or NULL */

    struct smrun_session session;
    char kvsname[64];
    struct smrun_kvs kvs;
    int barrier_waiting;

    struct smrun_stdin in;
    int devnull;             /* stdin of ranks other than 0 */
    int wake_fd;             /* read end of the signal self-pipe */

    int foreign_warned;      /* the another-MPI warning was given (foreign.c) */
    int stopping;            /* a failure, timeout or signal is stopping the job */
    int exit_code;           /* decided by the first failure */
    int abort_pending;       /* a rank asked to abort: applied after the next reaping */
    int abort_code;
    char abort_text[3072];
    double start;
    double timeout_at;       /* 0: none */
    double kill_at;          /* when SIGTERM turns into SIGKILL; 0: none */
    double drain_until;      /* after the last rank exited; 0: not yet */
    int leftovers_killed;
    struct smrun_kid *kids;  /* jobs spawned by the ranks (dynamic.c) */
    int nkids;
    int universe;            /* MPI_UNIVERSE_SIZE (get_universe_size) */
    struct smrun_name *names;    /* the name service (dynamic.c) */
};

/* ---- dynamic.c --------------------------------------------------------- */

/* One line of a rank's multi-line spawn request (taken verbatim, without
 * its newline); the reply goes out after the last block.  0, or -1 with
 * *why (a protocol error). */
int smrun_spawn_line(struct smrun_job *job, struct smrun_rank *r, char *line, const char **why);
/* ---- nameserver.c ------------------------------------------------------ */

/* `smrun --name-server [ADDR]`: serves names until SIGINT/SIGTERM. */
int smrun_nameserver_main(int argc, char **argv);
/* One request line to the name server at "ADDR:PORT"; its reply line
 * into out.  0, or -1 when it cannot be reached. */
int smrun_nameserver_ask(const char *where, const char *request, char *out, size_t len);

/* The kid with this pid, or NULL. */
struct smrun_kid *smrun_kid_of(struct smrun_job *job, pid_t pid);
/* publish_name / unpublish_name / lookup_name: the reply line (into
 * out) for service (and port). */
void smrun_names_answer(struct smrun_job *job, const char *cmd, const char *service,
                        const char *port, char *out, size_t len);
/* The name table and the kids' list go (job_free, head_free). */
void smrun_dynamic_free(struct smrun_job *job);
/* "h1:2,h2:1" for a host file's hosts (into out): 0, or an exit code
 * after a message (hosts.c). */
int smrun_hostfile_list(const char *path, char *out, size_t len);

/* ---- session.c ------------------------------------------------------- */

/* Sweeps stale session directories of dead launchers, then creates ours in
 * /dev/shm (or $TMPDIR, /tmp).  Returns 0 or -1 after a message. */
int smrun_session_create(struct smrun_session *s);
/* 2*nbytes random hex digits (at most 32 bytes) and a NUL into out. */
void smrun_random_hex(char *out, size_t nbytes);
/* Removes the directory and any <base>/smartmap-<uid>-<pid>[-.]* entry. */
void smrun_session_remove(struct smrun_session *s);

/* ---- usage.c --------------------------------------------------------- */

/* The text of --help. */
extern const char smrun_usage_text[];

/* ---- spawn.c --------------------------------------------------------- */

/* Finds the program like execvp (PATH for names without '/').  Returns 0,
 * or SMRUN_EXIT_NOTFOUND / SMRUN_EXIT_NOEXEC after a message. */
int smrun_resolve_program(const char *name, char *path, size_t len);
/* The same, searching the directories of `first` (':'-separated, the
 * spawn `path` info key; may be NULL) before PATH. */
int smrun_resolve_program_in(const char *name, const char *first, char *path, size_t len);
/* CPUs smrun may run on; returns their count (>= 1) and a malloc'd list. */
int smrun_allowed_cpus(int **cpus);

/* ---- topo.c: --map-by, --rank-by, --bind-to over hwloc ----------------- */

int smrun_level_parse(const char *s, size_t len, enum smrun_level *out);
const char *smrun_level_name(enum smrun_level lv);
/* Each rank's CPU list (job->ranks[k].cpulist) from the options; 0, or an
 * exit code (smrun_topo_why() says why). */
int smrun_topo_place(struct smrun_job *job);
const char *smrun_topo_why(void);
/* In a rank before exec: binds to the CPU list. */
void smrun_topo_bind_self(const char *cpulist);
/* This machine's boot id (the kernel's, one per boot of one machine:
 * emulated hosts and containers of one machine share it), "-" when
 * unknown. */
void smrun_machine_id(char *buf, size_t len);
/* Builds the shared environment, then forks and execs every rank.
 * Returns 0, or -1 after failing the job (ranks already started remain and
 * are stopped by the loop). */
int smrun_spawn_all(struct smrun_job *job);
void smrun_env_free(char **env);

/* Opens the output files of rank r (after its channels exist); 0, or -1
 * after failing the job. */
int smrun_outfiles_attach(struct smrun_job *job, struct smrun_rank *r);

/* ---- foreign.c -------------------------------------------------------- */

/* Copies into lib the first library of another MPI (Open MPI, MPICH) the
 * ELF program depends on.  0 when it has one, -1 otherwise. */
int smrun_foreign_mpi(const char *program, char *lib, size_t len);
/* Warns once per job when rank r exited without initializing through our
 * PMI service and the program is linked with another MPI. */
void smrun_check_uninitialized(struct smrun_job *job, const struct smrun_rank *r);

/* ---- pmi_server.c ---------------------------------------------------- */

void smrun_pmi_setup(struct smrun_job *job);
/* The rank's PMI socket is readable (or hung up). */
void smrun_pmi_readable(struct smrun_job *job, struct smrun_rank *r);
/* Handles every request the rank wrote before it exited. */
void smrun_pmi_drain(struct smrun_job *job, struct smrun_rank *r);
/* Fails the job if ranks wait in a barrier that an exited rank never joined. */
void smrun_pmi_check_barrier(struct smrun_job *job);
void smrun_pmi_close(struct smrun_rank *r);

/* ---- output.c -------------------------------------------------------- */

void smrun_stream_init(struct smrun_stream *s, int fd, int dest, int rank);
/* Reads once and forwards the complete lines. */
void smrun_stream_readable(struct smrun_job *job, struct smrun_stream *s);
/* Reads everything the pipe holds right now (used once a rank has exited). */
void smrun_stream_drain(struct smrun_job *job, struct smrun_stream *s);
/* Forwards a partial line held too long (untagged output); returns the time
 * at which the stream next needs this call, 0 if never. */
double smrun_stream_tick(struct smrun_job *job, struct smrun_stream *s, double now);
/* Forwards what is buffered (a partial line ends the output) and closes. */
void smrun_stream_close(struct smrun_job *job, struct smrun_stream *s);

void smrun_stdin_readable(struct smrun_job *job);
void smrun_stdin_writable(struct smrun_job *job);
void smrun_stdin_close(struct smrun_job *job);

/* ---- main.c ---------------------------------------------------------- */

/* An agent's share of a job across hosts. */
struct smrun_share {
    struct smrun_agent *agent;
    int n, size;             /* ranks here, ranks in the job */
    const int *ranks;        /* their global ranks */
    const char *kvsname, *node_name;
    int node;                /* the host's index */
    const int *rank_app;     /* each rank's MPMD part; NULL: all part 0 */
    char **kv;               /* key, value, key, value... to preload */
    int nkv;
};

/* Finds the program of each MPMD part whose used[] is set (NULL: every
 * part) before any rank starts.  0 or an exit code after a message. */
int smrun_resolve_parts(struct smrun_options *o, const unsigned char *used);
/* The MPMD part of global rank r (0 without ':'). */
int smrun_app_of(const struct smrun_options *o, int r);

/* Starts the ranks on this node and runs them to the end (share NULL: the
 * whole job is here).  Returns smrun's exit code. */
int smrun_run_ranks(const struct smrun_options *opt, const char *program,
                    const struct smrun_share *share);

/* ---- head.c / agent.c: jobs across hosts --------------------------------- */

/* The head: starts one agent per host through the launcher, serves the
 * job-wide KVS and barrier, decides the exit code. */
int smrun_head_run(const struct smrun_options *opt);
/* "smrun --agent ADDR PORT NODE COOKIE": one host's share of a job. */
int smrun_agent_main(int argc, char **argv);

/* Hooks the rank machinery calls when it runs inside an agent. */
void smrun_agent_put(struct smrun_job *job, const char *key, const char *value);
void smrun_agent_barrier(struct smrun_job *job);
void smrun_agent_exit(struct smrun_job *job, const struct smrun_rank *r);
void smrun_agent_fail(struct smrun_job *job, int code, const char *text);
int smrun_agent_fd(const struct smrun_job *job, short *events);
/* A name request of rank r goes to the head, whose answer (name_result)
 * is the rank's reply: one name table per job. */
void smrun_agent_name(struct smrun_job *job, const struct smrun_rank *r, const char *cmd,
                      const char *service, const char *port);
/* This host's address toward the head (numeric, no brackets): where a
 * job spawned here listens for its agents.  0, or -1. */
int smrun_agent_local_addr(const struct smrun_job *job, char *out, size_t len);
void smrun_agent_event(struct smrun_job *job);

/* ---- job.c ----------------------------------------------------------- */

/* Runs the loop until every rank is gone; returns smrun's exit code. */
int smrun_job_run(struct smrun_job *job);
/* The first failure decides the exit code: prints the message (if fmt),
 * records code and stops the job (SIGTERM, SIGKILL after the grace).
 * Later calls are ignored. */
void smrun_job_fail(struct smrun_job *job, int code, const char *fmt, ...) SMAP_PRINTF_LIKE(3, 4);
/* A rank's PMI abort: like smrun_job_fail, but decided after the ranks
 * that already died are reaped, whose death wins (a peer aborting because
 * a rank was killed must not hide the kill). */
void smrun_job_abort(struct smrun_job *job, int code, const char *fmt, ...) SMAP_PRINTF_LIKE(3, 4);
/* Same without a message (the cause speaks for itself, e.g. EPIPE). */
void smrun_job_stop_with(struct smrun_job *job, int code);
/* Stops the job with sig instead of SIGTERM (a head relaying a signal). */
void smrun_job_stop_signal(struct smrun_job *job, int code, int sig);
/* Releases the ranks waiting in the PMI barrier (pmi_server.c). */
void smrun_pmi_barrier_release(struct smrun_job *job);
/* Sends sig to every rank's process group. */
void smrun_job_signal(struct smrun_job *job, int sig);

#endif
