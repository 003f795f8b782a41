/* A plain (non-MPI) rank for the launcher tests.  It runs the steps given on
 * its command line in order; a step prefixed "@R:" runs only on rank R
 * (PMI_RANK).  In texts, {rank} is replaced by the rank and {sess} by
 * $SMAP_SESSION_DIR.
 *
 *   exit:N          exit with N
 *   segv            die of SIGSEGV (default action, even under ASan)
 *   selfkill:SIG    kill(getpid(), SIG)
 *   sleep:SEC       sleep (fractions allowed)
 *   ignoreterm      ignore SIGTERM (the launcher must escalate to SIGKILL)
 *   ready:DIR       write our pid to DIR/ready.<rank> (atomically)
 *   waitfile:PATH   wait until PATH exists (at most 30 s, then exit 99)
 *   print:TEXT      print TEXT and a newline on stdout
 *   eprint:TEXT     same on stderr
 *   partial:TEXT    print TEXT without newline on stdout and flush
 *   lines:N         N numbered lines on stdout and N on stderr, interleaved,
 *                   through small stdio buffers so pipe reads cut lines
 *   env:VAR         print "VAR=value" or "VAR unset"
 *   stdin           read stdin to EOF, print "rank R stdin bytes=B sum=S"
 *   affinity        print "rank R cpus=c1,c2,..."
 *   sessfile        create {sess}/rank.<rank>; fail if the dir is missing
 *   grandchild:DIR  fork a child that writes DIR/gc.<rank> (its pid) and sleeps
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int my_rank;

static void subst(const char *in, char *out, size_t len)
{
    const char *sess = getenv("SMAP_SESSION_DIR");
    size_t o = 0;
    while (*in && o + 1 < len) {
        if (strncmp(in, "{rank}", 6) == 0) {
            o += (size_t)snprintf(out + o, len - o, "%d", my_rank);
            in += 6;
        } else if (strncmp(in, "{sess}", 6) == 0) {
            o += (size_t)snprintf(out + o, len - o, "%s", sess ? sess : "");
            in += 6;
        } else {
            out[o++] = *in++;
        }
        if (o >= len)
            o = len - 1;
    }
    out[o] = '\0';
}

static void sleep_s(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void write_file(const char *path, const char *text)
{
    char tmp[8300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "rankprog: cannot write %s: %s\n", path, strerror(errno));
        exit(98);
    }
}

static void step_ready(const char *dir)
{
    char path[8192], pid[32];
    snprintf(path, sizeof path, "%s/ready.%d", dir, my_rank);
    snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    write_file(path, pid);
}

static void step_waitfile(const char *path)
{
    for (int i = 0; i < 3000; i++) {
        if (access(path, F_OK) == 0)
            return;
        sleep_s(0.01);
    }
    fprintf(stderr, "rankprog: %s never appeared\n", path);
    exit(99);
}

static void step_lines(int n)
{
    /* Small buffers: every flush ends in the middle of a line. */
    static char obuf[777], ebuf[555];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    setvbuf(stderr, ebuf, _IOFBF, sizeof ebuf);
    for (int i = 0; i < n; i++) {
        printf("out rank=%d line=%d xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx end\n", my_rank, i);
        fprintf(stderr, "err rank=%d line=%d yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy end\n", my_rank, i);
    }
    fflush(stdout);
    fflush(stderr);
    setvbuf(stdout, NULL, _IOLBF, 0);
}

static void step_stdin(void)
{
    unsigned long long bytes = 0, sum = 0;
    char buf[65536];
    ssize_t n;
    while ((n = read(STDIN_FILENO, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
        for (ssize_t i = 0; i < n; i++) {
            bytes++;
            sum = sum * 31 + (unsigned char)buf[i];
        }
    printf("rank %d stdin bytes=%llu sum=%llu\n", my_rank, bytes, sum);
    fflush(stdout);
}

static void step_affinity(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        perror("sched_getaffinity");
        exit(97);
    }
    printf("rank %d cpus=", my_rank);
    const char *sep = "";
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set)) {
            printf("%s%d", sep, c);
            sep = ",";
        }
    printf("\n");
    fflush(stdout);
}

static void step_sessfile(void)
{
    const char *sess = getenv("SMAP_SESSION_DIR");
    struct stat st;
    if (!sess || stat(sess, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "rankprog: SMAP_SESSION_DIR '%s' is not a directory\n", sess ? sess : "(unset)");
        exit(96);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/rank.%d", sess, my_rank);
    write_file(path, "x\n");
}

static void step_grandchild(const char *dir)
{
    pid_t pid = fork();
    if (pid < 0)
        exit(95);
    if (pid == 0) {
        char path[8192], text[32];
        snprintf(path, sizeof path, "%s/gc.%d", dir, my_rank);
        snprintf(text, sizeof text, "%d\n", (int)getpid());
        write_file(path, text);
        sleep_s(30);
        _exit(0);
    }
}

static void run_step(const char *step)
{
    char arg[4096];
    const char *colon = strchr(step, ':');
    size_t nlen = colon ? (size_t)(colon - step) : strlen(step);
    subst(colon ? colon + 1 : "", arg, sizeof arg);
#define IS(name) (nlen == strlen(name) && strncmp(step, name, nlen) == 0)
    if (IS("exit")) {
        fflush(NULL);
        exit(atoi(arg));
    } else if (IS("segv")) {
        fflush(NULL);
        signal(SIGSEGV, SIG_DFL);   /* ASan would turn it into exit(1) */
        raise(SIGSEGV);
    } else if (IS("selfkill")) {
        fflush(NULL);
        kill(getpid(), atoi(arg));
    } else if (IS("sleep")) {
        sleep_s(atof(arg));
    } else if (IS("ignoreterm")) {
        signal(SIGTERM, SIG_IGN);
    } else if (IS("ready")) {
        step_ready(arg);
    } else if (IS("waitfile")) {
        step_waitfile(arg);
    } else if (IS("print")) {
        printf("%s\n", arg);
        fflush(stdout);
    } else if (IS("eprint")) {
        fprintf(stderr, "%s\n", arg);
    } else if (IS("partial")) {
        printf("%s", arg);
        fflush(stdout);
    } else if (IS("lines")) {
        step_lines(atoi(arg));
    } else if (IS("env")) {
        const char *v = getenv(arg);
        if (v)
            printf("%s=%s\n", arg, v);
        else
            printf("%s unset\n", arg);
        fflush(stdout);
    } else if (IS("stdin")) {
        step_stdin();
    } else if (IS("affinity")) {
        step_affinity();
    } else if (IS("sessfile")) {
        step_sessfile();
    } else if (IS("grandchild")) {
        step_grandchild(arg);
    } else {
        fprintf(stderr, "rankprog: unknown step '%s'\n", step);
        exit(90);
    }
#undef IS
}

int main(int argc, char **argv)
{
    const char *r = getenv("PMI_RANK");
    my_rank = r ? atoi(r) : 0;
    for (int i = 1; i < argc; i++) {
        const char *step = argv[i];
        if (step[0] == '@') {
            char *end;
            long only = strtol(step + 1, &end, 10);
            if (*end != ':') {
                fprintf(stderr, "rankprog: bad step '%s'\n", step);
                return 90;
            }
            if (only != my_rank)
                continue;
            step = end + 1;
        }
        run_step(step);
    }
    fflush(NULL);
    return 0;
}
