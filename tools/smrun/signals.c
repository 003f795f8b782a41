/* Signals reach the poll loop through a self-pipe: the handlers only record
 * what arrived and write one byte.  The handlers are installed without
 * SA_RESTART, so a write to a stuck stdout returns EINTR and can give up
 * once the user asked smrun to stop. */
#include "smrun.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static int wake_pipe[2] = { -1, -1 };
static volatile sig_atomic_t last_term_sig;
static volatile sig_atomic_t term_count;
static volatile sig_atomic_t term_taken;

static const int term_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void on_signal(int sig)
{
    int saved = errno;
    if (sig != SIGCHLD) {
        last_term_sig = sig;
        term_count++;
    }
    ssize_t w = write(wake_pipe[1], "", 1);   /* full pipe: a wake-up is pending anyway */
    (void)w;
    errno = saved;
}

int smrun_signals_install(void)
{
    if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return -1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigfillset(&sa.sa_mask);
    sa.sa_flags = SA_NOCLDSTOP;
    if (sigaction(SIGCHLD, &sa, NULL) != 0)
        return -1;
    sa.sa_flags = 0;
    /* Installed even when inherited as ignored (a background job of a
     * non-interactive shell ignores SIGINT): the job must still stop. */
    for (size_t i = 0; i < SMAP_ARRAY_SIZE(term_signals); i++)
        if (sigaction(term_signals[i], &sa, NULL) != 0)
            return -1;
    signal(SIGPIPE, SIG_IGN);   /* EPIPE is handled where it happens */
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, SIGCHLD);
    for (size_t i = 0; i < SMAP_ARRAY_SIZE(term_signals); i++)
        sigaddset(&unblock, term_signals[i]);
    sigprocmask(SIG_UNBLOCK, &unblock, NULL);
    return wake_pipe[0];
}

int smrun_signals_take(int *nterm)
{
    char buf[64];
    while (read(wake_pipe[0], buf, sizeof buf) > 0)
        ;
    int count = term_count;
    *nterm = count;
    if (count == term_taken)
        return 0;
    term_taken = count;
    return last_term_sig;
}

int smrun_signals_terminating(void)
{
    return term_count > 0;
}

void smrun_signals_reset_in_child(void)
{
    signal(SIGCHLD, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    for (size_t i = 0; i < SMAP_ARRAY_SIZE(term_signals); i++)
        signal(term_signals[i], SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}
