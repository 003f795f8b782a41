/* MPI_Comm_spawn and MPI_Comm_spawn_multiple from Fortran: their argument
 * lists are arrays of blank-padded strings ending at the first all-blank
 * one (MPI 5.0 §11.3.2); MPI_ARGV_NULL / MPI_ARGVS_NULL are sentinels. */
#include <string.h>

#include "binding/fortran/fortran.h"

/* A NULL-terminated argv of the strings at f (each len long, stride apart
 * in units of len), up to the first blank one; NULL when out of memory. */
static char **argv_in(const char *f, size_t len, size_t stride)
{
    size_t n = 0;
    for (;; n++) {
        const char *s = f + n * stride * len;
        size_t k = len;
        while (k > 0 && s[k - 1] == ' ')
            k--;
        if (k == 0)
            break;
    }
    char **v = calloc(n + 1, sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!(v[i] = smap_f_str_in(f + i * stride * len, len))) {
            for (size_t j = 0; j < i; j++)
                free(v[j]);
            free(v);
            return NULL;
        }
    return v;
}

static void argv_free(char **v)
{
    if (!v)
        return;
    for (char **p = v; *p; p++)
        free(*p);
    free(v);
}

void pmpi_comm_spawn_(char *command, char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
                      MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm,
                      MPI_Fint *array_of_errcodes, MPI_Fint *ierror_opt, size_t command_len,
                      size_t argv_len)
{
    SMAP_F_IERROR;
    static const char F[] = "MPI_Comm_spawn";
    char *cmd = smap_f_str_in(command, command_len);
    char **v = argv == mpi_fortran_argv_null_ ? NULL : argv_in(argv, argv_len, 1);
    if (!cmd || (argv != mpi_fortran_argv_null_ && !v)) {
        *ierror = smap_f_nomem(F);
    } else {
        MPI_Comm ic;
        *ierror = PMPI_Comm_spawn(cmd, v ? v : MPI_ARGV_NULL, *maxprocs, PMPI_Info_f2c(*info),
                                  *root, PMPI_Comm_f2c(*comm), &ic,
                                  SMAP_F_ERRCODES(array_of_errcodes));
        if (*ierror == MPI_SUCCESS)
            *intercomm = PMPI_Comm_c2f(ic);
    }
    free(cmd);
    argv_free(v);
}
SMAP_F_ALIASES(comm_spawn, COMM_SPAWN, void,
               (char *, char *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                MPI_Fint *, MPI_Fint *, size_t, size_t))

/* array_of_argv(count, *): argument j of command i at (i, j), column-major. */
void pmpi_comm_spawn_multiple_(MPI_Fint *count, char *array_of_commands, char *array_of_argv,
                               MPI_Fint *array_of_maxprocs, MPI_Fint *array_of_info,
                               MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm,
                               MPI_Fint *array_of_errcodes, MPI_Fint *ierror_opt,
                               size_t commands_len, size_t argv_len)
{
    SMAP_F_IERROR;
    static const char F[] = "MPI_Comm_spawn_multiple";
    int n = *count > 0 ? *count : 0;
    char **cmds = calloc((size_t)n + 1, sizeof *cmds);
    char ***argvs = calloc((size_t)n + 1, sizeof *argvs);
    MPI_Info *infos = calloc((size_t)n + 1, sizeof *infos);
    int bad = !cmds || !argvs || !infos;
    int none = array_of_argv == mpi_fortran_argvs_null_;
    for (int i = 0; i < n && !bad; i++) {
        bad = !(cmds[i] = smap_f_str_in(array_of_commands + (size_t)i * commands_len,
                                        commands_len));
        if (!none && !bad)
            bad = !(argvs[i] = argv_in(array_of_argv + (size_t)i * argv_len, argv_len,
                                       (size_t)n));
        infos[i] = PMPI_Info_f2c(array_of_info[i]);
    }
    if (bad) {
        *ierror = smap_f_nomem(F);
    } else {
        MPI_Comm ic;
        *ierror = PMPI_Comm_spawn_multiple(*count, cmds, none ? MPI_ARGVS_NULL : argvs,
                                           array_of_maxprocs, infos, *root,
                                           PMPI_Comm_f2c(*comm), &ic,
                                           SMAP_F_ERRCODES(array_of_errcodes));
        if (*ierror == MPI_SUCCESS)
            *intercomm = PMPI_Comm_c2f(ic);
    }
    for (int i = 0; i < n; i++) {
        if (cmds)
            free(cmds[i]);
        if (argvs)
            argv_free(argvs[i]);
    }
    free(cmds);
    free(argvs);
    free(infos);
}
SMAP_F_ALIASES(comm_spawn_multiple, COMM_SPAWN_MULTIPLE, void,
               (MPI_Fint *, char *, char *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                MPI_Fint *, MPI_Fint *, MPI_Fint *, size_t, size_t))
