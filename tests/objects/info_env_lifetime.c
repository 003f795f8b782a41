/* MPI_INFO_ENV and MPI_Info_create_env have the same keys before MPI_Init,
 * while MPI is initialized and after MPI_Finalize (issue 15: thread_level
 * existed only in between). */
#include <string.h>

#include "smap_test.h"

#define MAXK 32
struct keys { int n; char k[MAXK][MPI_MAX_INFO_KEY]; };

static void keys_of(MPI_Info info, struct keys *out)
{
    CHECK_RC(MPI_Info_get_nkeys(info, &out->n));
    CHECK(out->n <= MAXK, "%d keys", out->n);
    for (int i = 0; i < out->n; i++)
        CHECK_RC(MPI_Info_get_nthkey(info, i, out->k[i]));
}

static int has(const struct keys *a, const char *k)
{
    for (int i = 0; i < a->n; i++)
        if (!strcmp(a->k[i], k))
            return 1;
    return 0;
}

static void same(const struct keys *a, const struct keys *b, const char *what)
{
    CHECK(a->n == b->n, "%s: %d keys vs %d", what, a->n, b->n);
    for (int i = 0; i < a->n; i++)
        CHECK(has(b, a->k[i]), "%s: key %s missing", what, a->k[i]);
}

static void snapshot(int argc, char **argv, struct keys *env, struct keys *made)
{
    MPI_Info e;
    keys_of(MPI_INFO_ENV, env);
    CHECK_RC(MPI_Info_create_env(argc, argv, &e));
    keys_of(e, made);
    CHECK_RC(MPI_Info_free(&e));
    CHECK(has(env, "thread_level") && has(made, "thread_level"), "no thread_level");
}

int main(int argc, char **argv)
{
    static struct keys env[3], made[3];
    snapshot(argc, argv, &env[0], &made[0]);
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    snapshot(argc, argv, &env[1], &made[1]);
    char level[MPI_MAX_INFO_VAL];
    int flag;
    MPI_Info e;
    CHECK_RC(MPI_Info_create_env(argc, argv, &e));
    CHECK_RC(MPI_Info_get_string(e, "thread_level", &(int){sizeof level}, level, &flag));
    CHECK(flag && !strcmp(level, provided == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                                                                   : "MPI_THREAD_MULTIPLE"),
          "thread_level %s", level);
    CHECK_RC(MPI_Info_free(&e));
    MPI_Finalize();
    snapshot(argc, argv, &env[2], &made[2]);
    same(&env[0], &env[1], "MPI_INFO_ENV before/during");
    same(&env[1], &env[2], "MPI_INFO_ENV during/after");
    same(&made[0], &made[1], "MPI_Info_create_env before/during");
    same(&made[1], &made[2], "MPI_Info_create_env during/after");
    printf("info_env_lifetime: ok (%d keys)\n", env[1].n);
    return 0;
}
