/* User error classes and codes removed with MPI_Remove_error_class/code are
 * recycled (issue 15: a program adding and removing them in a loop ran out
 * with "too many user-defined error classes and codes"). */
#include <string.h>

#include "smap_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int keep, keepcode;
    CHECK_RC(MPI_Add_error_class(&keep));
    CHECK_RC(MPI_Add_error_code(keep, &keepcode));
    CHECK_RC(MPI_Add_error_string(keepcode, "kept"));
    for (int i = 0; i < 350000; i++) {
        int cls, code, c2, got;
        CHECK_RC(MPI_Add_error_class(&cls));
        CHECK_RC(MPI_Add_error_code(cls, &code));
        CHECK_RC(MPI_Add_error_code(cls, &c2));
        CHECK_RC(MPI_Error_class(code, &got));
        CHECK(got == cls, "round %d: class of code %d is %d, want %d", i, code, got, cls);
        CHECK_RC(MPI_Add_error_string(c2, "fresh"));
        CHECK_RC(MPI_Remove_error_string(c2));
        CHECK_RC(MPI_Remove_error_code(code));
        CHECK_RC(MPI_Remove_error_code(c2));
        CHECK_RC(MPI_Remove_error_class(cls));
        /* a recycled value starts without a string */
        if (i == 5) {
            int a, b, len;
            char s[MPI_MAX_ERROR_STRING];
            CHECK_RC(MPI_Add_error_class(&a));
            CHECK_RC(MPI_Add_error_code(a, &b));
            CHECK_RC(MPI_Error_string(b, s, &len));
            CHECK(strcmp(s, "fresh") != 0, "recycled code kept an old string");
            CHECK_RC(MPI_Remove_error_code(b));
            CHECK_RC(MPI_Remove_error_class(a));
        }
    }
    int got, len;
    char s[MPI_MAX_ERROR_STRING];
    CHECK_RC(MPI_Error_class(keepcode, &got));
    CHECK(got == keep, "kept code lost its class");
    CHECK_RC(MPI_Error_string(keepcode, s, &len));
    CHECK(strcmp(s, "kept") == 0, "kept string: %s", s);
    int *last, flag;
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last == keepcode, "MPI_LASTUSEDCODE %d, want %d", *last, keepcode);
    printf("errclass_recycle: ok\n");
    MPI_Finalize();
    return 0;
}
