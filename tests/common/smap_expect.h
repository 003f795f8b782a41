/* Error-class assertions for the tests that call entry points with bad
 * arguments under MPI_ERRORS_RETURN: EXPECT(cls, call) checks that call
 * failed with an error of class cls (and aborts the job, like CHECK, when
 * it did not).  Every EXPECT is counted in smap_expect_cases so that a test
 * can report how many cases it ran. */
#ifndef SMAP_EXPECT_H
#define SMAP_EXPECT_H

#include "smap_test.h"

static int smap_expect_cases;

/* The class of an error code; -1 when MPI_Error_class refuses the code
 * (so that a bogus code fails the comparison instead of aborting here). */
static inline int class_of(int code)
{
    int cls = -1;
    if (MPI_Error_class(code, &cls) != MPI_SUCCESS)
        return -1;
    return cls;
}

#define EXPECT(cls, call)                                                          \
    do {                                                                           \
        int rc_ = (call);                                                          \
        smap_expect_cases++;                                                       \
        CHECK(rc_ != MPI_SUCCESS && class_of(rc_) == (cls),                        \
              "%s gave %d (class %d), expected class %s", #call, rc_, class_of(rc_), #cls); \
    } while (0)

#endif
