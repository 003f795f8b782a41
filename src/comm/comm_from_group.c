/* Communicators from groups, without a parent communicator (MPI 4.0
 * section 7.4.2 / 7.6.2): MPI_Comm_create_from_group and
 * MPI_Intercomm_create_from_groups, the constructors of the Sessions model.
 *
 * Agreement: every rank's runtime has MPI_COMM_WORLD's object underneath
 * (sessions or not), and every member of a group is a member of it.  So
 * the members agree on a context id exactly as MPI_Comm_create_group does
 * (smap_comm_agree_p2p: offers gathered at the group's rank 0, the choice sent
 * back) with WORLD as the parent, over WORLD's internal context (ctx +
 * SMAP_CTX_MAX, which no user message uses) and with a negative tag
 * derived from the string tag — user tags are never negative, so these
 * messages never meet a user's MPI_Comm_create_group or
 * MPI_Intercomm_create on WORLD.  Two concurrent creations whose string
 * tags hash alike and whose groups overlap could cross (the standard asks
 * for distinct tags among concurrent creations; a 31-bit hash makes a
 * clash of distinct tags improbable, not impossible).
 * MPI_Intercomm_create_from_groups builds a temporary communicator of the
 * local group that way, then runs MPI_Intercomm_create's agreement with the
 * leaders linked over WORLD's internal context (a second tag).
 *
 * The entry points (binding/gen/comm.c) pass their arguments as given:
 * every check is here, errors raised on the error handler given (the new
 * communicator's), or on MPI_COMM_SELF's when that is no handler. */
#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "comm/comm_create.h"
#include "mpi/errhandler.h"
#include "mpi/errors.h"
#include "mpi/group.h"
#include "mpi/info.h"
#include "mpi/session.h"

/* A negative tag below the ones the library uses itself (-1 .. -4), from
 * the string tag and a salt (FNV-1a). */
static int tag_of(const char *stringtag, uint32_t salt)
{
    uint32_t h = 2166136261u ^ salt;
    for (const unsigned char *p = (const unsigned char *)stringtag; *p; p++)
        h = (h ^ *p) * 16777619u;
    return -16 - (int)(h & 0x3fffffff);
}

/* The checks both constructors make on a group: NULL, or why it is bad. */
static const char *group_problem(const struct MPI_ABI_Group *g)
{
    if (!g)
        return "the group is not a valid group";
    if (g->size > 0 && g->my_rank == MPI_UNDEFINED)
        return "the calling process is not a member of the group";
    return NULL;
}

static const char *stringtag_problem(const char *stringtag)
{
    if (!stringtag)
        return "stringtag is NULL";
    if (strnlen(stringtag, MPI_MAX_STRINGTAG_LEN) >= MPI_MAX_STRINGTAG_LEN)
        return "stringtag is MPI_MAX_STRINGTAG_LEN characters or longer";
    return NULL;
}

static void set_errhandler(struct MPI_ABI_Comm *c, MPI_Errhandler eh)
{
    smap_errhandler_retain(eh);
    smap_errhandler_release(c->errhandler);
    c->errhandler = eh;
}

/* A communicator of g (a valid group holding this process) agreed over
 * WORLD's internal context with tag; its error handler eh. */
static int from_group(struct MPI_ABI_Group *g, int tag, MPI_Errhandler eh, MPI_Comm *newcomm,
                      const char *F)
{
    struct smap_comm_ids ids;
    smap_comm_agree_p2p(&smap_comm_world, g, tag, &ids);
    if (ids.ctx < 0)
        return smap_err_raise_on(eh, newcomm, "a new communicator", SMAP_ERR_NO_CTX, F,
                                 SMAP_NO_CTX_WHY, SMAP_NO_CTX_ARGS);
    smap_group_retain(g);
    int rc = smap_comm_make(&smap_comm_world, g, &ids, newcomm, F);
    if (rc == MPI_SUCCESS) {
        struct MPI_ABI_Comm *c = *newcomm;
        set_errhandler(c, eh);
        /* the group's session (WORLD, the parent here, has none): its
         * buffer serves this communicator's buffered sends (mpi/bsend.c) */
        c->session = g->session;
        smap_session_retain(c->session);
    }
    return rc;
}

#define FAIL(cls, ...) smap_err_raise_on(errhandler, newcomm, "a new communicator", cls, F, __VA_ARGS__)

/* The hints of a new communicator: raised on its own handler. */
static int set_info(MPI_Comm c, MPI_Info info, const char *F)
{
    int rc = smap_comm_set_info(c, info);
    return rc == MPI_SUCCESS ? rc : smap_err_raise(c, rc, F, "%s", smap_why());
}

int smap_comm_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                         MPI_Errhandler errhandler, MPI_Comm *newcomm, const char *F)
{
    if (errhandler == MPI_ERRHANDLER_NULL || !smap_errhandler_valid(errhandler))
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, F,
                              "errhandler is not a valid error handler");
    if (!newcomm)
        return FAIL(MPI_ERR_ARG, "newcomm is NULL");
    struct MPI_ABI_Group *g = smap_group_get(group);
    const char *why = group_problem(g);
    if (why)
        return FAIL(MPI_ERR_GROUP, "%s", why);
    if ((why = stringtag_problem(stringtag)))
        return FAIL(MPI_ERR_ARG, "%s", why);
    if (info != MPI_INFO_NULL && !smap_info_get(info))
        return FAIL(MPI_ERR_INFO, "info is not a valid info object");
    if (g->size == 0) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    int rc = from_group(g, tag_of(stringtag, 0), errhandler, newcomm, F);
    if (rc == MPI_SUCCESS && info != MPI_INFO_NULL)
        rc = set_info(*newcomm, info, F);
    return rc;
}

int smap_inter_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                           int remote_leader, const char *stringtag, MPI_Info info,
                           MPI_Errhandler errhandler, MPI_Comm *newintercomm, const char *F)
{
    MPI_Comm *newcomm = newintercomm;   /* (FAIL's object) */
    if (errhandler == MPI_ERRHANDLER_NULL || !smap_errhandler_valid(errhandler))
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, F,
                              "errhandler is not a valid error handler");
    if (!newintercomm)
        return FAIL(MPI_ERR_ARG, "newintercomm is NULL");
    struct MPI_ABI_Group *lg = smap_group_get(local_group), *rg = smap_group_get(remote_group);
    const char *why = group_problem(lg);
    if (why)
        return FAIL(MPI_ERR_GROUP, "local_group: %s", why);
    if (!rg)
        return FAIL(MPI_ERR_GROUP, "remote_group is not a valid group");
    if (lg->size == 0 || rg->size == 0)
        return FAIL(MPI_ERR_GROUP, "local_group and remote_group must not be empty");
    if (local_leader < 0 || local_leader >= lg->size)
        return FAIL(MPI_ERR_RANK, "local_leader %d is not a rank of local_group (size %d)",
                    local_leader, lg->size);
    if (remote_leader < 0 || remote_leader >= rg->size)
        return FAIL(MPI_ERR_RANK, "remote_leader %d is not a rank of remote_group (size %d)",
                    remote_leader, rg->size);
    for (int i = 0; i < rg->size; i++)
        if (smap_group_find(lg, smap_group_world_rank(rg, i)) >= 0)
            return FAIL(MPI_ERR_GROUP, "local_group and remote_group overlap");
    int remote_world = smap_group_world_rank(rg, remote_leader);
    if ((why = stringtag_problem(stringtag)))
        return FAIL(MPI_ERR_ARG, "%s", why);
    if (info != MPI_INFO_NULL && !smap_info_get(info))
        return FAIL(MPI_ERR_INFO, "info is not a valid info object");
    MPI_Comm local;
    int rc = from_group(lg, tag_of(stringtag, 1), errhandler, &local, F);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = smap_inter_create_over_world(smap_comm_get(local), local_leader, remote_world,
                                      tag_of(stringtag, 2), newintercomm, F);
    int frc = smap_comm_free(&local, smap_comm_get(local), F);
    if (rc != MPI_SUCCESS)
        return rc;
    set_errhandler(*newintercomm, errhandler);
    if (frc == MPI_SUCCESS && info != MPI_INFO_NULL)
        frc = set_info(*newintercomm, info, F);
    return frc;
}
