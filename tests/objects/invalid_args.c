/* Every group, info, attribute and error-class entry point called with bad
 * arguments under MPI_ERRORS_RETURN (on WORLD and SELF): each must return
 * an error of the right class, and nothing may crash. */
#include <stdint.h>
#include <string.h>

#include "smap_expect.h"

#define BOGUS_GROUP ((MPI_Group)(intptr_t)12345)
#define BOGUS_INFO ((MPI_Info)(intptr_t)12345)
#define BOGUS_COMM ((MPI_Comm)(intptr_t)12345)

static int size;
static int not_an_object[64];   /* a valid address without our magic */

static void groups(void)
{
    MPI_Group g, out = MPI_GROUP_NULL, null = MPI_GROUP_NULL, bogus = BOGUS_GROUP;
    MPI_Group fake = (MPI_Group)(void *)not_an_object;
    int n, r0 = 0, r2[2] = { 0, 0 }, res;
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &g));
    EXPECT(MPI_ERR_GROUP, MPI_Group_size(MPI_GROUP_NULL, &n));
    EXPECT(MPI_ERR_GROUP, MPI_Group_size(BOGUS_GROUP, &n));
    EXPECT(MPI_ERR_GROUP, MPI_Group_size(fake, &n));
    EXPECT(MPI_ERR_ARG, MPI_Group_size(g, NULL));
    EXPECT(MPI_ERR_GROUP, MPI_Group_rank(MPI_GROUP_NULL, &n));
    EXPECT(MPI_ERR_ARG, MPI_Group_rank(g, NULL));
    EXPECT(MPI_ERR_GROUP, MPI_Group_translate_ranks(MPI_GROUP_NULL, 1, &r0, g, &n));
    EXPECT(MPI_ERR_GROUP, MPI_Group_translate_ranks(g, 1, &r0, MPI_GROUP_NULL, &n));
    EXPECT(MPI_ERR_ARG, MPI_Group_translate_ranks(g, -1, &r0, g, &n));
    EXPECT(MPI_ERR_ARG, MPI_Group_translate_ranks(g, 1, NULL, g, &n));
    EXPECT(MPI_ERR_ARG, MPI_Group_translate_ranks(g, 1, &r0, g, NULL));
    int bad = size;
    EXPECT(MPI_ERR_RANK, MPI_Group_translate_ranks(g, 1, &bad, g, &n));
    bad = -1;
    EXPECT(MPI_ERR_RANK, MPI_Group_translate_ranks(g, 1, &bad, g, &n));
    EXPECT(MPI_ERR_RANK, MPI_Group_translate_ranks(MPI_GROUP_EMPTY, 1, &r0, g, &n));
    EXPECT(MPI_ERR_GROUP, MPI_Group_compare(MPI_GROUP_NULL, g, &res));
    EXPECT(MPI_ERR_ARG, MPI_Group_compare(g, g, NULL));
    EXPECT(MPI_ERR_GROUP, MPI_Group_union(MPI_GROUP_NULL, g, &out));
    EXPECT(MPI_ERR_ARG, MPI_Group_union(g, g, NULL));
    EXPECT(MPI_ERR_GROUP, MPI_Group_intersection(g, BOGUS_GROUP, &out));
    EXPECT(MPI_ERR_GROUP, MPI_Group_difference(MPI_GROUP_NULL, g, &out));
    EXPECT(MPI_ERR_ARG, MPI_Group_difference(g, MPI_GROUP_EMPTY, NULL));
    EXPECT(MPI_ERR_ARG, MPI_Group_incl(g, -1, &r0, &out));
    EXPECT(MPI_ERR_ARG, MPI_Group_incl(g, 1, NULL, &out));
    bad = size;
    EXPECT(MPI_ERR_RANK, MPI_Group_incl(g, 1, &bad, &out));
    EXPECT(MPI_ERR_RANK, MPI_Group_incl(g, 2, r2, &out));   /* duplicate */
    EXPECT(MPI_ERR_ARG, MPI_Group_incl(g, 1, &r0, NULL));
    EXPECT(MPI_ERR_GROUP, MPI_Group_incl(MPI_GROUP_NULL, 1, &r0, &out));
    bad = -1;
    EXPECT(MPI_ERR_RANK, MPI_Group_excl(g, 1, &bad, &out));
    EXPECT(MPI_ERR_RANK, MPI_Group_excl(g, 2, r2, &out));
    EXPECT(MPI_ERR_ARG, MPI_Group_excl(g, -3, r2, &out));
    EXPECT(MPI_ERR_GROUP, MPI_Group_excl(MPI_GROUP_NULL, 1, &r0, &out));
    int zero_stride[1][3] = { { 0, 0, 0 } }, first_out[1][3] = { { size, 0, 1 } };
    int last_out[1][3] = { { 0, size, 1 } }, neg[1][3] = { { -1, 0, 1 } };
    int dup[2][3] = { { 0, 0, 1 }, { 0, 0, -1 } };
    EXPECT(MPI_ERR_ARG, MPI_Group_range_incl(g, 1, zero_stride, &out));
    EXPECT(MPI_ERR_RANK, MPI_Group_range_incl(g, 1, first_out, &out));
    EXPECT(MPI_ERR_RANK, MPI_Group_range_incl(g, 1, last_out, &out));
    EXPECT(MPI_ERR_RANK, MPI_Group_range_incl(g, 1, neg, &out));
    EXPECT(MPI_ERR_RANK, MPI_Group_range_incl(g, 2, dup, &out));
    EXPECT(MPI_ERR_ARG, MPI_Group_range_incl(g, -1, dup, &out));
    EXPECT(MPI_ERR_ARG, MPI_Group_range_incl(g, 1, NULL, &out));
    EXPECT(MPI_ERR_ARG, MPI_Group_range_incl(g, 1, dup, NULL));
    EXPECT(MPI_ERR_ARG, MPI_Group_range_excl(g, 1, zero_stride, &out));
    EXPECT(MPI_ERR_RANK, MPI_Group_range_excl(g, 2, dup, &out));
    EXPECT(MPI_ERR_RANK, MPI_Group_range_excl(g, 1, last_out, &out));
    EXPECT(MPI_ERR_GROUP, MPI_Group_range_excl(MPI_GROUP_NULL, 1, dup, &out));
    if (size >= 2) {
        int backwards[1][3] = { { 1, 0, 1 } }, forwards[1][3] = { { 0, 1, -1 } };
        EXPECT(MPI_ERR_ARG, MPI_Group_range_incl(g, 1, backwards, &out));
        EXPECT(MPI_ERR_ARG, MPI_Group_range_excl(g, 1, forwards, &out));
    }
    CHECK(out == MPI_GROUP_NULL, "a failed constructor wrote a group");
    EXPECT(MPI_ERR_ARG, MPI_Group_free(NULL));
    EXPECT(MPI_ERR_GROUP, MPI_Group_free(&null));
    EXPECT(MPI_ERR_GROUP, MPI_Group_free(&bogus));
    EXPECT(MPI_ERR_COMM, MPI_Comm_group(MPI_COMM_NULL, &out));
    EXPECT(MPI_ERR_COMM, MPI_Comm_group(BOGUS_COMM, &out));
    EXPECT(MPI_ERR_ARG, MPI_Comm_group(MPI_COMM_WORLD, NULL));
    CHECK_RC(MPI_Group_free(&g));
}

static void infos(void)
{
    MPI_Info info, out = MPI_INFO_NULL, null = MPI_INFO_NULL, env = MPI_INFO_ENV;
    MPI_Info bogus = BOGUS_INFO, fake = (MPI_Info)(void *)not_an_object;
    static char longkey[MPI_MAX_INFO_KEY + 8], longval[MPI_MAX_INFO_VAL + 8];
    memset(longkey, 'k', MPI_MAX_INFO_KEY);
    memset(longval, 'v', MPI_MAX_INFO_VAL);
    char buf[MPI_MAX_INFO_VAL];
    int flag, n, len;
    CHECK_RC(MPI_Info_create(&info));
    CHECK_RC(MPI_Info_set(info, "k", "v"));
    EXPECT(MPI_ERR_ARG, MPI_Info_create(NULL));
    EXPECT(MPI_ERR_INFO, MPI_Info_set(MPI_INFO_NULL, "k", "v"));
    EXPECT(MPI_ERR_INFO, MPI_Info_set(BOGUS_INFO, "k", "v"));
    EXPECT(MPI_ERR_INFO, MPI_Info_set(fake, "k", "v"));
    EXPECT(MPI_ERR_ARG, MPI_Info_set(info, NULL, "v"));
    EXPECT(MPI_ERR_ARG, MPI_Info_set(info, "k", NULL));
    EXPECT(MPI_ERR_INFO_KEY, MPI_Info_set(info, longkey, "v"));
    EXPECT(MPI_ERR_INFO_KEY, MPI_Info_set(info, "", "v"));
    EXPECT(MPI_ERR_INFO_VALUE, MPI_Info_set(info, "k", longval));
    EXPECT(MPI_ERR_INFO_VALUE, MPI_Info_set(info, "k", ""));
    EXPECT(MPI_ERR_INFO, MPI_Info_set(MPI_INFO_ENV, "k", "v"));
    EXPECT(MPI_ERR_INFO, MPI_Info_get(MPI_INFO_NULL, "k", 5, buf, &flag));
    EXPECT(MPI_ERR_ARG, MPI_Info_get(info, "k", -1, buf, &flag));
    EXPECT(MPI_ERR_ARG, MPI_Info_get(info, "k", 5, NULL, &flag));
    EXPECT(MPI_ERR_ARG, MPI_Info_get(info, "k", 5, buf, NULL));
    EXPECT(MPI_ERR_INFO_KEY, MPI_Info_get(info, longkey, 5, buf, &flag));
    EXPECT(MPI_ERR_INFO, MPI_Info_get_string(MPI_INFO_NULL, "k", &len, buf, &flag));
    EXPECT(MPI_ERR_ARG, MPI_Info_get_string(info, "k", NULL, buf, &flag));
    len = -1;
    EXPECT(MPI_ERR_ARG, MPI_Info_get_string(info, "k", &len, buf, &flag));
    len = 5;
    EXPECT(MPI_ERR_ARG, MPI_Info_get_string(info, "k", &len, NULL, &flag));
    EXPECT(MPI_ERR_ARG, MPI_Info_get_string(info, "k", &len, buf, NULL));
    EXPECT(MPI_ERR_INFO_KEY, MPI_Info_get_string(info, "", &len, buf, &flag));
    EXPECT(MPI_ERR_INFO, MPI_Info_get_valuelen(BOGUS_INFO, "k", &n, &flag));
    EXPECT(MPI_ERR_ARG, MPI_Info_get_valuelen(info, "k", NULL, &flag));
    EXPECT(MPI_ERR_ARG, MPI_Info_get_valuelen(info, "k", &n, NULL));
    EXPECT(MPI_ERR_INFO_KEY, MPI_Info_get_valuelen(info, "", &n, &flag));
    EXPECT(MPI_ERR_INFO, MPI_Info_get_nkeys(MPI_INFO_NULL, &n));
    EXPECT(MPI_ERR_ARG, MPI_Info_get_nkeys(info, NULL));
    EXPECT(MPI_ERR_ARG, MPI_Info_get_nthkey(info, -1, buf));
    EXPECT(MPI_ERR_ARG, MPI_Info_get_nthkey(info, 1, buf));
    EXPECT(MPI_ERR_ARG, MPI_Info_get_nthkey(info, 0, NULL));
    EXPECT(MPI_ERR_INFO, MPI_Info_get_nthkey(MPI_INFO_NULL, 0, buf));
    EXPECT(MPI_ERR_INFO_NOKEY, MPI_Info_delete(info, "absent"));
    EXPECT(MPI_ERR_INFO_KEY, MPI_Info_delete(info, longkey));
    EXPECT(MPI_ERR_ARG, MPI_Info_delete(info, NULL));
    EXPECT(MPI_ERR_INFO, MPI_Info_delete(MPI_INFO_NULL, "k"));
    EXPECT(MPI_ERR_INFO, MPI_Info_delete(MPI_INFO_ENV, "command"));
    EXPECT(MPI_ERR_INFO, MPI_Info_dup(MPI_INFO_NULL, &out));
    EXPECT(MPI_ERR_ARG, MPI_Info_dup(info, NULL));
    EXPECT(MPI_ERR_ARG, MPI_Info_free(NULL));
    EXPECT(MPI_ERR_INFO, MPI_Info_free(&null));
    EXPECT(MPI_ERR_INFO, MPI_Info_free(&bogus));
    EXPECT(MPI_ERR_INFO, MPI_Info_free(&env));
    EXPECT(MPI_ERR_ARG, MPI_Info_create_env(-1, NULL, &out));
    EXPECT(MPI_ERR_ARG, MPI_Info_create_env(0, NULL, NULL));
    EXPECT(MPI_ERR_COMM, MPI_Comm_set_info(MPI_COMM_NULL, info));
    EXPECT(MPI_ERR_INFO, MPI_Comm_set_info(MPI_COMM_WORLD, BOGUS_INFO));
    EXPECT(MPI_ERR_COMM, MPI_Comm_get_info(MPI_COMM_NULL, &out));
    EXPECT(MPI_ERR_ARG, MPI_Comm_get_info(MPI_COMM_SELF, NULL));
    CHECK(out == MPI_INFO_NULL, "a failed call wrote an info");
    /* nothing above changed the object */
    CHECK_RC(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 1, "info has %d keys", n);
    CHECK_RC(MPI_Info_free(&info));
}

static void attrs(void)
{
    int kv, tkv, wkv, freed, flag, invalid = MPI_KEYVAL_INVALID, junk = 12345, tag_ub = MPI_TAG_UB;
    void *val;
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv, NULL));
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &freed, NULL));
    int stale = freed;
    CHECK_RC(MPI_Comm_free_keyval(&freed));
    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tkv, NULL));
    CHECK_RC(MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &wkv, NULL));
    EXPECT(MPI_ERR_ARG, MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, NULL, NULL));
    EXPECT(MPI_ERR_ARG, MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, NULL, NULL));
    EXPECT(MPI_ERR_ARG, MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, NULL, NULL));
    EXPECT(MPI_ERR_ARG, MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, NULL, NULL));
    EXPECT(MPI_ERR_ARG, MPI_Comm_free_keyval(NULL));
    EXPECT(MPI_ERR_KEYVAL, MPI_Comm_free_keyval(&invalid));
    EXPECT(MPI_ERR_KEYVAL, MPI_Comm_free_keyval(&junk));
    EXPECT(MPI_ERR_KEYVAL, MPI_Comm_free_keyval(&tag_ub));
    EXPECT(MPI_ERR_KEYVAL, MPI_Comm_free_keyval(&stale));
    EXPECT(MPI_ERR_KEYVAL, MPI_Comm_free_keyval(&tkv));   /* a datatype keyval */
    EXPECT(MPI_ERR_KEYVAL, MPI_Type_free_keyval(&kv));    /* a communicator keyval */
    EXPECT(MPI_ERR_KEYVAL, MPI_Win_free_keyval(&tkv));
    EXPECT(MPI_ERR_ARG, MPI_Keyval_free(NULL));
    EXPECT(MPI_ERR_KEYVAL, MPI_Keyval_free(&invalid));
    EXPECT(MPI_ERR_COMM, MPI_Comm_set_attr(MPI_COMM_NULL, kv, &flag));
    EXPECT(MPI_ERR_COMM, MPI_Comm_set_attr(BOGUS_COMM, kv, &flag));
    EXPECT(MPI_ERR_KEYVAL, MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &flag));
    EXPECT(MPI_ERR_KEYVAL, MPI_Comm_set_attr(MPI_COMM_WORLD, stale, &flag));
    EXPECT(MPI_ERR_KEYVAL, MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &flag));
    EXPECT(MPI_ERR_KEYVAL, MPI_Comm_set_attr(MPI_COMM_SELF, tkv, &flag));
    EXPECT(MPI_ERR_KEYVAL, MPI_Comm_set_attr(MPI_COMM_SELF, -7, &flag));
    EXPECT(MPI_ERR_ARG, MPI_Comm_get_attr(MPI_COMM_WORLD, kv, NULL, &flag));
    EXPECT(MPI_ERR_ARG, MPI_Comm_get_attr(MPI_COMM_WORLD, kv, &val, NULL));
    EXPECT(MPI_ERR_COMM, MPI_Comm_get_attr(MPI_COMM_NULL, kv, &val, &flag));
    EXPECT(MPI_ERR_KEYVAL, MPI_Comm_get_attr(MPI_COMM_WORLD, 99999, &val, &flag));
    EXPECT(MPI_ERR_KEYVAL, MPI_Comm_get_attr(MPI_COMM_WORLD, wkv, &val, &flag));
    EXPECT(MPI_ERR_KEYVAL, MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID));
    EXPECT(MPI_ERR_KEYVAL, MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_APPNUM));
    EXPECT(MPI_ERR_KEYVAL, MPI_Comm_delete_attr(MPI_COMM_WORLD, stale));
    EXPECT(MPI_ERR_COMM, MPI_Comm_delete_attr(MPI_COMM_NULL, kv));
    EXPECT(MPI_ERR_COMM, MPI_Attr_put(MPI_COMM_NULL, kv, &flag));
    EXPECT(MPI_ERR_KEYVAL, MPI_Attr_put(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &flag));
    EXPECT(MPI_ERR_KEYVAL, MPI_Attr_get(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &val, &flag));
    EXPECT(MPI_ERR_ARG, MPI_Attr_get(MPI_COMM_WORLD, kv, &val, NULL));
    EXPECT(MPI_ERR_KEYVAL, MPI_Attr_delete(MPI_COMM_WORLD, MPI_KEYVAL_INVALID));
    CHECK_RC(MPI_Comm_free_keyval(&kv));
    CHECK_RC(MPI_Type_free_keyval(&tkv));
    CHECK_RC(MPI_Win_free_keyval(&wkv));
    CHECK(kv == MPI_KEYVAL_INVALID && tkv == MPI_KEYVAL_INVALID && wkv == MPI_KEYVAL_INVALID,
          "free_keyval did not reset the handles");
}

static void errclasses(void)
{
    int cls, code, len;
    char text[MPI_MAX_ERROR_STRING];
    CHECK_RC(MPI_Add_error_class(&cls));
    EXPECT(MPI_ERR_ARG, MPI_Add_error_class(NULL));
    EXPECT(MPI_ERR_ARG, MPI_Add_error_code(cls, NULL));
    EXPECT(MPI_ERR_ARG, MPI_Add_error_code(-5, &code));
    EXPECT(MPI_ERR_ARG, MPI_Add_error_code(MPI_ERR_LASTCODE, &code));
    EXPECT(MPI_ERR_ARG, MPI_Add_error_code(cls + 1000, &code));
    EXPECT(MPI_ERR_ARG, MPI_Add_error_string(MPI_ERR_TAG, "no"));
    EXPECT(MPI_ERR_ARG, MPI_Add_error_string(cls, NULL));
    EXPECT(MPI_ERR_ARG, MPI_Add_error_string(cls + 1000, "no"));
    EXPECT(MPI_ERR_ARG, MPI_Remove_error_class(MPI_ERR_OTHER));
    EXPECT(MPI_ERR_ARG, MPI_Remove_error_class(cls + 1000));
    EXPECT(MPI_ERR_ARG, MPI_Remove_error_code(MPI_ERR_ARG));
    EXPECT(MPI_ERR_ARG, MPI_Remove_error_code(cls));   /* a class, not a code */
    EXPECT(MPI_ERR_ARG, MPI_Remove_error_string(MPI_ERR_ARG));
    EXPECT(MPI_ERR_ARG, MPI_Error_class(cls + 1000, &code));
    EXPECT(MPI_ERR_ARG, MPI_Error_class(cls, NULL));
    EXPECT(MPI_ERR_ARG, MPI_Error_string(MPI_ERR_LASTCODE, text, &len));
    CHECK_RC(MPI_Remove_error_class(cls));
    EXPECT(MPI_ERR_ARG, MPI_Remove_error_class(cls));   /* twice */
    EXPECT(MPI_ERR_ARG, MPI_Add_error_code(cls, &code)); /* removed class */
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    groups();
    infos();
    attrs();
    errclasses();
    int rank;
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Finalize());
    if (rank == 0)
        printf("invalid_args: %d cases returned the expected error class\n", smap_expect_cases);
    CHECK(smap_expect_cases >= 60, "only %d cases", smap_expect_cases);
    return 0;
}
