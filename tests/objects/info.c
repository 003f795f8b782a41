/* Info objects: set/get/dup/delete, the order of MPI_Info_get_nthkey,
 * length limits, MPI_INFO_ENV / MPI_Info_create_env, communicator hints.
 * Run as `info alpha "beta gamma"`. */
#include <string.h>

#include "smap_test.h"

static int class_of(int code)
{
    int cls = -1;
    CHECK_RC(MPI_Error_class(code, &cls));
    return cls;
}

static void expect_keys(MPI_Info info, int n, const char *const keys[])
{
    int nkeys;
    CHECK_RC(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == n, "%d keys, expected %d", nkeys, n);
    for (int i = 0; i < n; i++) {
        char key[MPI_MAX_INFO_KEY];
        CHECK_RC(MPI_Info_get_nthkey(info, i, key));
        CHECK(strcmp(key, keys[i]) == 0, "key %d is '%s', expected '%s'", i, key, keys[i]);
    }
}

static void expect_value(MPI_Info info, const char *key, const char *value)
{
    char buf[MPI_MAX_INFO_VAL];
    int flag = -1, len = (int)sizeof buf;
    CHECK_RC(MPI_Info_get_string(info, key, &len, buf, &flag));
    if (!value) {
        CHECK(flag == 0 && len == (int)sizeof buf, "'%s' should be absent (flag %d)", key, flag);
        return;
    }
    CHECK(flag == 1 && strcmp(buf, value) == 0 && len == (int)strlen(value) + 1,
          "'%s' = '%s' (len %d), expected '%s'", key, buf, len, value);
}

static void check_basic(void)
{
    MPI_Info info, dup;
    CHECK_RC(MPI_Info_create(&info));
    expect_keys(info, 0, NULL);
    CHECK_RC(MPI_Info_set(info, "zeta", "1"));
    CHECK_RC(MPI_Info_set(info, "alpha", "two"));
    CHECK_RC(MPI_Info_set(info, "mid", "three 3"));
    expect_keys(info, 3, (const char *[]){ "zeta", "alpha", "mid" });
    CHECK_RC(MPI_Info_set(info, "alpha", "replaced"));   /* keeps its place */
    expect_keys(info, 3, (const char *[]){ "zeta", "alpha", "mid" });
    expect_value(info, "alpha", "replaced");
    expect_value(info, "nope", NULL);

    /* get_string: truncation, and *buflen = full length + 1 */
    char small[4];
    int len = (int)sizeof small, flag;
    CHECK_RC(MPI_Info_get_string(info, "alpha", &len, small, &flag));
    CHECK(flag && strcmp(small, "rep") == 0 && len == 9, "truncated get_string '%s' len %d", small, len);
    len = 0;
    CHECK_RC(MPI_Info_get_string(info, "mid", &len, NULL, &flag));
    CHECK(flag && len == 8, "length query gave %d", len);

    /* legacy MPI_Info_get: at most valuelen characters + NUL */
    char buf[16];
    memset(buf, 'x', sizeof buf);
    CHECK_RC(MPI_Info_get(info, "mid", 5, buf, &flag));
    CHECK(flag && strcmp(buf, "three") == 0, "Info_get gave '%s'", buf);
    CHECK_RC(MPI_Info_get(info, "absent", 5, buf, &flag));
    CHECK(!flag, "Info_get found an absent key");
    int vlen;
    CHECK_RC(MPI_Info_get_valuelen(info, "mid", &vlen, &flag));
    CHECK(flag && vlen == 7, "valuelen %d", vlen);
    CHECK_RC(MPI_Info_get_valuelen(info, "absent", &vlen, &flag));
    CHECK(!flag, "valuelen found an absent key");

    /* dup is a deep, independent copy */
    CHECK_RC(MPI_Info_dup(info, &dup));
    CHECK_RC(MPI_Info_set(dup, "extra", "e"));
    CHECK_RC(MPI_Info_set(info, "zeta", "changed"));
    expect_keys(dup, 4, (const char *[]){ "zeta", "alpha", "mid", "extra" });
    expect_value(dup, "zeta", "1");
    expect_value(info, "extra", NULL);

    /* delete shifts later keys down; a missing key is MPI_ERR_INFO_NOKEY */
    CHECK_RC(MPI_Info_delete(info, "zeta"));
    expect_keys(info, 2, (const char *[]){ "alpha", "mid" });
    int rc = MPI_Info_delete(info, "zeta");
    CHECK(rc != MPI_SUCCESS && class_of(rc) == MPI_ERR_INFO_NOKEY, "second delete gave %d", rc);
    rc = MPI_Info_get_nthkey(info, 2, buf);
    CHECK(class_of(rc) == MPI_ERR_ARG, "nthkey past the end gave %d", rc);

    CHECK_RC(MPI_Info_free(&dup));
    CHECK(dup == MPI_INFO_NULL, "free did not set MPI_INFO_NULL");
    CHECK_RC(MPI_Info_free(&info));
}

static void check_limits(void)
{
    MPI_Info info;
    CHECK_RC(MPI_Info_create(&info));
    static char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
    memset(key, 'k', MPI_MAX_INFO_KEY - 1);
    memset(val, 'v', MPI_MAX_INFO_VAL - 1);
    CHECK_RC(MPI_Info_set(info, key, val));   /* the longest allowed */
    char got[MPI_MAX_INFO_KEY];
    CHECK_RC(MPI_Info_get_nthkey(info, 0, got));
    CHECK(strcmp(got, key) == 0, "long key came back different");
    expect_value(info, key, val);
    key[MPI_MAX_INFO_KEY - 1] = 'k';
    int rc = MPI_Info_set(info, key, "v");
    CHECK(class_of(rc) == MPI_ERR_INFO_KEY, "key of MPI_MAX_INFO_KEY chars gave %d", rc);
    rc = MPI_Info_set(info, "", "v");
    CHECK(class_of(rc) == MPI_ERR_INFO_KEY, "empty key gave %d", rc);
    val[MPI_MAX_INFO_VAL - 1] = 'v';
    rc = MPI_Info_set(info, "k", val);
    CHECK(class_of(rc) == MPI_ERR_INFO_VALUE, "value of MPI_MAX_INFO_VAL chars gave %d", rc);
    rc = MPI_Info_set(info, "k", "");
    CHECK(class_of(rc) == MPI_ERR_INFO_VALUE, "empty value gave %d", rc);
    int n;
    CHECK_RC(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 1, "failed sets changed the info (%d keys)", n);
    CHECK_RC(MPI_Info_free(&info));
}

static void check_env(int argc, char **argv)
{
    int size;
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    char buf[MPI_MAX_INFO_VAL], want[32];
    int flag, len = (int)sizeof buf;
    CHECK_RC(MPI_Info_get_string(MPI_INFO_ENV, "command", &len, buf, &flag));
    CHECK(flag && strstr(buf, "info"), "MPI_INFO_ENV command '%s'", flag ? buf : "(none)");
    expect_value(MPI_INFO_ENV, "argv", "alpha beta gamma");
    snprintf(want, sizeof want, "%d", size);
    expect_value(MPI_INFO_ENV, "maxprocs", want);
    expect_value(MPI_INFO_ENV, "thread_level", "MPI_THREAD_SINGLE");
    const char *keys[] = { "host", "arch", "wdir" };
    for (int i = 0; i < 3; i++) {
        len = (int)sizeof buf;
        CHECK_RC(MPI_Info_get_string(MPI_INFO_ENV, keys[i], &len, buf, &flag));
        CHECK(flag && len > 1, "MPI_INFO_ENV lacks %s", keys[i]);
    }
    int rc = MPI_Info_set(MPI_INFO_ENV, "k", "v");
    CHECK(class_of(rc) == MPI_ERR_INFO, "setting MPI_INFO_ENV gave %d", rc);
    MPI_Info env = MPI_INFO_ENV;
    rc = MPI_Info_free(&env);
    CHECK(class_of(rc) == MPI_ERR_INFO && env == MPI_INFO_ENV, "freeing MPI_INFO_ENV gave %d", rc);
    MPI_Info dup;
    CHECK_RC(MPI_Info_dup(MPI_INFO_ENV, &dup));
    CHECK_RC(MPI_Info_set(dup, "k", "v"));   /* a dup is an ordinary object */
    CHECK_RC(MPI_Info_free(&dup));

    MPI_Info mine;
    CHECK_RC(MPI_Info_create_env(argc, argv, &mine));
    expect_value(mine, "command", argv[0]);
    expect_value(mine, "argv", "alpha beta gamma");
    CHECK_RC(MPI_Info_free(&mine));
    char *one[] = { "prog", NULL };
    CHECK_RC(MPI_Info_create_env(1, one, &mine));
    expect_value(mine, "command", "prog");
    expect_value(mine, "argv", NULL);
    CHECK_RC(MPI_Info_free(&mine));
}

static void check_comm_hints(void)
{
    MPI_Info info, used;
    CHECK_RC(MPI_Comm_get_info(MPI_COMM_WORLD, &used));
    expect_keys(used, 0, NULL);
    CHECK_RC(MPI_Info_free(&used));
    CHECK_RC(MPI_Info_create(&info));
    CHECK_RC(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    CHECK_RC(MPI_Info_set(info, "unknown_hint", "whatever"));
    CHECK_RC(MPI_Info_set(info, "mpi_assert_exact_length", "maybe"));   /* not a boolean */
    CHECK_RC(MPI_Comm_set_info(MPI_COMM_WORLD, info));
    CHECK_RC(MPI_Info_free(&info));
    CHECK_RC(MPI_Comm_get_info(MPI_COMM_WORLD, &used));
    expect_keys(used, 1, (const char *[]){ "mpi_assert_no_any_tag" });
    expect_value(used, "mpi_assert_no_any_tag", "true");
    CHECK_RC(MPI_Info_free(&used));
    CHECK_RC(MPI_Comm_get_info(MPI_COMM_SELF, &used));
    expect_keys(used, 0, NULL);
    CHECK_RC(MPI_Info_free(&used));
    CHECK_RC(MPI_Comm_set_info(MPI_COMM_SELF, MPI_INFO_NULL));
}

int main(int argc, char **argv)
{
    /* Info objects work before MPI_Init (MPI-4). */
    MPI_Info early;
    CHECK_RC(MPI_Info_create(&early));
    CHECK_RC(MPI_Info_set(early, "k", "v"));
    CHECK_RC(MPI_Info_free(&early));
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK(argc == 3, "run me as: info alpha \"beta gamma\"");
    check_basic();
    check_limits();
    check_env(argc, argv);
    check_comm_hints();
    CHECK_RC(MPI_Finalize());
    return 0;
}
