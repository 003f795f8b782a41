/* A rank's last words when the job is stopped.  stdout is a pipe to the
 * launcher, so fully buffered: lines a rank printed before an abort sit in
 * its stdio buffer, and both _exit (the aborting rank) and a default
 * SIGTERM (the launcher stopping the others) would drop them.  MPICH
 * prints them; so do we. */
#include "boot/boot.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

/* Another thread may hold a stream's lock forever (a handler interrupted
 * its write): then that stream's buffer is lost, the rank still ends. */
static void flush_if_free(FILE *f)
{
    if (ftrylockfile(f) != 0)
        return;
    fflush_unlocked(f);
    funlockfile(f);
}

void smap_boot_flush_output(void)
{
    flush_if_free(stdout);
    flush_if_free(stderr);
}

/* SA_RESETHAND restored the default action; the signal, blocked while we
 * run, is delivered again on return: the rank still ends "killed by
 * SIGTERM", as the launcher and the shell expect. */
static void flush_and_die(int sig)
{
    int saved = errno;
    smap_boot_flush_output();
    raise(sig);
    errno = saved;
}

void smap_boot_flush_on_stop(void)
{
    struct sigaction old;
    if (sigaction(SIGTERM, NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
        old.sa_handler != SIG_DFL)
        return;   /* the program's own choice (a handler, or ignored) wins */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = flush_and_die;
    sa.sa_flags = SA_RESETHAND | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    (void)sigaction(SIGTERM, &sa, NULL);
}
