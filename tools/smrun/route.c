/* The head's default listen address across hosts: the address from which
 * this machine reaches the first remote host, as the kernel's routing table
 * says.  A UDP socket connect()ed toward that host is given the source
 * address of the route, which getsockname() reads; connecting a datagram
 * socket sends nothing.  On a multi-homed node the first interface's
 * address (the former default) may be one the other hosts cannot reach.
 *
 * The host must be an address literal or a name of /etc/hosts, read here
 * directly: no name is ever looked up through the resolver (a resolver
 * without a network stalls the launch, and a test must not send traffic
 * outside its own addresses). */
#include "smrun.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

/* An address literal into ss (port 0).  0, or -1 when text is not one. */
static int numeric_addr(const char *text, struct sockaddr_storage *ss, socklen_t *len)
{
    struct addrinfo hints = { .ai_flags = AI_NUMERICHOST, .ai_socktype = SOCK_DGRAM }, *res;
    if (getaddrinfo(text, NULL, &hints, &res) != 0)
        return -1;
    int ok = res->ai_addrlen <= sizeof *ss;
    if (ok) {
        memcpy(ss, res->ai_addr, res->ai_addrlen);
        *len = res->ai_addrlen;
    }
    freeaddrinfo(res);
    return ok ? 0 : -1;
}

/* The first address /etc/hosts gives name (names compare without case). */
static int etc_hosts_addr(const char *path, const char *name, struct sockaddr_storage *ss,
                          socklen_t *len)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    char line[1024];
    int found = -1;
    while (found != 0 && fgets(line, sizeof line, f)) {
        line[strcspn(line, "#\n")] = '\0';
        char *save, *addr = strtok_r(line, " \t", &save);
        for (char *w = addr ? strtok_r(NULL, " \t", &save) : NULL; w; w = strtok_r(NULL, " \t", &save))
            if (strcasecmp(w, name) == 0) {
                found = numeric_addr(addr, ss, len);
                break;
            }
    }
    fclose(f);
    return found;
}

int smrun_route_source(const char *host, struct sockaddr_storage *src, socklen_t *srclen)
{
    struct sockaddr_storage dst;
    socklen_t dlen;
    if (numeric_addr(host, &dst, &dlen) != 0 && etc_hosts_addr("/etc/hosts", host, &dst, &dlen) != 0)
        return -1;
    /* Any port: nothing is sent.  9 (discard) keeps a port 0 from being
     * refused by a kernel that checks it. */
    if (dst.ss_family == AF_INET6)
        ((struct sockaddr_in6 *)&dst)->sin6_port = htons(9);
    else
        ((struct sockaddr_in *)&dst)->sin_port = htons(9);
    int fd = socket(dst.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    *srclen = sizeof *src;
    int rc = connect(fd, (struct sockaddr *)&dst, dlen) == 0 &&
                     getsockname(fd, (struct sockaddr *)src, srclen) == 0
                 ? 0
                 : -1;
    close(fd);
    if (rc == 0) {   /* the listener takes a port of its own */
        if (src->ss_family == AF_INET6)
            ((struct sockaddr_in6 *)src)->sin6_port = 0;
        else
            ((struct sockaddr_in *)src)->sin_port = 0;
    }
    return rc;
}
