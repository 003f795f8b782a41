/* MPI_Comm_spawn(_multiple) and the spawned job's side (DESIGN D17).
 *
 * The parents' root opens a port and asks the launcher to start the
 * children (PMI-1 spawn, as MPICH does: the port travels as the
 * children's preput key PARENT_ROOT_PORT_NAME); the launcher (smrun:
 * a nested smrun for the children, tools/smrun/README.md) answers once
 * they are started; then the parents accept on the port and the
 * children, in their MPI_Init, connect to it: the parent
 * intercommunicator is the bridge between the two jobs (bridge.c). */
#include "spawn/internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "boot/boot.h"
#include "boot/pmi.h"
#include "comm/comm_create.h"
#include "mpi/comm.h"
#include "mpi/errors.h"
#include "mpi/info.h"

#define PARENT_KEY "PARENT_ROOT_PORT_NAME"

static MPI_Comm parent = MPI_COMM_NULL;

/* The info keys passed to the launcher (MPI 5.0 11.3.4's reserved ones;
 * arch is accepted and ignored by smrun). */
static const char *const KEYS[] = { "host", "hostfile", "wdir", "path", "arch", "soft" };
#define NKEYS ((int)(sizeof KEYS / sizeof KEYS[0]))

struct cmd_info {
    const char *k[NKEYS], *v[NKEYS];
    char *hostfile;   /* a relative hostfile made absolute, freed after the spawn */
};

/* A relative hostfile names a file in the spawning rank's working
 * directory, where the program that wrote the name runs; the launcher
 * reads it elsewhere (an agent's, the head's directory). */
static const char *absolute_hostfile(struct cmd_info *ci, const char *v)
{
    char cwd[PATH_MAX];
    if (v[0] == '/' || !getcwd(cwd, sizeof cwd))
        return v;
    size_t n = strlen(cwd) + strlen(v) + 2;
    if (!(ci->hostfile = malloc(n)))
        return v;
    snprintf(ci->hostfile, n, "%s/%s", cwd, v);
    return ci->hostfile;
}

/* At the root: the launcher's answer, MPI_SUCCESS or an error class with
 * the reason in why. */
static int ask_launcher(int count, char *const *cmds, char **const *argvs, const int *maxprocs,
                        const MPI_Info *infos, const char *port, char *why, size_t len)
{
    struct smap_spawn_cmd *sc = calloc((size_t)count, sizeof *sc);
    struct cmd_info *ci = calloc((size_t)count, sizeof *ci);
    if (!sc || !ci) {
        free(sc), free(ci);
        snprintf(why, len, "out of memory");
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < count; i++) {
        sc[i] = (struct smap_spawn_cmd){ .cmd = cmds[i], .argv = argvs ? argvs[i] : NULL,
                                         .nprocs = maxprocs[i], .info_keys = ci[i].k,
                                         .info_vals = ci[i].v };
        const struct MPI_ABI_Info *in =
            infos && infos[i] != MPI_INFO_NULL ? smap_info_get(infos[i]) : NULL;
        for (int k = 0; in && k < NKEYS; k++) {
            const char *v = smap_info_lookup(in, KEYS[k]);
            if (v && !strcmp(KEYS[k], "hostfile"))
                v = absolute_hostfile(&ci[i], v);
            if (v) {
                ci[i].k[sc[i].ninfo] = KEYS[k];
                ci[i].v[sc[i].ninfo++] = v;
            }
        }
    }
    const char *pk[1] = { PARENT_KEY }, *pv[1] = { port };
    int rc = smap_pmi_spawn(sc, count, pk, pv, 1, why, len) == 0 ? MPI_SUCCESS : MPI_ERR_SPAWN;
    for (int i = 0; i < count; i++)
        free(ci[i].hostfile);
    free(sc), free(ci);
    return rc;
}

int smap_spawn_multiple(int count, char *const *cmds, char **const *argvs, const int *maxprocs,
                        const MPI_Info *infos, int root, struct MPI_ABI_Comm *c,
                        MPI_Comm *intercomm, int *errcodes, const char *func)
{
    struct {
        int rc;
        char why[200];
    } v = { MPI_SUCCESS, "" };
    char port[MPI_MAX_PORT_NAME] = "";
    if (c->rank == root) {
        v.rc = smap_port_open(port, func);
        if (v.rc == MPI_SUCCESS) {
            v.rc = ask_launcher(count, cmds, argvs, maxprocs, infos, port, v.why, sizeof v.why);
            if (v.rc != MPI_SUCCESS)
                smap_port_close(port, func);
        } else {
            snprintf(v.why, sizeof v.why, "no port to accept the children on");
        }
    }
    int rc = smap_comm_lbcast(c, root, &v, sizeof v);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(c->handle, rc, func, "telling the group about the spawn failed");
    /* the children are started all or none: one code for each */
    int total = 0;
    if (c->rank == root)
        for (int i = 0; i < count; i++)
            total += maxprocs[i];
    (void)smap_comm_lbcast(c, root, &total, sizeof total);
    if (errcodes)
        for (int i = 0; i < total; i++)
            errcodes[i] = v.rc;
    if (v.rc != MPI_SUCCESS) {
        *intercomm = MPI_COMM_NULL;
        return smap_err_raise(c->handle, v.rc, func, "%s", v.why);
    }
    rc = smap_spawn_accept(port, root, c, intercomm, func);
    if (c->rank == root)
        smap_port_close(port, func);
    return rc;
}

int smap_spawn_init(void)
{
    static const char F[] = "MPI_Init";
    const char *s = getenv("PMI_SPAWNED");
    if (!s || strcmp(s, "1") != 0 || smap_job.singleton)
        return MPI_SUCCESS;
    char port[MPI_MAX_PORT_NAME];
    if (smap_boot_get(PARENT_KEY, port, sizeof port) != 0) {
        smap_log(SMAP_LOG_WARN, "PMI_SPAWNED=1 but the launcher holds no %s: no parent",
                 PARENT_KEY);
        return MPI_SUCCESS;
    }
    return smap_spawn_connect(port, 0, &smap_comm_world, &parent, F);
}

MPI_Comm smap_spawn_parent(void)
{
    return parent;
}

void smap_spawn_forget_parent(MPI_Comm c)
{
    if (c == parent)
        parent = MPI_COMM_NULL;
}
