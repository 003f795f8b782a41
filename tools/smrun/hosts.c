/* Where the ranks of a job across hosts go.  Hosts come from --host lists
 * ("h1:2,h2" — a host without a count has one slot) and host files (one
 * host per line as "host", "host:N" or "host slots=N", '#' comments), in
 * that order; a host named twice gets the sum of its slots.  Ranks fill the
 * hosts in order, each host up to its slots (or -ppn) before the next, and
 * start again at the first host while ranks remain (MPICH's hydra does the
 * same; Open MPI would refuse without --oversubscribe).  Without -n the job
 * has as many ranks as slots.  Without a host option, the batch allocation
 * (alloc.c) is the host list. */
#include "smrun.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define SMRUN_MAX_SLOTS 65536

int smrun_hosts_requested(const struct smrun_options *o)
{
    return o->nhost_specs > 0 || o->hostfile != NULL;
}

int smrun_across_hosts(const struct smrun_options *o)
{
    for (int a = 1; a < o->napps; a++)
        if (o->apps[a].hosts)
            return 1;
    return smrun_hosts_requested(o) || o->nalloc > 0;
}

static int parse_count(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > SMRUN_MAX_SLOTS)
        return -1;
    *out = (int)v;
    return 0;
}

/* Host names travel as words to the launcher and into SMAP_NODE_NAME: no
 * blanks, no shell metacharacters, not empty. */
static int valid_host(const char *h)
{
    if (!*h || strlen(h) > 255 || *h == '-')
        return 0;
    for (const char *c = h; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              strchr("._-@[]", *c)))
            return 0;
    return 1;
}

static int same_addr(const struct sockaddr *a, const struct sockaddr *b)
{
    if (!a || !b || a->sa_family != b->sa_family)
        return 0;
    if (a->sa_family == AF_INET)
        return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
               ((const struct sockaddr_in *)b)->sin_addr.s_addr;
    if (a->sa_family == AF_INET6)
        return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                      &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr)) == 0;
    return 0;
}

/* An address literal of this machine: loopback or one of its interfaces'. */
static int local_address(const char *name)
{
    struct addrinfo hints = { .ai_flags = AI_NUMERICHOST, .ai_socktype = SOCK_STREAM }, *res;
    if (getaddrinfo(name, NULL, &hints, &res) != 0)
        return 0;
    int local = 0;
    if (res->ai_family == AF_INET)
        local = (ntohl(((struct sockaddr_in *)res->ai_addr)->sin_addr.s_addr) >> 24) == 127;
    else if (res->ai_family == AF_INET6)
        local = IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)res->ai_addr)->sin6_addr);
    struct ifaddrs *ifs;
    if (!local && getifaddrs(&ifs) == 0) {
        for (struct ifaddrs *i = ifs; i && !local; i = i->ifa_next)
            local = same_addr(i->ifa_addr, res->ai_addr);
        freeifaddrs(ifs);
    }
    freeaddrinfo(res);
    return local;
}

/* This machine by one of its names ("localhost", its host name, short or
 * long) or addresses: started without the remote shell, as hydra and
 * Open MPI do (ssh to oneself usually fails: no key for it).  Names are
 * not looked up: a resolver without a network would stall the launch. */
int smrun_is_local_host(const char *name)
{
    char self[256];
    if (strcmp(name, "localhost") == 0 || strcmp(name, "localhost.localdomain") == 0)
        return 1;
    if (gethostname(self, sizeof self) == 0) {
        self[sizeof self - 1] = '\0';
        size_t n = strcspn(self, ".");
        if (strcmp(name, self) == 0 ||
            (strlen(name) == n && strncmp(name, self, n) == 0))
            return 1;
    }
    return local_address(name);
}

/* The host's index in p, added (without slots) if new; -1 after a message. */
static int find_host(struct smrun_placement *p, const char *name, const char *where, int *rc)
{
    if (!valid_host(name)) {
        smrun_msg("%s: '%s' is not a valid host name (see smrun --help)", where, name);
        *rc = SMRUN_EXIT_USAGE;
        return -1;
    }
    for (int i = 0; i < p->nhosts; i++)
        if (strcmp(p->hosts[i].name, name) == 0)
            return i;
    struct smrun_host *h = realloc(p->hosts, (size_t)(p->nhosts + 1) * sizeof *h);
    *rc = SMRUN_EXIT_FAILURE;
    if (!h)
        return -1;
    p->hosts = h;
    h = &p->hosts[p->nhosts];
    memset(h, 0, sizeof *h);
    h->name = strdup(name);
    h->local = smrun_is_local_host(name);
    if (!h->name)
        return -1;
    *rc = 0;
    return p->nhosts++;
}

static int add_host(struct smrun_placement *p, const char *name, int slots, const char *where)
{
    int rc = 0, i = find_host(p, name, where, &rc);
    if (i >= 0)
        p->hosts[i].slots += slots;
    return rc;
}

/* "host" or "host:N": its name cut at the colon, and N (1 without). */
static int split_colon(char *item, int *slots, const char *where)
{
    *slots = 1;
    char *colon = strrchr(item, ':');
    if (!colon)
        return 0;
    *colon = '\0';
    if (parse_count(colon + 1, slots) == 0)
        return 0;
    smrun_msg("%s: '%s' is not a valid number of slots for host '%s' (see smrun --help)", where,
              colon + 1, item);
    return SMRUN_EXIT_USAGE;
}

static int add_host_colon(struct smrun_placement *p, char *item, const char *where)
{
    int slots, rc = split_colon(item, &slots, where);
    return rc ? rc : add_host(p, item, slots, where);
}

static int add_host_list(struct smrun_placement *p, const char *spec)
{
    char *copy = strdup(spec);
    if (!copy)
        return SMRUN_EXIT_FAILURE;
    int rc = 0;
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item && rc == 0; item = strtok_r(NULL, ",", &save))
        rc = add_host_colon(p, item, "--host");
    if (rc == 0 && p->nhosts == 0) {
        smrun_msg("--host: '%s' names no host (see smrun --help)", spec);
        rc = SMRUN_EXIT_USAGE;
    }
    free(copy);
    return rc;
}

/* Hosts to fill, each with its slots for this fill. */
struct fill_set {
    int *idx, *slots;
    int n;
    int at, filled;          /* the cursor: host idx[at] has filled of its slots */
};

/* An MPMD part's own -host list: its hosts join the job's (a host already
 * there is the same host), with the part's slots kept apart. */
static int part_hosts(struct smrun_placement *p, const char *spec, int ppn, struct fill_set *f)
{
    char *copy = strdup(spec);
    int rc = copy ? 0 : SMRUN_EXIT_FAILURE;
    char *save = NULL;
    for (char *item = copy ? strtok_r(copy, ",", &save) : NULL; item && rc == 0;
         item = strtok_r(NULL, ",", &save)) {
        int slots, i;
        rc = split_colon(item, &slots, "an MPMD part's -host");
        if (rc == 0 && (i = find_host(p, item, "an MPMD part's -host", &rc)) >= 0) {
            f->idx[f->n] = i;
            f->slots[f->n++] = ppn > 0 ? ppn : slots;
        }
    }
    if (rc == 0 && f->n == 0) {
        smrun_msg("an MPMD part's -host: '%s' names no host (see smrun --help)", spec);
        rc = SMRUN_EXIT_USAGE;
    }
    free(copy);
    return rc;
}

/* One host-file line, comment already cut: "host", "host:N", "host slots=N"
 * (other key=value words, such as max_slots=, are accepted and ignored). */
static int add_host_line(struct smrun_placement *p, char *line, const char *where)
{
    char *save = NULL;
    char *host = strtok_r(line, " \t\r", &save);
    if (!host)
        return 0;
    int slots = -1;
    for (char *w = strtok_r(NULL, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save)) {
        if (strncmp(w, "slots=", 6) == 0) {
            if (parse_count(w + 6, &slots) != 0) {
                smrun_msg("%s: '%s' is not a valid slot count", where, w);
                return SMRUN_EXIT_USAGE;
            }
        } else if (!strchr(w, '=')) {
            smrun_msg("%s: unexpected '%s' after host '%s'", where, w, host);
            return SMRUN_EXIT_USAGE;
        }
    }
    if (slots < 0)
        return add_host_colon(p, host, where);
    return add_host(p, host, slots, where);
}

static int add_hostfile(struct smrun_placement *p, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        smrun_msg("--hostfile %s: %s", path, strerror(errno));
        return SMRUN_EXIT_USAGE;
    }
    char line[1024], where[PATH_MAX + 32];
    int rc = 0, lineno = 0, before = p->nhosts;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "#\n")] = '\0';
        snprintf(where, sizeof where, "%s:%d", path, lineno);
        rc = add_host_line(p, line, where);
    }
    fclose(f);
    if (rc == 0 && p->nhosts == before) {
        smrun_msg("--hostfile %s: no host in the file", path);
        rc = SMRUN_EXIT_USAGE;
    }
    return rc;
}

int smrun_hostfile_list(const char *path, char *out, size_t len)
{
    struct smrun_placement p;
    memset(&p, 0, sizeof p);
    int rc = add_hostfile(&p, path);
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; rc == 0 && i < p.nhosts; i++) {
        int n = snprintf(out + at, len - at, "%s%s:%d", i ? "," : "", p.hosts[i].name,
                         p.hosts[i].slots > 0 ? p.hosts[i].slots : 1);
        if (n < 0 || (size_t)n >= len - at) {
            smrun_msg("--hostfile %s: too many hosts for one spawn", path);
            rc = SMRUN_EXIT_USAGE;
        }
        at += (size_t)n;
    }
    smrun_placement_free(&p);
    return rc;
}

/* Places count ranks, from *next on: each host of f up to its slots before
 * the next, wrapping around; f's cursor stays for the next call (MPMD parts
 * without hosts of their own continue where the previous part left). */
static void fill(struct smrun_placement *p, struct fill_set *f, int count, int *next)
{
    for (int k = 0; k < count; k++) {
        while (f->filled >= f->slots[f->at]) {
            f->at = (f->at + 1) % f->n;
            f->filled = 0;
        }
        struct smrun_host *h = &p->hosts[f->idx[f->at]];
        h->ranks[h->nranks++] = (*next)++;
        f->filled++;
    }
}

/* --map-by node: one rank per host in turn, hosts whose slots are used
 * up skipped until every host's are. */
static void fill_cyclic(struct smrun_placement *p, struct fill_set *f, int count, int *next)
{
    for (int k = 0, full = 0; k < count;) {
        int placed = 0;
        for (int j = 0; j < f->n && k < count; j++) {
            struct smrun_host *h = &p->hosts[f->idx[j]];
            if (full || h->nranks < f->slots[j])
                h->ranks[h->nranks++] = (*next)++, k++, placed = 1;
        }
        full |= !placed;
    }
}

static void fill_free(struct fill_set *f)
{
    free(f->idx);
    free(f->slots);
}

static int fill_alloc(struct fill_set *f, int n)
{
    memset(f, 0, sizeof *f);
    f->idx = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
    f->slots = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
    return f->idx && f->slots ? 0 : SMRUN_EXIT_FAILURE;
}

/* The job's hosts are p->hosts[0..nglobal-1]; MPMD parts may name more. */
static int place_ranks(struct smrun_placement *p, const struct smrun_options *o)
{
    int nglobal = p->nhosts, rc = 0;
    long total = 0;
    for (int i = 0; i < nglobal; i++) {
        if (o->ppn > 0)
            p->hosts[i].slots = o->ppn;
        total += p->hosts[i].slots;
    }
    p->nranks = o->nranks_given ? o->nranks : (int)(total > 65536 ? 65536 : total);
    int nparts = o->napps > 1 ? o->napps : 1;
    int cyclic = o->map == SMRUN_LV_NODE || o->rank_by == SMRUN_LV_NODE;
    struct fill_set global, *parts = calloc((size_t)nparts, sizeof *parts);
    if (!parts || fill_alloc(&global, nglobal) != 0) {
        free(parts);
        return SMRUN_EXIT_FAILURE;
    }
    for (int i = 0; i < nglobal; i++) {
        global.idx[global.n] = i;
        global.slots[global.n++] = p->hosts[i].slots;
    }
    for (int a = 1; a < nparts && rc == 0; a++)
        if (o->apps[a].hosts && (rc = fill_alloc(&parts[a], (int)strlen(o->apps[a].hosts) / 2 + 1)) == 0)
            rc = part_hosts(p, o->apps[a].hosts, o->ppn, &parts[a]);
    for (int i = 0; i < p->nhosts && rc == 0; i++)
        if (!(p->hosts[i].ranks = calloc((size_t)p->nranks, sizeof(int))))
            rc = SMRUN_EXIT_FAILURE;
    for (int a = 0, next = 0; a < nparts && rc == 0; a++) {
        int count = o->napps > 1 ? o->apps[a].nranks : p->nranks;
        struct fill_set *f = a > 0 && o->apps[a].hosts ? &parts[a] : &global;
        if (f->n == 0) {
            smrun_msg("MPMD part %d has no -host and the job names no host (see smrun --help)", a);
            rc = SMRUN_EXIT_USAGE;
        } else {
            (cyclic ? fill_cyclic : fill)(p, f, count, &next);
        }
    }
    for (int a = 0; a < nparts; a++)
        fill_free(&parts[a]);
    free(parts);
    fill_free(&global);
    return rc;
}

int smrun_placement_make(const struct smrun_options *o, struct smrun_placement *p)
{
    memset(p, 0, sizeof *p);
    int rc = 0;
    for (int i = 0; i < o->nhost_specs && rc == 0; i++)
        rc = add_host_list(p, o->host_specs[i]);
    if (rc == 0 && o->hostfile)
        rc = add_hostfile(p, o->hostfile);
    for (int i = 0; rc == 0 && !smrun_hosts_requested(o) && i < o->nalloc; i++)
        rc = add_host(p, o->alloc[i].name, o->alloc[i].slots, o->alloc_src);
    /* Only MPMD parts name hosts: the others run here, as with hydra. */
    if (rc == 0 && p->nhosts == 0)
        rc = add_host(p, "localhost", 1, "--host");
    if (rc == 0)
        rc = place_ranks(p, o);
    if (rc == SMRUN_EXIT_FAILURE)
        smrun_msg("out of memory");
    return rc;
}

int smrun_iface_addr(const char *ifname, struct sockaddr_storage *ss, socklen_t *len)
{
    struct ifaddrs *ifs;
    if (getifaddrs(&ifs) != 0)
        return -1;
    int found = 0;
    for (int family = AF_INET; !found && family != -1; family = family == AF_INET ? AF_INET6 : -1) {
        for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next) {
            if (!i->ifa_addr || i->ifa_addr->sa_family != family || strcmp(i->ifa_name, ifname) != 0)
                continue;
            if (family == AF_INET6 &&
                IN6_IS_ADDR_LINKLOCAL(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr))
                continue;   /* would need a scope on every host */
            *len = family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
            memset(ss, 0, sizeof *ss);
            memcpy(ss, i->ifa_addr, *len);
            found = 1;
        }
    }
    freeifaddrs(ifs);
    return found ? 0 : -1;
}

void smrun_map_print(const char *host, const int *ranks, int n)
{
    char text[1024];
    size_t len = 0;
    for (int i = 0; i < n && len + 32 < sizeof text;) {
        int j = i;
        while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
            j++;
        len += (size_t)snprintf(text + len, sizeof text - len, "%s%d", i ? "," : "", ranks[i]);
        if (j > i)
            len += (size_t)snprintf(text + len, sizeof text - len, "-%d", ranks[j]);
        i = j + 1;
    }
    smrun_msg("map: host %s: rank%s %s%s (%d)", host, n == 1 ? "" : "s", text,
              len + 32 >= sizeof text ? ",..." : "", n);
}

void smrun_placement_free(struct smrun_placement *p)
{
    for (int i = 0; i < p->nhosts; i++) {
        free(p->hosts[i].name);
        free(p->hosts[i].ranks);
    }
    free(p->hosts);
    memset(p, 0, sizeof *p);
}
