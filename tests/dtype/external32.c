/* MPI_Pack_external("external32"): big-endian, standard sizes (long 4 bytes,
 * long double 16), round trips, sizes, and a struct of mixed types. */
#include <stddef.h>
#include <string.h>

#include "smap_test.h"

static void expect_bytes(const unsigned char *got, const unsigned char *want, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s: byte %zu is %02x, expected %02x", what, i, got[i], want[i]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    unsigned char buf[256];
    MPI_Aint pos = 0, sz;

    int iv[2] = {0x01020304, -2};
    CHECK_RC(MPI_Pack_external("external32", iv, 2, MPI_INT, buf, sizeof buf, &pos));
    CHECK(pos == 8, "int position %ld", (long)pos);
    expect_bytes(buf, (const unsigned char[]){1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe}, 8, "ints");

    double d = 1.0;
    pos = 0;
    CHECK_RC(MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, buf, sizeof buf, &pos));
    expect_bytes(buf, (const unsigned char[]){0x3f, 0xf0, 0, 0, 0, 0, 0, 0}, 8, "double 1.0");

    long l[2] = {-3, 0x11223344};
    CHECK_RC(MPI_Pack_external_size("external32", 2, MPI_LONG, &sz));
    CHECK(sz == 8, "external32 long is 4 bytes (got %ld for 2)", (long)sz);
    pos = 0;
    CHECK_RC(MPI_Pack_external("external32", l, 2, MPI_LONG, buf, sizeof buf, &pos));
    expect_bytes(buf, (const unsigned char[]){0xff, 0xff, 0xff, 0xfd, 0x11, 0x22, 0x33, 0x44}, 8, "longs");
    long lb[2] = {0, 0};
    MPI_Aint ip = 0;
    CHECK_RC(MPI_Unpack_external("external32", buf, pos, &ip, lb, 2, MPI_LONG));
    CHECK(ip == 8 && lb[0] == -3 && lb[1] == 0x11223344, "long round trip");

    long double ld = -2.5L, ldb = 0;
    CHECK_RC(MPI_Pack_external_size("external32", 1, MPI_LONG_DOUBLE, &sz));
    CHECK(sz == 16, "external32 long double size %ld", (long)sz);
    pos = 0;
    CHECK_RC(MPI_Pack_external("external32", &ld, 1, MPI_LONG_DOUBLE, buf, sizeof buf, &pos));
    /* IEEE binary128 -2.5: sign 1, exponent 0x4000, fraction .01 */
    expect_bytes(buf, (const unsigned char[]){0xc0, 0x00, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 16, "long double");
    ip = 0;
    CHECK_RC(MPI_Unpack_external("external32", buf, pos, &ip, &ldb, 1, MPI_LONG_DOUBLE));
    CHECK(ldb == ld, "long double round trip");

    /* a struct { short; double } vector: conversion follows the type map */
    struct s { short a; double b; } in[3] = {{1, 0.5}, {-1, 2.0}, {258, -1.0}}, out[3];
    MPI_Datatype st;
    CHECK_RC(MPI_Type_create_struct(2, (int[]){1, 1},
                                    (MPI_Aint[]){offsetof(struct s, a), offsetof(struct s, b)},
                                    (MPI_Datatype[]){MPI_SHORT, MPI_DOUBLE}, &st));
    CHECK_RC(MPI_Type_commit(&st));
    CHECK_RC(MPI_Pack_external_size("external32", 3, st, &sz));
    CHECK(sz == 30, "struct external size %ld", (long)sz);
    pos = 0;
    CHECK_RC(MPI_Pack_external("external32", in, 3, st, buf, sizeof buf, &pos));
    CHECK(pos == 30, "struct position");
    expect_bytes(buf, (const unsigned char[]){0, 1, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}, 12, "struct");
    expect_bytes(buf + 20, (const unsigned char[]){1, 2, 0xbf, 0xf0}, 4, "struct third");
    memset(out, 0, sizeof out);
    ip = 0;
    CHECK_RC(MPI_Unpack_external("external32", buf, pos, &ip, out, 3, st));
    for (int i = 0; i < 3; i++)
        CHECK(out[i].a == in[i].a && out[i].b == in[i].b, "struct round trip %d", i);

    /* large-count versions and the wrong datarep */
    MPI_Count cpos = 0, csz;
    CHECK_RC(MPI_Pack_external_size_c("external32", 2, MPI_INT, &csz));
    CHECK(csz == 8, "size_c");
    CHECK_RC(MPI_Pack_external_c("external32", iv, 2, MPI_INT, buf, 256, &cpos));
    CHECK(cpos == 8 && buf[0] == 1 && buf[3] == 4, "pack_external_c");
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    pos = 0;
    int rc = MPI_Pack_external("native", iv, 2, MPI_INT, buf, sizeof buf, &pos);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_UNSUPPORTED_DATAREP, "datarep native gave class %d", cls);
    pos = 250;
    rc = MPI_Pack_external("external32", iv, 2, MPI_INT, buf, sizeof buf, &pos);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE && pos == 250, "overflowing pack gave class %d", cls);
    CHECK_RC(MPI_Type_free(&st));
    MPI_Finalize();
    return 0;
}
