#include "mpi/comm.h"

#include <stdio.h>
#include <stdlib.h>

#include "mpi/attr.h"
#include "mpi/errhandler.h"
#include "mpi/group.h"
#include "mpi/handles.h"
#include "mpi/info.h"

struct MPI_ABI_Comm smap_comm_world = {
    .magic = SMAP_COMM_MAGIC, .rank = 0, .size = 1, .ctx = 0, .errhandler = MPI_ERRORS_ARE_FATAL,
    .name = "MPI_COMM_WORLD", .handle = MPI_COMM_WORLD, .group = &smap_group_world, .slot = 0,
};
struct MPI_ABI_Comm smap_comm_self = {
    .magic = SMAP_COMM_MAGIC, .rank = 0, .size = 1, .ctx = 1, .errhandler = MPI_ERRORS_ARE_FATAL,
    .name = "MPI_COMM_SELF", .handle = MPI_COMM_SELF, .group = &smap_group_self, .slot = 1,
};

void smap_comm_init(int rank, int size)
{
    smap_comm_world.rank = rank;
    smap_comm_world.size = size;
    smap_comm_self.rank = 0;
    smap_comm_self.size = 1;
    smap_group_init(rank, size);
    smap_comm_world.group = &smap_group_world;
    smap_comm_self.group = &smap_group_self;
}

/* MPI-5.0 section 11.2.4: MPI_Finalize first deletes MPI_COMM_SELF's
 * attributes, in the reverse order of their setting, while everything still
 * works (a delete callback may communicate). */
void smap_comm_finalize_begin(void)
{
    (void)smap_attr_delete_all(&smap_comm_self);
}

void smap_comm_finalize(void)
{
    (void)smap_attr_delete_all(&smap_comm_world);
    smap_info_free(smap_comm_world.hints);
    smap_info_free(smap_comm_self.hints);
    smap_comm_world.hints = smap_comm_self.hints = NULL;
    smap_errhandler_release(smap_comm_world.errhandler);
    smap_errhandler_release(smap_comm_self.errhandler);
    smap_comm_world.errhandler = smap_comm_self.errhandler = MPI_ERRORS_ARE_FATAL;
}

/* Context ids in use by this rank's live communicators: WORLD's and SELF's
 * for good.  Creation and free are collective, hence in the same order on
 * every member; concurrent creation from several threads is not supported. */
static uint32_t ctx_used[SMAP_CTX_WORDS] = { 3u };

void smap_comm_ctx_free_mask(uint32_t *mask)
{
    for (int i = 0; i < SMAP_CTX_WORDS; i++)
        mask[i] = ~ctx_used[i];
}

int smap_comm_ctx_pick(const uint32_t *mask)
{
    for (int i = 0; i < SMAP_CTX_WORDS; i++)
        if (mask[i])
            return i * 32 + __builtin_ctz(mask[i]);
    return -1;
}

struct MPI_ABI_Comm *smap_comm_new(const struct MPI_ABI_Comm *parent, struct MPI_ABI_Group *g,
                                   int ctx, int slot)
{
    struct MPI_ABI_Comm *c = calloc(1, sizeof *c);
    if (!c) {
        smap_group_release(g);
        return NULL;
    }
    c->magic = SMAP_COMM_MAGIC;
    c->rank = g->my_rank;
    c->size = g->size;
    c->ctx = ctx;
    c->slot = slot;
    c->group = g;
    c->handle = c;
    c->errhandler = parent->errhandler;
    smap_errhandler_retain(c->errhandler);
    ctx_used[ctx / 32] |= 1u << (ctx % 32);
    return c;
}

void smap_comm_destroy(struct MPI_ABI_Comm *c)
{
    smap_handle_forget(c);
    ctx_used[c->ctx / 32] &= ~(1u << (c->ctx % 32));
    smap_group_release(c->group);
    smap_errhandler_release(c->errhandler);
    smap_info_free(c->hints);
    c->magic = 0;   /* a stale handle no longer passes smap_comm_get */
    free(c);
}
