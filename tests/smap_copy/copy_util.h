/* Helpers for the copy-engine tests: a "board" global through which each
 * rank publishes the addresses of its buffers, and what this build and
 * SMAP_EXPOSE say should be exposed.
 *
 * The programs are linked without PIE (tests/smap_copy/CMakeLists.txt), so
 * the board has the same address in every rank even with ASLR on: a rank
 * reads a peer's board at its own &board.  (With PIE and ASLR, globals
 * differ per process and addresses must be exchanged by messages.) */
#ifndef SMAP_COPY_UTIL_H
#define SMAP_COPY_UTIL_H

#define _GNU_SOURCE
#include <errno.h>
#include <smartmap.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

#if defined(__SANITIZE_ADDRESS__)
#define COPY_ASAN 1
#else
#define COPY_ASAN 0
#endif

#define BOARD_MAGIC 0x5ca1ab1e5eedULL
#define BOARD_SLOTS 8

struct board {
    unsigned long long magic;
    int local_rank;
    void *addr[BOARD_SLOTS];
};
static struct board board;

/* Publishes this rank's board (call before a node barrier). */
static inline void board_publish(void)
{
    board.local_rank = smap_local_rank();
    board.magic = BOARD_MAGIC;
}

/* Reads peer's board: directly when its globals are exposed, else with
 * smap_get (CMA). */
static inline void board_read(int peer, struct board *out)
{
    const void *v = smap_remote(peer, &board, sizeof board);
    if (v)
        memcpy(out, v, sizeof *out);
    else
        CHECK(smap_get(peer, out, &board, sizeof *out) == 0,
              "cannot read local rank %d's board (errno %d)", peer, errno);
    CHECK(out->magic == BOARD_MAGIC && out->local_rank == peer,
          "local rank %d's board is wrong (magic %llx, rank %d): is the test built without PIE?",
          peer, out->magic, out->local_rank);
}

/* The exposure mask SMAP_EXPOSE asks for, as bits 1 heap, 2 data, 4 stack. */
static inline unsigned expose_wanted(void)
{
    const char *e = getenv("SMAP_EXPOSE");
    if (!e || strcmp(e, "all") == 0)
        return 7;
    unsigned m = 0;
    if (strstr(e, "heap")) m |= 1;
    if (strstr(e, "data")) m |= 2;
    if (strstr(e, "stack")) m |= 4;
    return m;
}

#endif
