/* Per-rank output files: Open MPI's --output-filename DIR (each rank's
 * DIR/1/rank.N/stdout and DIR/1/rank.N/stderr, N zero-padded to the width of
 * the largest rank so listings sort; ":nojobid" drops the "1/" level,
 * ":nocopy" keeps the output off the terminal) and hydra's -outfile-pattern
 * and -errfile-pattern (a file name with %r the rank, %h the host as
 * placed, %p the host's index, %g the process group, always 0, %t the
 * seconds since the start, 0 since the files are made before the ranks
 * start, %% a '%'; output goes only to the files).
 *
 * The launching smrun makes every file (directories too for
 * --output-filename) before any rank or agent starts, truncated, so an
 * unwritable place is one clear error and nothing runs; then whoever
 * forwards a rank's output (smrun on one node, the agent of its host)
 * opens its files for appending: ranks that share a file (a pattern
 * without %r) and agents on a shared file system add whole lines to it. */
#include "smrun.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUT_MODE 0666   /* less the user's umask, as any new file */

int smrun_outfiles_wanted(const struct smrun_options *o)
{
    return o->output_dir || o->outfile_pattern || o->errfile_pattern;
}

/* Checks a hydra pattern's specifiers; 0 or -1 with *bad the culprit. */
int smrun_outfiles_check_pattern(const char *pattern, char *bad)
{
    for (const char *p = pattern; *p; p++) {
        if (*p != '%')
            continue;
        p++;
        if (!*p || !strchr("rhpgt%", *p)) {
            *bad = *p;
            return -1;
        }
    }
    return 0;
}

static int expand_pattern(const char *pattern, const struct smrun_outfile_where *w, int rank,
                          char *out, size_t len)
{
    size_t n = 0;
    for (const char *p = pattern; *p && n < len; p++) {
        if (*p != '%') {
            out[n++] = *p;
            continue;
        }
        p++;
        int k = *p == 'r' ? snprintf(out + n, len - n, "%d", rank)
              : *p == 'h' ? snprintf(out + n, len - n, "%s", w->host)
              : *p == 'p' ? snprintf(out + n, len - n, "%d", w->node)
              : *p == 'g' || *p == 't' ? snprintf(out + n, len - n, "0")
              : snprintf(out + n, len - n, "%%");
        n += (size_t)(k > 0 ? k : 0);
    }
    if (n >= len)
        return -1;
    out[n] = '\0';
    return 0;
}

static int digits(int v)
{
    int d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

/* The file of a rank's stdout (which 1) or stderr (2); 0, 1 when that
 * stream has no file, -1 when the name is too long. */
int smrun_outfiles_path(const struct smrun_options *o, int which, const struct smrun_outfile_where *w,
                        int rank, char *out, size_t len)
{
    const char *pattern = which == 1 ? o->outfile_pattern : o->errfile_pattern;
    if (pattern)
        return expand_pattern(pattern, w, rank, out, len);
    if (!o->output_dir)
        return 1;
    int k = snprintf(out, len, "%s%s/rank.%0*d/%s", o->output_dir, o->output_nojobid ? "" : "/1",
                     digits(w->size - 1), rank, which == 1 ? "stdout" : "stderr");
    return k < 0 || (size_t)k >= len ? -1 : 0;
}

/* mkdir -p of the directories above path. */
static int make_parents(char *path)
{
    for (char *slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        int rc = mkdir(path, 0777);
        int err = errno;
        *slash = '/';
        if (rc != 0 && err != EEXIST) {
            errno = err;
            return -1;
        }
    }
    return 0;
}

static int prepare_one(const struct smrun_options *o, int which, const struct smrun_outfile_where *w,
                       int rank)
{
    char path[PATH_MAX];
    int rc = smrun_outfiles_path(o, which, w, rank, path, sizeof path);
    if (rc > 0)
        return 0;
    const char *opt = o->output_dir ? "--output-filename" : which == 1 ? "-outfile-pattern"
                                                                        : "-errfile-pattern";
    if (rc < 0) {
        smrun_msg("%s: the file name of rank %d is too long", opt, rank);
        return SMRUN_EXIT_FAILURE;
    }
    if (o->output_dir && make_parents(path) != 0) {
        smrun_msg("%s %s: cannot create the directories of %s: %s", opt, o->output_dir, path,
                  strerror(errno));
        return SMRUN_EXIT_FAILURE;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, OUT_MODE);
    if (fd < 0) {
        smrun_msg("%s: cannot create %s (rank %d's %s): %s", opt, path, rank,
                  which == 1 ? "stdout" : "stderr", strerror(errno));
        return SMRUN_EXIT_FAILURE;
    }
    close(fd);
    return 0;
}

int smrun_outfiles_prepare(const struct smrun_options *o, const struct smrun_outfile_where *w,
                           const int *ranks, int n)
{
    for (int i = 0; i < n; i++) {
        int rc = prepare_one(o, 1, w, ranks ? ranks[i] : i);
        if (rc == 0)
            rc = prepare_one(o, 2, w, ranks ? ranks[i] : i);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int open_one(struct smrun_job *job, int which, const struct smrun_outfile_where *w,
                    struct smrun_stream *s, int rank)
{
    char path[PATH_MAX];
    const struct smrun_options *o = job->opt;
    int rc = smrun_outfiles_path(o, which, w, rank, path, sizeof path);
    if (rc > 0)
        return 0;
    s->file_fd = rc < 0 ? -1 : open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, OUT_MODE);
    if (s->file_fd < 0) {
        smrun_job_fail(job, SMRUN_EXIT_FAILURE, "cannot open %s for rank %d's %s: %s", path, rank,
                       which == 1 ? "stdout" : "stderr", rc < 0 ? "name too long" : strerror(errno));
        return -1;
    }
    /* --output-filename copies to the terminal unless :nocopy (Open MPI);
     * hydra's patterns never do (options.c refuses both kinds at once). */
    s->copy = o->output_dir ? !o->output_nocopy : 0;
    return 0;
}

int smrun_outfiles_attach(struct smrun_job *job, struct smrun_rank *r)
{
    if (!smrun_outfiles_wanted(job->opt))
        return 0;
    struct smrun_outfile_where w = { .host = job->node_name ? job->node_name : job->host_name,
                                     .node = job->node_index, .size = job->size };
    if (open_one(job, 1, &w, &r->out, r->rank) != 0 || open_one(job, 2, &w, &r->err, r->rank) != 0)
        return -1;
    return 0;
}
