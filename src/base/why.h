/* The reason of the calling thread's last failure, in words: a layer that
 * returns an MPI error class records why with smap_fail(), and the binding
 * puts smap_why() into the error's message ("MPI_Bcast: the root's and
 * this rank's sizes differ ...").  One slot per thread for every layer:
 * the deepest layer that knows the reason records it, and the layers above
 * it only pass the class up.  Thread-local: MPI_THREAD_MULTIPLE. */
#ifndef SMAP_BASE_WHY_H
#define SMAP_BASE_WHY_H

/* The last reason recorded on this thread, "" when none was. */
const char *smap_why(void);

/* Records why (static text, or text that outlives the next failure) and
 * returns cls, so that a failing path reads `return smap_fail(cls, "...")`. */
int smap_fail(int cls, const char *why);

/* The same with a message formatted into the thread's own buffer (256
 * bytes; longer messages are cut). */
int smap_failf(int cls, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
