/* The head of a job across hosts.  It listens on TCP, starts one agent per
 * host that has ranks with "LAUNCHER HOST SMRUN --agent ADDR PORT NODE
 * COOKIE" (this machine, by a name or address of its own, is started
 * directly, without the launcher: hosts.c), sends each agent its share of the job, then serves the
 * job-wide key-value space and barrier: puts are collected, and when every
 * host is in the barrier every host gets the puts of the others, then the
 * release.  The agents' stdout/stderr arrive through the launchers' pipes
 * (tagged by the agents) and leave whole lines at a time.
 *
 * The first failure anywhere (a rank's exit, an abort, a signal to us, an
 * agent lost) decides the exit code with the same rules as on one node; the
 * head then tells every agent to stop, and SIGKILLs the launchers of agents
 * that do not finish within the grace period. */
#include "smrun.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "base/timer.h"

/* Seconds for every agent to connect (a remote shell may be slow). */
#define HEAD_CONNECT_S 60.0
/* After the ranks' grace period, seconds more before launchers get SIGKILL. */
#define HEAD_AGENT_GRACE_S 3.0

struct agent_conn {
    struct smrun_host *host;
    int node;                /* index among the hosts that have ranks */
    pid_t pid;               /* the launcher process (its own group) */
    int alive, status;
    struct smrun_stream out, err;
    struct smrun_link link;  /* fd -1 until it says hello */
    int connected, done, in_barrier;
    char boot_id[40];        /* its machine's (hello), "": unknown */
};

struct head {
    struct smrun_job job;    /* stdin, stopping, exit code, signals, timeout */
    struct smrun_options opt;   /* the user's, untagged: agents tag */
    int tag_output;             /* the user's -l, for the agents */
    struct smrun_placement pl;
    struct agent_conn *agents;
    int nagents, alive;
    int lfd;
    char addr[INET6_ADDRSTRLEN];
    int port;
    char cookie[40];
    struct smrun_link *pending;   /* accepted, before hello */
    int npending;
    int nconnected;               /* the job goes out when all have said hello */
    struct smrun_kvs kvs;
    char **fresh;            /* puts since the last barrier: key, value, ... */
    int nfresh;
    int barrier_in;
    unsigned char *exited, *joined;   /* per rank */
    int stop_sig;            /* what agents relay to their ranks */
    int stop_sent;
    double connect_by, kill_agents_at, drain_until;
    int universe;            /* MPI_UNIVERSE_SIZE: -usize, else the hosts' slots */
    char *hosts_text;        /* "h1:2,h2:1": where the ranks' spawned jobs go */
};

/* ---- addresses -------------------------------------------------------- */

/* This machine by name, or every host under -launcher fork. */
static int started_here(const struct head *h, const struct smrun_host *host)
{
    return host->local || h->opt.launch == SMRUN_LAUNCH_FORK;
}

static int all_local(const struct head *h)
{
    for (int i = 0; i < h->nagents; i++)
        if (!started_here(h, h->agents[i].host))
            return 0;
    return 1;
}

static int through_srun(const struct head *h)
{
    return h->opt.launch == SMRUN_LAUNCH_SLURM ||
           (h->opt.launch == SMRUN_LAUNCH_DEFAULT && h->opt.alloc_slurm);
}

/* Splits a head address: "HOST", "HOST:PORT" (one colon: IPv4 or a
 * name), "[V6]" or "[V6]:PORT", or a bare IPv6 literal ("::1": more than
 * one colon, no port).  0, or -1 when malformed. */
static int split_head_addr(const char *want, char *host, size_t cap, int *port)
{
    const char *p = NULL;
    size_t n;
    *port = 0;
    if (want[0] == '[') {
        const char *close = strchr(want, ']');
        if (!close || (close[1] && close[1] != ':'))
            return -1;
        n = (size_t)(close - want - 1);
        memcpy(host, want + 1, n < cap ? n : 0);
        if (close[1] == ':')
            p = close + 2;
    } else {
        const char *colon = strchr(want, ':');
        n = colon && !strchr(colon + 1, ':') ? (size_t)(colon - want) : strlen(want);
        memcpy(host, want, n < cap ? n : 0);
        if (colon && !strchr(colon + 1, ':'))
            p = colon + 1;
    }
    if (!n || n >= cap)
        return -1;
    host[n] = '\0';
    if (p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (!*p || *end || v < 1 || v > 65535)
            return -1;
        *port = (int)v;
    }
    return 0;
}

/* The route toward the first host that is not this machine (route.c). */
static int route_to_first_remote(const struct head *h, struct sockaddr_storage *ss,
                                 socklen_t *sslen)
{
    for (int i = 0; i < h->nagents; i++)
        if (!h->agents[i].host->local) {
            if (smrun_route_source(h->agents[i].host->name, ss, sslen) != 0)
                return -1;
            smap_debug("head address: the source of the route toward %s",
                       h->agents[i].host->name);
            return 0;
        }
    return -1;
}

/* --head-addr, else SMRUN_HEAD_ADDR, else the address from which the first
 * remote host is routed, else the first non-loopback IPv4 address of an
 * interface that is up (loopback when every host is "localhost" or
 * nothing else exists).  An IPv4 or IPv6 address, or a name (its first
 * address), with an optional port. */
static int choose_addr(struct head *h, struct sockaddr_storage *ss, socklen_t *sslen)
{
    const char *want = h->opt.head_addr ? h->opt.head_addr
                     : h->opt.iface ? NULL : getenv("SMRUN_HEAD_ADDR");
    memset(ss, 0, sizeof *ss);
    if (!want && h->opt.iface) {
        if (smrun_iface_addr(h->opt.iface, ss, sslen) == 0)
            return 0;
        smrun_msg("-iface %s: the interface has no address to listen on for the agents "
                  "(give --head-addr)", h->opt.iface);
        return -1;
    }
    if (want && *want) {
        char host[256];
        int port;
        struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res;
        if (split_head_addr(want, host, sizeof host, &port) != 0 ||
            getaddrinfo(host, NULL, &hints, &res) != 0) {
            smrun_msg("head address '%s': not an IPv4 or IPv6 address or a resolvable name "
                      "(forms: ADDR, ADDR:PORT, [IPV6], [IPV6]:PORT)", want);
            return -1;
        }
        memcpy(ss, res->ai_addr, res->ai_addrlen);
        *sslen = res->ai_addrlen;
        freeaddrinfo(res);
        if (ss->ss_family == AF_INET6)
            ((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
        else
            ((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
        return 0;
    }
    struct sockaddr_in *sin = (struct sockaddr_in *)ss;
    sin->sin_family = AF_INET;
    sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    *sslen = sizeof *sin;
    if (all_local(h))
        return 0;
    if (route_to_first_remote(h, ss, sslen) == 0)
        return 0;
    struct ifaddrs *ifs;
    if (getifaddrs(&ifs) != 0)
        return 0;
    for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & 1 /* IFF_UP */))
            continue;
        struct in_addr x = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
        if ((ntohl(x.s_addr) >> 24) != 127) {
            sin->sin_addr = x;
            break;
        }
    }
    freeifaddrs(ifs);
    return 0;
}

/* The numeric address of ss (no brackets: the agent's argument). */
static void addr_text(const struct sockaddr_storage *ss, char *out, size_t cap)
{
    if (ss->ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, out, (socklen_t)cap);
    else
        inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, out, (socklen_t)cap);
}

static int head_listen(struct head *h)
{
    struct sockaddr_storage ss;
    socklen_t sslen;
    if (choose_addr(h, &ss, &sslen) != 0)
        return -1;
    h->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    addr_text(&ss, h->addr, sizeof h->addr);
    socklen_t len = sizeof ss;
    if (h->lfd < 0 || bind(h->lfd, (struct sockaddr *)&ss, sslen) != 0 ||
        listen(h->lfd, 128) != 0 || getsockname(h->lfd, (struct sockaddr *)&ss, &len) != 0) {
        smrun_msg("cannot listen on %s for the agents: %s", h->addr, strerror(errno));
        return -1;
    }
    h->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                             : ((struct sockaddr_in *)&ss)->sin_port);
    smap_debug("head listens on %s%s%s port %d", ss.ss_family == AF_INET6 ? "[" : "", h->addr,
               ss.ss_family == AF_INET6 ? "]" : "", h->port);
    return 0;
}

static void make_cookie(struct head *h)
{
    unsigned char b[16] = { 0 };
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, b, sizeof b) != (ssize_t)sizeof b) {
        double t = smap_now();
        memcpy(b, &t, sizeof t);
        pid_t p = getpid();
        memcpy(b + 8, &p, sizeof p);
    }
    if (fd >= 0)
        close(fd);
    for (int i = 0; i < 16; i++)
        snprintf(h->cookie + 2 * i, 3, "%02x", b[i]);
}

/* ---- starting the agents ---------------------------------------------- */

static int split_words(const char *cmd, char **out, int max)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s", cmd);
    int n = 0;
    char *save = NULL;
    for (char *w = strtok_r(buf, " \t", &save); w && n < max; w = strtok_r(NULL, " \t", &save))
        out[n++] = w;
    return n;
}

/* hydra's -launcher slurm, one job step per host: "srun --nodes=1
 * --ntasks=1 --nodelist=HOST ... smrun --agent ...".  One step per host
 * keeps what one remote shell per host gives: stdin only to rank 0's host,
 * a launcher exit that names its host, and a kill per host.  The step may
 * share the node's CPUs with other steps (--overlap), binds nothing itself
 * (the agent binds the ranks) and serves no PMI (the agent does). */
static int srun_words(const struct head *h, const struct agent_conn *a, char **argv,
                      char *nodelist, size_t len)
{
    int n = split_words(h->opt.launcher ? h->opt.launcher : "srun", argv, 64);
    static char *const fixed[] = { "--nodes=1", "--ntasks=1", "--kill-on-bad-exit",
                                   "--cpu-bind=none", "--mpi=none", "--overlap" };
    snprintf(nodelist, len, "--nodelist=%s", a->host->name);
    argv[n++] = nodelist;
    for (size_t i = 0; i < SMAP_ARRAY_SIZE(fixed); i++)
        argv[n++] = fixed[i];
    return n;
}

static _Noreturn void exec_agent(struct head *h, struct agent_conn *a, int in, int out, int err,
                                 const char *self)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    smrun_signals_reset_in_child();
    if (dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0)
        _exit(SMRUN_EXIT_FAILURE);
    char *argv[80], nodelist[300];
    int n = 0;
    if (started_here(h, a->host)) {
        n = 0;
    } else if (through_srun(h)) {
        n = srun_words(h, a, argv, nodelist, sizeof nodelist);
    } else {
        n = split_words(h->opt.launcher ? h->opt.launcher : "ssh", argv, 64);
        argv[n++] = a->host->name;
    }
    char port[16], node[16];
    snprintf(port, sizeof port, "%d", h->port);
    snprintf(node, sizeof node, "%d", a->node);
    argv[n++] = (char *)self;
    argv[n++] = "--agent";
    argv[n++] = h->addr;
    argv[n++] = port;
    argv[n++] = node;
    argv[n++] = h->cookie;
    argv[n] = NULL;
    execvp(argv[0], argv);
    dprintf(STDERR_FILENO, "smrun: cannot run the launcher '%s': %s\n", argv[0], strerror(errno));
    _exit(errno == ENOENT ? SMRUN_EXIT_NOTFOUND : SMRUN_EXIT_NOEXEC);
}

static int start_agent(struct head *h, struct agent_conn *a, const char *self)
{
    int po[2], pe[2], pin[2] = { -1, -1 };
    if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0)
        return -1;
    /* Rank 0's host reads our stdin; the others read /dev/null. */
    int in = -1;
    if (a->host->ranks[0] == 0 && h->job.in.src >= 0) {
        if (pipe2(pin, O_CLOEXEC) != 0)
            return -1;
        in = pin[0];
    } else {
        in = h->job.devnull;
    }
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        exec_agent(h, a, in, po[1], pe[1], self);
    setpgid(pid, pid);
    a->pid = pid;
    a->alive = 1;
    h->alive++;
    close(po[1]);
    close(pe[1]);
    smrun_stream_init(&a->out, po[0], STDOUT_FILENO, -1);
    smrun_stream_init(&a->err, pe[0], STDERR_FILENO, -1);
    fcntl(po[0], F_SETFL, O_NONBLOCK);
    fcntl(pe[0], F_SETFL, O_NONBLOCK);
    if (pin[0] >= 0) {
        close(pin[0]);
        h->job.in.dst = pin[1];
        fcntl(pin[1], F_SETFL, O_NONBLOCK);
    }
    smap_debug("host %s: launcher pid %d, %d ranks", a->host->name, (int)pid, a->host->nranks);
    return 0;
}

/* ---- the job's description ------------------------------------------- */

/* MPICH's node-layout key: one (node,1,count) block per run of ranks on one
 * host; left out when it does not fit a PMI value. */
static void process_mapping(struct head *h, char *out, size_t len)
{
    int *node_of = calloc((size_t)h->pl.nranks, sizeof(int));
    out[0] = '\0';
    if (!node_of)
        return;
    for (int i = 0; i < h->nagents; i++)
        for (int k = 0; k < h->agents[i].host->nranks; k++)
            node_of[h->agents[i].host->ranks[k]] = i;
    size_t n = (size_t)snprintf(out, len, "(vector");
    for (int r = 0; r < h->pl.nranks && n < len;) {
        int s = r;
        while (r < h->pl.nranks && node_of[r] == node_of[s])
            r++;
        n += (size_t)snprintf(out + n, len - n, ",(%d,1,%d)", node_of[s], r - s);
    }
    if (n + 2 > len || n + 2 > SMAP_PMI_VALLEN_MAX)
        out[0] = '\0';
    else
        strcat(out, ")");
    free(node_of);
}

/* The launcher as an option of a nested smrun: "fork", "slurm", or the
 * remote shell's command ("" for the default, ssh). */
static const char *launch_text(const struct smrun_options *o)
{
    return o->launch == SMRUN_LAUNCH_FORK ? "fork" : o->launch == SMRUN_LAUNCH_SLURM ? "slurm"
         : o->launcher ? o->launcher : "";
}

/* Options that the "job" message has no room for: "set NAME VALUE". */
static void send_settings(const struct head *h, struct smrun_link *l)
{
    const struct smrun_options *o = &h->opt;
    char universe[16];
    snprintf(universe, sizeof universe, "%d", h->universe);
    smrun_link_send(l, "set", "universe", universe, NULL);
    /* the jobs the ranks spawn: over the same hosts, the same launcher */
    if (h->hosts_text)
        smrun_link_send(l, "set", "job-hosts", h->hosts_text, NULL);
    smrun_link_send(l, "set", "launch", launch_text(o), NULL);
    if (o->envnone)
        smrun_link_send(l, "set", "envnone", "1", NULL);
    if (o->output_dir)
        smrun_link_send(l, "set", "output-dir", o->output_dir, NULL);
    if (o->output_nocopy)
        smrun_link_send(l, "set", "output-nocopy", "1", NULL);
    if (o->output_nojobid)
        smrun_link_send(l, "set", "output-nojobid", "1", NULL);
    if (o->outfile_pattern)
        smrun_link_send(l, "set", "outfile-pattern", o->outfile_pattern, NULL);
    if (o->errfile_pattern)
        smrun_link_send(l, "set", "errfile-pattern", o->errfile_pattern, NULL);
}

/* Hosts of one machine (their agents' boot ids match: emulated hosts,
 * containers) bind over it as one: each agent hears which slice of the
 * machine's ranks its ranks are, in host order (topo.c). */
static void send_slice(const struct head *h, struct agent_conn *a)
{
    if (!a->boot_id[0])
        return;
    int first = 0, total = 0;
    for (int i = 0; i < h->nagents; i++) {
        const struct agent_conn *b = &h->agents[i];
        if (strcmp(b->boot_id, a->boot_id) != 0)
            continue;
        if (b < a)
            first += b->host->nranks;
        total += b->host->nranks;
    }
    if (total == a->host->nranks)
        return;   /* a machine of its own */
    char slice[32];
    snprintf(slice, sizeof slice, "%d:%d", first, total);
    smrun_link_send(&a->link, "set", "machine-slice", slice, NULL);
}

/* MPMD: "app A WDIR ENVNONE", then its "aarg A WORD" and "aenv A VAR=VALUE"
 * (the part's own -env/-x), for every part. */
static void send_parts(const struct head *h, struct smrun_link *l)
{
    for (int a = 0; a < h->opt.napps && h->opt.napps > 1; a++) {
        const struct smrun_app *app = &h->opt.apps[a];
        char idx[16], none[16];
        snprintf(idx, sizeof idx, "%d", a);
        snprintf(none, sizeof none, "%d", app->envnone);
        smrun_link_send(l, "app", idx, app->wdir ? app->wdir : "", none, NULL);
        for (char **arg = app->argv; *arg; arg++)
            smrun_link_send(l, "aarg", idx, *arg, NULL);
        for (int i = 0; i < app->nenv; i++)
            smrun_link_send(l, "aenv", idx, app->env[i], NULL);
    }
}

static void send_job(struct head *h, struct agent_conn *a)
{
    struct smrun_link *l = &a->link;
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd))
        smrun_link_send(l, "cwd", cwd, NULL);
    for (char **e = environ; *e; e++)
        smrun_link_send(l, "henv", *e, NULL);
    for (int i = 0; i < h->opt.nenv; i++)
        smrun_link_send(l, "env", h->opt.env[i], NULL);
    for (char **arg = h->opt.argv; *arg; arg++)
        smrun_link_send(l, "arg", *arg, NULL);
    char size[16], tag[4], verbose[4], report[4], rank[16];
    snprintf(size, sizeof size, "%d", h->pl.nranks);
    snprintf(tag, sizeof tag, "%d", h->tag_output);
    snprintf(verbose, sizeof verbose, "%d", h->opt.verbose);
    snprintf(report, sizeof report, "%d", h->opt.report_bindings);
    /* the placement options as given: each agent maps over its own host */
    const char *bind = h->opt.bind_spec ? h->opt.bind_spec : "-";
    const char *map = h->opt.map_spec ? h->opt.map_spec : "-";
    const char *rank_by = h->opt.rank_spec ? h->opt.rank_spec : "-";
    smrun_link_send(l, "job", size, h->job.kvsname, a->host->name, tag, bind, verbose, report,
                    map, rank_by, NULL);
    send_settings(h, l);
    send_slice(h, a);
    send_parts(h, l);
    for (int k = 0; k < a->host->nranks; k++) {
        char app[16];
        snprintf(rank, sizeof rank, "%d", a->host->ranks[k]);
        snprintf(app, sizeof app, "%d", smrun_app_of(&h->opt, a->host->ranks[k]));
        smrun_link_send(l, "rank", rank, app, NULL);
    }
    char mapping[SMAP_PMI_VALLEN_MAX + 1];
    process_mapping(h, mapping, sizeof mapping);
    if (mapping[0])
        smrun_link_send(l, "kv", "PMI_process_mapping", mapping, NULL);
    smrun_link_send(l, "go", NULL);
}

/* ---- stopping ----------------------------------------------------------- */

static void signal_launchers(struct head *h, int sig)
{
    for (int i = 0; i < h->nagents; i++)
        if (h->agents[i].alive && kill(-h->agents[i].pid, sig) != 0)
            kill(h->agents[i].pid, sig);
}

/* Once the job is stopping, every agent hears it once. */
static void relay_stop(struct head *h)
{
    if (!h->job.stopping || h->stop_sent)
        return;
    h->stop_sent = 1;
    char sig[16];
    snprintf(sig, sizeof sig, "%d", h->stop_sig ? h->stop_sig : SIGTERM);
    for (int i = 0; i < h->nagents; i++)
        if (h->agents[i].link.fd >= 0)
            smrun_link_send(&h->agents[i].link, "stop", sig, NULL);
    h->kill_agents_at = smap_now() + SMRUN_KILL_GRACE_S + HEAD_AGENT_GRACE_S;
}

/* ---- messages from agents ----------------------------------------------- */

static void barrier_check(struct head *h)
{
    if (h->job.stopping || h->barrier_in == 0)
        return;
    for (int r = 0; r < h->pl.nranks; r++) {
        if (h->exited[r] && !h->joined[r]) {
            smrun_job_fail(&h->job, SMRUN_EXIT_FAILURE,
                           "rank %d exited without joining the PMI barrier that other ranks wait in", r);
            return;
        }
    }
}

static void barrier_release(struct head *h)
{
    for (int i = 0; i < h->nagents; i++) {
        struct agent_conn *a = &h->agents[i];
        for (int k = 0; k + 1 < h->nfresh; k += 2)
            smrun_link_send(&a->link, "kv", h->fresh[k], h->fresh[k + 1], NULL);
        smrun_link_send(&a->link, "barrier_out", NULL);
        a->in_barrier = 0;
    }
    for (int k = 0; k < h->nfresh; k++)
        free(h->fresh[k]);
    h->nfresh = 0;
    h->barrier_in = 0;
    /* A rank that has exited cannot join the next barrier. */
    memset(h->joined, 0, (size_t)h->pl.nranks);
}

static int valid_rank(const struct head *h, const char *s)
{
    char *end;
    long r = strtol(s, &end, 10);
    return *s && !*end && r >= 0 && r < h->pl.nranks ? (int)r : -1;
}

static void on_put(struct head *h, const char *key, const char *value)
{
    if (smrun_kvs_put(&h->kvs, key, value) != 0) {
        smrun_job_fail(&h->job, SMRUN_EXIT_FAILURE, "the job's key-value space is full");
        return;
    }
    char **f = realloc(h->fresh, (size_t)(h->nfresh + 2) * sizeof *f);
    if (!f || !(f[h->nfresh] = strdup(key)) || !(f[h->nfresh + 1] = strdup(value))) {
        if (f)
            h->fresh = f;
        smrun_job_fail(&h->job, SMRUN_EXIT_FAILURE, "out of memory");
        return;
    }
    h->fresh = f;
    h->nfresh += 2;
}

static void on_agent_message(struct head *h, struct agent_conn *a, const struct smrun_link_msg *m)
{
    const char *v = m->w[0];
    if (strcmp(v, "put") == 0) {
        on_put(h, m->w[1], m->w[2]);
    } else if (strcmp(v, "barrier") == 0) {
        if (!a->in_barrier) {
            a->in_barrier = 1;
            if (++h->barrier_in == h->nagents)
                barrier_release(h);
            else
                barrier_check(h);
        }
    } else if (strcmp(v, "exit") == 0) {
        int r = valid_rank(h, m->w[1]), st = atoi(m->w[2]);
        /* Only a clean exit can strand a barrier; a failure reports itself. */
        if (r >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
            h->exited[r] = 1;
            h->joined[r] = (unsigned char)(atoi(m->w[3]) != 0);
            barrier_check(h);
        }
    } else if (strcmp(v, "fail") == 0) {
        int code = atoi(m->w[1]);
        if (*m->w[2])
            smrun_job_fail(&h->job, code, "%s", m->w[2]);
        else
            smrun_job_stop_with(&h->job, code);
    } else if (strcmp(v, "name") == 0) {   /* name RANK CMD SERVICE PORT */
        /* the job's one name table: a name published on one host is
         * found from every other */
        char line[SMAP_PMI_MAXLINE];
        smrun_names_answer(&h->job, m->w[2], m->w[3], *m->w[4] ? m->w[4] : NULL, line,
                           sizeof line);
        smrun_link_send(&a->link, "name_result", m->w[1], line, NULL);
    } else if (strcmp(v, "done") == 0) {
        a->done = 1;
    }
}

static void agent_lost(struct head *h, struct agent_conn *a, const char *why)
{
    smrun_link_close(&a->link);
    if (!a->done)
        smrun_job_fail(&h->job, SMRUN_EXIT_FAILURE, "host %s: %s", a->host->name, why);
}

static void agent_readable(struct head *h, struct agent_conn *a)
{
    if (smrun_link_flush(&a->link) != 0) {
        agent_lost(h, a, "lost the connection to the agent");
        return;
    }
    int rc = smrun_link_fill(&a->link);
    struct smrun_link_msg m;
    int got = 0;
    while (a->link.fd >= 0 && (got = smrun_link_next(&a->link, &m)) > 0)
        on_agent_message(h, a, &m);
    if (a->link.fd >= 0 && got < 0)
        agent_lost(h, a, "the agent sent garbage");
    else if (a->link.fd >= 0 && rc < 0)
        agent_lost(h, a, "lost the connection to the agent");
}

static void drop_pending(struct head *h, int i)
{
    smrun_link_close(&h->pending[i]);
    h->pending[i] = h->pending[--h->npending];
}

/* A new connection says "hello NODE COOKIE" before it is an agent. */
static void pending_readable(struct head *h, int i)
{
    struct smrun_link *l = &h->pending[i];
    int rc = smrun_link_fill(l);
    struct smrun_link_msg m;
    int got = smrun_link_next(l, &m);
    if (got == 0) {
        if (rc < 0)
            drop_pending(h, i);
        return;
    }
    int node = -1;
    if (got > 0 && strcmp(m.w[0], "hello") == 0 && strcmp(m.w[2], h->cookie) == 0) {
        char *end;
        long v = strtol(m.w[1], &end, 10);
        if (*m.w[1] && !*end && v >= 0 && v < h->nagents && !h->agents[v].connected)
            node = (int)v;
    }
    if (node < 0 || h->job.stopping) {
        smap_debug("dropping a connection that is not an expected agent");
        drop_pending(h, i);
        return;
    }
    struct agent_conn *a = &h->agents[node];
    a->link = *l;
    a->connected = 1;
    /* a boot id is hex and dashes; anything else (an older agent) is none */
    if (strlen(m.w[3]) < sizeof a->boot_id && strspn(m.w[3], "0123456789abcdef-") == strlen(m.w[3]) &&
        strcmp(m.w[3], "-") != 0)
        snprintf(a->boot_id, sizeof a->boot_id, "%s", m.w[3]);
    h->pending[i] = h->pending[--h->npending];
    smap_debug("host %s: agent connected", a->host->name);
    /* every agent must be known before any hears its slice of a shared
     * machine; the ranks of the first could only wait for the last's in
     * their first fence anyway */
    if (++h->nconnected == h->nagents)
        for (int k = 0; k < h->nagents; k++)
            send_job(h, &h->agents[k]);
}

static void accept_agents(struct head *h)
{
    for (;;) {
        int fd = accept4(h->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            return;
        struct smrun_link *p = realloc(h->pending, (size_t)(h->npending + 1) * sizeof *p);
        if (!p || h->npending >= 4 * h->nagents + 16) {
            if (p)
                h->pending = p;
            close(fd);
            continue;
        }
        h->pending = p;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        smrun_link_init(&h->pending[h->npending++], fd);
    }
}

/* ---- launchers exiting, signals, timers --------------------------------- */

static void judge_launcher(struct head *h, struct agent_conn *a)
{
    int st = a->status;
    if (a->done || h->job.stopping)
        return;
    const char *when = a->connected ? "" : " before its agent connected";
    if (WIFSIGNALED(st)) {
        char name[32];
        smrun_job_fail(&h->job, 128 + WTERMSIG(st), "host %s: the agent was killed by signal %d (%s)%s",
                       a->host->name, WTERMSIG(st), smrun_signame(WTERMSIG(st), name, sizeof name), when);
    } else {
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
        smrun_job_fail(&h->job, code ? code : SMRUN_EXIT_FAILURE,
                       "host %s: the launcher exited with code %d%s", a->host->name, code, when);
    }
}

static void reap(struct head *h)
{
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        for (int i = 0; i < h->nagents; i++) {
            struct agent_conn *a = &h->agents[i];
            if (a->pid != pid || !a->alive)
                continue;
            a->alive = 0;
            a->status = st;
            h->alive--;
            smrun_stream_drain(&h->job, &a->out);
            smrun_stream_drain(&h->job, &a->err);
            if (a->link.fd >= 0)
                agent_readable(h, a);   /* its last words: a failure explains the exit */
            judge_launcher(h, a);
        }
    }
}

static void handle_signals(struct head *h)
{
    int nterm;
    int sig = smrun_signals_take(&nterm);
    reap(h);
    if (!sig)
        return;
    if (!h->job.stopping) {
        char name[32];
        h->stop_sig = sig;   /* the ranks get the same signal */
        smrun_job_fail(&h->job, 128 + sig, "caught %s, stopping the job",
                       smrun_signame(sig, name, sizeof name));
    } else if (nterm > 1) {
        signal_launchers(h, SIGKILL);
    }
}

static double earliest(double a, double b)
{
    return a == 0 ? b : (b == 0 || a < b) ? a : b;
}

static int streams_open(const struct head *h)
{
    for (int i = 0; i < h->nagents; i++)
        if (h->agents[i].out.fd >= 0 || h->agents[i].err.fd >= 0)
            return 1;
    return 0;
}

static double run_timers(struct head *h)
{
    double now = smap_now();
    struct smrun_job *job = &h->job;
    if (job->timeout_at && !job->stopping && now >= job->timeout_at)
        smrun_job_fail(job, SMRUN_EXIT_TIMEOUT, "job timed out after %g s", h->opt.timeout_s);
    if (!job->stopping && h->connect_by && now >= h->connect_by) {
        for (int i = 0; i < h->nagents; i++)
            if (!h->agents[i].connected) {
                smrun_job_fail(job, SMRUN_EXIT_FAILURE, "host %s: no agent connected within %g s",
                               h->agents[i].host->name, HEAD_CONNECT_S);
                break;
            }
        h->connect_by = 0;
    }
    relay_stop(h);
    if (h->kill_agents_at && now >= h->kill_agents_at) {
        smap_debug("agents still running after the grace period: SIGKILL");
        signal_launchers(h, SIGKILL);
        h->kill_agents_at = 0;
    }
    double next = job->stopping ? 0 : earliest(job->timeout_at, h->connect_by);
    next = earliest(next, h->kill_agents_at);
    if (h->alive == 0) {
        if (!h->drain_until)
            h->drain_until = now + SMRUN_DRAIN_S;
        if (now >= h->drain_until)
            for (int i = 0; i < h->nagents; i++) {
                smrun_stream_close(job, &h->agents[i].out);
                smrun_stream_close(job, &h->agents[i].err);
            }
        next = earliest(next, h->drain_until);
    }
    for (int i = 0; i < h->nagents; i++) {
        next = earliest(next, smrun_stream_tick(job, &h->agents[i].out, now));
        next = earliest(next, smrun_stream_tick(job, &h->agents[i].err, now));
    }
    return next;
}

/* ---- the loop ------------------------------------------------------------ */

enum kind { K_WAKE, K_LISTEN, K_PENDING, K_LINK, K_OUT, K_ERR, K_STDIN, K_STDIN_OUT };

struct slot {
    enum kind kind;
    int i;
};

static void add(struct pollfd *pfd, struct slot *sl, int *n, int fd, short ev, enum kind k, int i)
{
    if (fd < 0)
        return;
    pfd[*n] = (struct pollfd){ .fd = fd, .events = ev };
    sl[*n] = (struct slot){ .kind = k, .i = i };
    (*n)++;
}

static int build(struct head *h, struct pollfd *pfd, struct slot *sl)
{
    int n = 0;
    add(pfd, sl, &n, h->job.wake_fd, POLLIN, K_WAKE, 0);
    add(pfd, sl, &n, h->lfd, POLLIN, K_LISTEN, 0);
    for (int i = 0; i < h->npending; i++)
        add(pfd, sl, &n, h->pending[i].fd, POLLIN, K_PENDING, i);
    struct smrun_stdin *in = &h->job.in;
    if (in->dst >= 0) {
        if (in->len > in->off)
            add(pfd, sl, &n, in->dst, POLLOUT, K_STDIN_OUT, 0);
        else
            add(pfd, sl, &n, in->src, POLLIN, K_STDIN, 0);
    }
    for (int i = 0; i < h->nagents; i++) {
        struct agent_conn *a = &h->agents[i];
        add(pfd, sl, &n, a->link.fd, (short)(POLLIN | (smrun_link_pending(&a->link) ? POLLOUT : 0)),
            K_LINK, i);
        add(pfd, sl, &n, a->out.fd, POLLIN, K_OUT, i);
        add(pfd, sl, &n, a->err.fd, POLLIN, K_ERR, i);
    }
    return n;
}

static void dispatch(struct head *h, const struct pollfd *p, const struct slot *s)
{
    switch (s->kind) {
    case K_WAKE:
        break;
    case K_LISTEN:
        accept_agents(h);
        break;
    case K_PENDING:
        /* Pending entries move as others leave: only act on the one polled. */
        if (s->i < h->npending && h->pending[s->i].fd == p->fd)
            pending_readable(h, s->i);
        break;
    case K_LINK:
        if (h->agents[s->i].link.fd == p->fd)
            agent_readable(h, &h->agents[s->i]);
        break;
    case K_OUT:
        if (h->agents[s->i].out.fd == p->fd)
            smrun_stream_readable(&h->job, &h->agents[s->i].out);
        break;
    case K_ERR:
        if (h->agents[s->i].err.fd == p->fd)
            smrun_stream_readable(&h->job, &h->agents[s->i].err);
        break;
    case K_STDIN:
        if (p->revents & POLLNVAL)
            smrun_stdin_close(&h->job);
        else if (h->job.in.src == p->fd)
            smrun_stdin_readable(&h->job);
        break;
    case K_STDIN_OUT:
        if (h->job.in.dst == p->fd)
            smrun_stdin_writable(&h->job);
        break;
    }
}

static int poll_ms(double next)
{
    if (next == 0)
        return -1;
    double ms = ceil((next - smap_now()) * 1000.0);
    return ms < 0 ? 0 : ms > 60000 ? 60000 : (int)ms + 1;
}

static int loop(struct head *h)
{
    size_t cap = 8 + 3 * (size_t)h->nagents + 4 * (size_t)h->nagents + 16;
    struct pollfd *pfd = calloc(cap + 1, sizeof *pfd);
    struct slot *sl = calloc(cap + 1, sizeof *sl);
    if (!pfd || !sl) {
        free(pfd);
        free(sl);
        smrun_msg("out of memory");
        signal_launchers(h, SIGKILL);
        return SMRUN_EXIT_FAILURE;
    }
    for (;;) {
        handle_signals(h);
        double next = run_timers(h);
        if (h->alive == 0 && !streams_open(h))
            break;
        int n = build(h, pfd, sl);
        int rc = poll(pfd, (nfds_t)n, poll_ms(next));
        if (rc < 0 && errno != EINTR) {
            smrun_job_fail(&h->job, SMRUN_EXIT_FAILURE, "poll: %s", strerror(errno));
            signal_launchers(h, SIGKILL);
        }
        for (int i = 0; i < n && rc > 0; i++)
            if (pfd[i].revents)
                dispatch(h, &pfd[i], &sl[i]);
    }
    free(pfd);
    free(sl);
    return h->job.stopping ? h->job.exit_code : 0;
}

/* ---- setup and teardown -------------------------------------------------- */

static int self_path(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* The path travels through a remote shell as one word. */
    for (char *c = buf; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              strchr("._/+-@", *c)))
            return -1;
    return 0;
}

static void head_free(struct head *h)
{
    for (int i = 0; i < h->nagents; i++) {
        smrun_stream_close(&h->job, &h->agents[i].out);
        smrun_stream_close(&h->job, &h->agents[i].err);
        smrun_link_close(&h->agents[i].link);
    }
    for (int i = 0; i < h->npending; i++)
        smrun_link_close(&h->pending[i]);
    free(h->pending);
    free(h->hosts_text);
    h->hosts_text = NULL;
    smrun_dynamic_free(&h->job);
    for (int k = 0; k < h->nfresh; k++)
        free(h->fresh[k]);
    free(h->fresh);
    smrun_stdin_close(&h->job);
    if (h->job.devnull >= 0)
        close(h->job.devnull);
    if (h->lfd >= 0)
        close(h->lfd);
    smrun_kvs_free(&h->kvs);
    free(h->agents);
    free(h->exited);
    free(h->joined);
    smrun_placement_free(&h->pl);
}

static int loopback_name(const char *name)
{
    return !strcmp(name, "localhost") || !strcmp(name, "localhost.localdomain") ||
           !strncmp(name, "127.", 4) || !strcmp(name, "::1");
}

/* The job's hosts with their slots, in order ("h1:2,h2:1"), and their
 * sum: MPI_UNIVERSE_SIZE unless -usize (never below the job's size). */
static int hosts_text(struct head *h)
{
    char self[256] = "localhost";
    gethostname(self, sizeof self - 1);
    size_t len = 1;
    long slots = 0;
    for (int i = 0; i < h->pl.nhosts; i++)
        len += strlen(h->pl.hosts[i].name) + strlen(self) + 16;
    if (!(h->hosts_text = malloc(len)))
        return -1;
    h->hosts_text[0] = '\0';
    for (int i = 0, at = 0; i < h->pl.nhosts; i++) {
        const struct smrun_host *host = &h->pl.hosts[i];
        int n = host->slots > host->nranks ? host->slots : host->nranks;
        /* an agent elsewhere would take a loopback name for its own host */
        const char *name = host->local && loopback_name(host->name) ? self : host->name;
        at += snprintf(h->hosts_text + at, len - (size_t)at, "%s%s:%d", i ? "," : "", name,
                       n > 0 ? n : 1);
        slots += n;
    }
    h->universe = h->opt.universe > 0 ? h->opt.universe : (int)(slots > 65536 ? 65536 : slots);
    if (h->universe < h->pl.nranks)
        h->universe = h->pl.nranks;
    return 0;
}

static int head_init(struct head *h, const struct smrun_options *opt)
{
    h->opt = *opt;
    h->tag_output = opt->tag_output;
    h->opt.tag_output = 0;   /* what the agents send is tagged already */
    h->lfd = -1;
    struct smrun_job *job = &h->job;
    job->opt = &h->opt;
    job->launcher_pid = getpid();
    job->in.src = STDIN_FILENO;
    job->in.dst = job->in.child_fd = -1;
    job->devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int rc = smrun_placement_make(opt, &h->pl);
    if (rc != 0)
        return rc;
    for (int i = 0; opt->display_map && i < h->pl.nhosts; i++)
        if (h->pl.hosts[i].nranks)
            smrun_map_print(h->pl.hosts[i].name, h->pl.hosts[i].ranks, h->pl.hosts[i].nranks);
    h->agents = calloc((size_t)h->pl.nhosts, sizeof *h->agents);
    h->exited = calloc((size_t)h->pl.nranks, 1);
    h->joined = calloc((size_t)h->pl.nranks, 1);
    if (!h->agents || !h->exited || !h->joined || job->devnull < 0) {
        smrun_msg("out of memory");
        return SMRUN_EXIT_FAILURE;
    }
    for (int i = 0; i < h->pl.nhosts; i++) {
        if (h->pl.hosts[i].nranks == 0)
            continue;
        struct agent_conn *a = &h->agents[h->nagents];
        a->host = &h->pl.hosts[i];
        a->node = h->nagents++;
        a->link.fd = -1;
        smrun_stream_init(&a->out, -1, STDOUT_FILENO, -1);
        smrun_stream_init(&a->err, -1, STDERR_FILENO, -1);
    }
    if (hosts_text(h) != 0) {
        smrun_msg("out of memory");
        return SMRUN_EXIT_FAILURE;
    }
    make_cookie(h);
    snprintf(job->kvsname, sizeof job->kvsname, "smap-%d-%.8s", (int)getpid(), h->cookie);
    return 0;
}

/* Every rank's output file, made here before any agent starts (they
 * append to them: the same files on a shared file system). */
static int prepare_outfiles(const struct head *h)
{
    for (int i = 0; i < h->nagents; i++) {
        const struct smrun_host *host = h->agents[i].host;
        struct smrun_outfile_where w = { .host = host->name, .node = h->agents[i].node,
                                         .size = h->pl.nranks };
        int rc = smrun_outfiles_prepare(&h->opt, &w, host->ranks, host->nranks);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int smrun_head_run(const struct smrun_options *opt)
{
    static struct head h;
    char self[PATH_MAX];
    int rc = head_init(&h, opt);
    if (rc == 0 && self_path(self, sizeof self) != 0) {
        smrun_msg("the path of smrun cannot be passed to a remote shell as one word");
        rc = SMRUN_EXIT_FAILURE;
    }
    if (rc == 0 && smrun_outfiles_wanted(opt))
        rc = prepare_outfiles(&h);
    if (rc == 0 && head_listen(&h) != 0)
        rc = SMRUN_EXIT_FAILURE;
    if (rc == 0 && (h.job.wake_fd = smrun_signals_install()) < 0) {
        smrun_msg("cannot set up signal handling: %s", strerror(errno));
        rc = SMRUN_EXIT_FAILURE;
    }
    if (rc != 0) {
        head_free(&h);
        return rc;
    }
    for (int i = 0; i < h.nagents && !h.job.stopping; i++)
        if (start_agent(&h, &h.agents[i], self) != 0)
            smrun_job_fail(&h.job, SMRUN_EXIT_FAILURE, "cannot start the agent for host %s: %s",
                           h.agents[i].host->name, strerror(errno));
    if (h.job.in.dst < 0)
        h.job.in.src = -1;   /* rank 0's host does not read our stdin */
    double now = smap_now();
    h.connect_by = now + HEAD_CONNECT_S;
    if (opt->timeout_s > 0)
        h.job.timeout_at = now + opt->timeout_s;
    rc = loop(&h);
    head_free(&h);
    return rc;
}
