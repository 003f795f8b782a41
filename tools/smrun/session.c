/* The job's session directory, <base>/smartmap-<uid>-<smrun pid>-<random>/, where
 * ranks may put named shared files.  smrun removes it (and any sibling named
 * smartmap-<uid>-<pid>-* or .*) however the job ends.  A launcher killed with
 * SIGKILL cannot clean up, so every smrun first sweeps the entries of
 * launchers of the same uid that no longer exist. */
#include "smrun.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"

#define SESSION_MAX_DEPTH 64

static void remove_tree(int parent, const char *name, int depth);

static void remove_children(int dirfd, int depth)
{
    /* Unlinking while iterating may make readdir skip entries on some file
     * systems; a few passes settle it. */
    for (int pass = 0; pass < 3; pass++) {
        int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            return;
        DIR *d = fdopendir(fd);
        if (!d) {
            close(fd);
            return;
        }
        int found = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            found = 1;
            remove_tree(dirfd, e->d_name, depth + 1);
        }
        closedir(d);
        if (!found)
            return;
    }
}

/* rm -rf of parent/name, never following symbolic links. */
static void remove_tree(int parent, const char *name, int depth)
{
    if (unlinkat(parent, name, 0) == 0 || errno == ENOENT)
        return;
    if (depth > SESSION_MAX_DEPTH)
        return;
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == EACCES) {
        /* A rank may have left a directory without permissions. */
        fchmodat(parent, name, 0700, 0);
        fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0)
        return;
    remove_children(fd, depth);
    close(fd);
    if (unlinkat(parent, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
        smap_debug("cannot remove %s: %s", name, strerror(errno));
}

/* "smartmap-<uid>-" followed by the pid and nothing, '-' or '.'.
 * Returns the pid, or 0 if the name is not a session entry of this uid. */
static pid_t session_pid(const char *name, const char *uid_prefix)
{
    size_t plen = strlen(uid_prefix);
    if (strncmp(name, uid_prefix, plen) != 0)
        return 0;
    const char *p = name + plen;
    char *end;
    errno = 0;
    long pid = strtol(p, &end, 10);
    if (errno || end == p || pid <= 0 || (*end && *end != '-' && *end != '.'))
        return 0;
    return (pid_t)pid;
}

static int launcher_gone(pid_t pid)
{
    return kill(pid, 0) != 0 && errno == ESRCH;
}

/* Removes base's entries of this uid whose launcher is dead (or, for
 * pid == only_pid, all of that launcher's entries). */
static void sweep(const char *base, pid_t only_pid)
{
    char uid_prefix[64];
    snprintf(uid_prefix, sizeof uid_prefix, "smartmap-%u-", (unsigned)getuid());
    int dirfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0)
        return;
    DIR *d = fdopendir(dirfd);
    if (!d) {
        close(dirfd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        pid_t pid = session_pid(e->d_name, uid_prefix);
        if (pid == 0)
            continue;
        if (only_pid ? pid != only_pid : !launcher_gone(pid))
            continue;
        struct stat st;
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != getuid())
            continue;
        smap_debug("removing %s/%s", base, e->d_name);
        remove_tree(dirfd, e->d_name, 0);
    }
    closedir(d);
}

/* Candidate bases in order of preference, without duplicates. */
static int session_bases(const char *bases[3])
{
    int n = 0;
    bases[n++] = "/dev/shm";
    const char *tmp = getenv("TMPDIR");
    if (tmp && tmp[0] == '/' && strcmp(tmp, "/dev/shm") != 0 && strcmp(tmp, "/tmp") != 0)
        bases[n++] = tmp;
    bases[n++] = "/tmp";
    return n;
}

void smrun_random_hex(char *out, size_t nbytes)
{
    unsigned char b[32] = { 0 };
    if (nbytes > sizeof b)
        nbytes = sizeof b;
    if (getrandom(b, nbytes, 0) != (ssize_t)nbytes) {
        /* No entropy source: still unique per process and instant. */
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        uint64_t x = (uint64_t)t.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid() << 32 ^
                     (uint64_t)t.tv_sec;
        for (size_t i = 0; i < nbytes; i++, x = x * 6364136223846793005ull + 1442695040888963407ull)
            b[i] ^= (unsigned char)(x >> 56);
    }
    for (size_t i = 0; i < nbytes; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* The directory's name ends in a random part, and a name taken by someone
 * else is skipped with a new one: a predictable "smartmap-<uid>-<pid>"
 * let any local user make every job of others fail by taking it first
 * (DESIGN D18).  The pid stays in the name for the stale sweep. */
int smrun_session_create(struct smrun_session *s)
{
    const char *bases[3];
    int nb = session_bases(bases);
    pid_t me = getpid();
    for (int i = 0; i < nb; i++)
        sweep(bases[i], 0);
    int err = 0;
    for (int i = 0; i < nb; i++) {
        snprintf(s->base, sizeof s->base, "%s", bases[i]);
        /* An entry with our pid is from an earlier process that had it. */
        sweep(s->base, me);
        for (int tries = 0; tries < 8; tries++) {
            char rnd[17];
            smrun_random_hex(rnd, 8);
            snprintf(s->prefix, sizeof s->prefix, "smartmap-%u-%d-%s", (unsigned)getuid(), (int)me,
                     rnd);
            snprintf(s->path, sizeof s->path, "%s/%s", s->base, s->prefix);
            if (mkdir(s->path, 0700) == 0)
                return 0;
            err = errno;
            smap_debug("cannot create %s: %s", s->path, strerror(err));
            if (err != EEXIST)
                break;
        }
    }
    smrun_msg("cannot create a session directory in /dev/shm, $TMPDIR or /tmp: %s", strerror(err));
    s->path[0] = '\0';
    return -1;
}

void smrun_session_remove(struct smrun_session *s)
{
    if (!s->path[0])
        return;
    sweep(s->base, getpid());
    s->path[0] = '\0';
}
