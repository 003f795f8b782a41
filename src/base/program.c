/* Finding a program to start: see program.h. */
#include "base/program.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int smap_program_error(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return errno;
    if (S_ISDIR(st.st_mode))
        return EISDIR;
    if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0)
        return EACCES;
    return 0;
}

/* Searches `dirs`; *seen notes a match that execve would refuse, which
 * only matters when nothing executable is found (execvp's rule: EACCES). */
static int in_dirs(const char *dirs, const char *name, char *out, size_t len, int *seen)
{
    for (const char *p = dirs;;) {
        const char *end = p + strcspn(p, ":");
        int n = (int)(end - p);
        if ((size_t)snprintf(out, len, "%.*s/%s", n ? n : 1, n ? p : ".", name) < len) {
            int err = smap_program_error(out);
            if (err == 0)
                return 0;
            if (err == EACCES || err == EISDIR)
                *seen = EACCES;
        }
        if (!*end)
            return -1;
        p = end + 1;
    }
}

int smap_find_program(const char *name, const char *first, char *out, size_t len)
{
    if (strchr(name, '/')) {
        if ((size_t)snprintf(out, len, "%s", name) >= len)
            return ENAMETOOLONG;
        return smap_program_error(out);
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    int seen = 0;
    if ((first && *first && in_dirs(first, name, out, len, &seen) == 0) ||
        in_dirs(path, name, out, len, &seen) == 0)
        return 0;
    return seen ? seen : ENOENT;
}
