/* The name server shared by jobs (`smrun --name-server [ADDR]`, like
 * hydra's hydra_nameserver and Open MPI's ompi-server): a TCP service of
 * publish_name / unpublish_name / lookup_name in the PMI-1 line format,
 * one request and one reply per connection.  It prints its address
 * ("ADDR:PORT") on its first line of stdout and serves until SIGINT or
 * SIGTERM.  A job finds it through `-nameserver ADDR:PORT` or
 * SMRUN_NAMESERVER (options.c exports the option as the variable, so
 * that spawned jobs inherit it); its smrun then forwards the ranks' name
 * requests there instead of answering them from the job's own table
 * (dynamic.c). */
#include "smrun.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static volatile sig_atomic_t stop_now;

static void on_signal(int sig)
{
    (void)sig;
    stop_now = 1;
}

/* One line (without its newline) from fd within ms milliseconds. */
static int read_line(int fd, char *buf, size_t cap, int ms)
{
    size_t n = 0;
    while (n + 1 < cap) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (poll(&p, 1, ms) <= 0)
            return -1;
        ssize_t k = read(fd, buf + n, 1);
        if (k <= 0)
            return -1;
        if (buf[n] == '\n') {
            buf[n] = '\0';
            return 0;
        }
        n++;
    }
    return -1;
}

static void serve(struct smrun_job *names, int fd)
{
    char line[SMAP_PMI_MAXLINE + 1], out[SMAP_PMI_MAXLINE];
    struct smap_pmi_msg m;
    const char *why;
    if (read_line(fd, line, sizeof line, 2000) != 0 ||
        smap_pmi_parse(line, strlen(line), &m, &why) != 0 || !smap_pmi_get(&m, "service"))
        return;
    const char *cmd = smap_pmi_get(&m, "cmd");
    if (strcmp(cmd, "publish_name") && strcmp(cmd, "unpublish_name") && strcmp(cmd, "lookup_name"))
        return;
    smrun_names_answer(names, cmd, smap_pmi_get(&m, "service"), smap_pmi_get(&m, "port"), out,
                       sizeof out);
    (void)smap_pmi_writef(fd, "%s\n", out);
}

int smrun_nameserver_main(int argc, char **argv)
{
    struct sockaddr_in sa = { .sin_family = AF_INET };
    socklen_t sl = sizeof sa;
    if (argc > 2 && inet_pton(AF_INET, argv[2], &sa.sin_addr) != 1) {
        smrun_msg("--name-server %s: not an IPv4 address", argv[2]);
        return SMRUN_EXIT_USAGE;
    }
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l < 0 || bind(l, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(l, 64) != 0 ||
        getsockname(l, (struct sockaddr *)&sa, &sl) != 0) {
        smrun_msg("name server: cannot listen: %s", strerror(errno));
        return SMRUN_EXIT_FAILURE;
    }
    /* the address jobs reach: the given one, else the first non-loopback
     * IPv4 address that is up, else loopback */
    struct in_addr shown = sa.sin_addr;
    if (shown.s_addr == htonl(INADDR_ANY)) {
        struct ifaddrs *ifs = NULL;
        shown.s_addr = htonl(INADDR_LOOPBACK);
        if (getifaddrs(&ifs) == 0) {
            for (struct ifaddrs *i = ifs; i; i = i->ifa_next)
                if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP) &&
                    !(i->ifa_flags & IFF_LOOPBACK)) {
                    shown = ((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr;
                    break;
                }
            freeifaddrs(ifs);
        }
    }
    char a[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &shown, a, sizeof a);
    printf("%s:%u\n", a, (unsigned)ntohs(sa.sin_port));
    fflush(stdout);
    struct sigaction act = { .sa_handler = on_signal };
    sigaction(SIGINT, &act, NULL);
    sigaction(SIGTERM, &act, NULL);
    signal(SIGPIPE, SIG_IGN);
    struct smrun_job names;
    memset(&names, 0, sizeof names);
    while (!stop_now) {
        struct pollfd p = { .fd = l, .events = POLLIN };
        if (poll(&p, 1, 500) <= 0)
            continue;
        int c = accept(l, NULL, NULL);
        if (c < 0)
            continue;
        serve(&names, c);
        close(c);
    }
    close(l);
    return 0;
}

int smrun_nameserver_ask(const char *where, const char *request, char *out, size_t len)
{
    char host[64];
    unsigned port;
    struct sockaddr_in sa = { .sin_family = AF_INET };
    if (sscanf(where, "%63[0-9.]:%u", host, &port) != 2 || port == 0 || port > 65535 ||
        inet_pton(AF_INET, host, &sa.sin_addr) != 1)
        return -1;
    sa.sin_port = htons((uint16_t)port);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int rc = -1;
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0 &&
        smap_pmi_writef(fd, "%s\n", request) == 0 && read_line(fd, out, len, 5000) == 0)
        rc = 0;
    if (fd >= 0)
        close(fd);
    return rc;
}
