/* SMAP_EXPOSE restricts what is exposed.  argv[1] is the value the test
 * runs with: "none" (no smartmap-heap/-data/-stack mapping at all) or
 * "heap" (only the heap, and thread stacks stay on glibc's stacks).  The
 * program works either way.  Under ASan the heap is never exposed. */
#include "expose_util.h"

#include <pthread.h>

static int global = 11;

static void *thread_local_in_heap(void *arg)
{
    volatile char local[256];
    local[0] = 0;
    *(int *)arg = xmap_contains("smartmap-heap", (const void *)local);
    return NULL;
}

int main(int argc, char **argv)
{
    char local[64] = "stack";
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK(argc == 2, "usage: none none|heap");
    int want_heap = strcmp(argv[1], "heap") == 0 && !EXPOSE_ASAN;
    struct xmap m;
    CHECK(!xmap_find("smartmap-data", 0, &m), "smartmap-data is mapped");
    CHECK(!xmap_find("smartmap-stack", 0, &m), "smartmap-stack is mapped");
    CHECK(xmap_find("smartmap-heap", 0, &m) == want_heap, "smartmap-heap mapped: expected %d",
          want_heap);
    CHECK(!xmap_in_any(&global) && !xmap_in_any(local), "a global or local is exposed");
    int in_heap = -1;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, thread_local_in_heap, &in_heap) == 0 &&
          pthread_join(t, NULL) == 0, "thread");
    CHECK(in_heap == 0, "a thread stack is in the heap though SMAP_EXPOSE=%s", argv[1]);
    int rank, size;
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    global += rank;
    CHECK(size == 2 && global == 11 + rank && strcmp(local, "stack") == 0, "program broken");
    CHECK_RC(MPI_Finalize());
    return 0;
}
