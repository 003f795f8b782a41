/* Handle conversion: c2f/f2c and toint/fromint round trips for predefined
 * handles (their ABI values) and user objects (table integers), the null
 * handle for anything invalid, the integer of a freed op no longer
 * resolving, and the status conversions. */
#include <stdint.h>
#include <string.h>

#include "smap_test.h"

static int err_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

#define ROUND(Kind, h)                                                             \
    do {                                                                           \
        MPI_Fint f_ = MPI_##Kind##_c2f(h);                                         \
        int i_ = MPI_##Kind##_toint(h);                                            \
        CHECK(f_ == i_, #Kind " c2f %d != toint %d", f_, i_);                      \
        CHECK(MPI_##Kind##_f2c(f_) == (h), #Kind " f2c round trip (%d)", f_);      \
        CHECK(MPI_##Kind##_fromint(i_) == (h), #Kind " fromint round trip (%d)", i_); \
        CHECK(MPI_##Kind##_toint(h) == i_, #Kind " second toint differs");         \
    } while (0)

#define PREDEF(Kind, h)                                                            \
    do {                                                                           \
        ROUND(Kind, h);                                                            \
        CHECK(MPI_##Kind##_toint(h) == (int)(intptr_t)(h), #Kind " not its ABI value"); \
    } while (0)

static void predefined(void)
{
    PREDEF(Comm, MPI_COMM_WORLD);
    PREDEF(Comm, MPI_COMM_SELF);
    PREDEF(Comm, MPI_COMM_NULL);
    PREDEF(Group, MPI_GROUP_EMPTY);
    PREDEF(Group, MPI_GROUP_NULL);
    PREDEF(Info, MPI_INFO_ENV);
    PREDEF(Info, MPI_INFO_NULL);
    PREDEF(Errhandler, MPI_ERRORS_RETURN);
    PREDEF(Errhandler, MPI_ERRORS_ARE_FATAL);
    PREDEF(Errhandler, MPI_ERRORS_ABORT);
    PREDEF(Errhandler, MPI_ERRHANDLER_NULL);
    PREDEF(Op, MPI_SUM);
    PREDEF(Op, MPI_MAXLOC);
    PREDEF(Op, MPI_NO_OP);
    PREDEF(Op, MPI_OP_NULL);
    PREDEF(Type, MPI_INT);
    PREDEF(Type, MPI_DOUBLE_INT);
    PREDEF(Type, MPI_COMPLEX32);
    PREDEF(Type, MPI_DATATYPE_NULL);
    PREDEF(Request, MPI_REQUEST_NULL);
    PREDEF(Message, MPI_MESSAGE_NULL);
    PREDEF(Message, MPI_MESSAGE_NO_PROC);
    PREDEF(File, MPI_FILE_NULL);
    PREDEF(Session, MPI_SESSION_NULL);
    PREDEF(Win, MPI_WIN_NULL);
}

/* Integers that name nothing of the kind give the null handle. */
static void invalid(void)
{
    CHECK(MPI_Comm_fromint(-5) == MPI_COMM_NULL, "negative");
    CHECK(MPI_Comm_fromint((int)(intptr_t)MPI_SUM) == MPI_COMM_NULL, "an op's value as comm");
    CHECK(MPI_Type_f2c((MPI_Fint)(intptr_t)MPI_COMM_WORLD) == MPI_DATATYPE_NULL, "comm as type");
    CHECK(MPI_Op_fromint(0x2f) == MPI_OP_NULL, "unused op value");
    CHECK(MPI_Op_fromint(12345678) == MPI_OP_NULL, "unregistered integer");
    CHECK(MPI_Group_fromint(0x7fffffff) == MPI_GROUP_NULL, "huge integer");
    CHECK(MPI_Errhandler_f2c(0x144) == MPI_ERRHANDLER_NULL, "unused errhandler value");
    CHECK(MPI_Request_fromint(0x181) == MPI_REQUEST_NULL, "unused request value");
    CHECK(MPI_Op_toint((MPI_Op)(intptr_t)0x7) == (int)(intptr_t)MPI_OP_NULL, "garbage op");
}

static void user_objects(void)
{
    MPI_Group g;
    MPI_Info info;
    MPI_Datatype t;
    MPI_Op op;
    MPI_Errhandler eh;
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &g));
    CHECK_RC(MPI_Info_create(&info));
    CHECK_RC(MPI_Type_contiguous(3, MPI_INT, &t));
    CHECK_RC(MPI_Op_create((MPI_User_function *)(void (*)(void))MPI_Init, 1, &op));
    CHECK_RC(MPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)(void (*)(void))MPI_Init,
                                        &eh));
    ROUND(Group, g);
    ROUND(Info, info);
    ROUND(Type, t);
    ROUND(Op, op);
    ROUND(Errhandler, eh);
    int ig = MPI_Group_toint(g), ii = MPI_Info_toint(info), it = MPI_Type_toint(t);
    int io = MPI_Op_toint(op);
    CHECK(ig >= 0x400 && ii >= 0x400 && it >= 0x400 && io >= 0x400, "user integers");
    CHECK(ig != ii && ii != it && it != io, "distinct integers");
    /* an integer is for its kind only */
    CHECK(MPI_Info_fromint(ig) == MPI_INFO_NULL, "group integer as info");
    CHECK(MPI_Type_f2c(io) == MPI_DATATYPE_NULL, "op integer as type");
    /* a freed op's integer no longer resolves; a new op gets a new one */
    CHECK_RC(MPI_Op_free(&op));
    CHECK(MPI_Op_fromint(io) == MPI_OP_NULL, "freed op still resolves");
    MPI_Op op2;
    CHECK_RC(MPI_Op_create((MPI_User_function *)(void (*)(void))MPI_Init, 0, &op2));
    int io2 = MPI_Op_toint(op2);
    CHECK(io2 != io && MPI_Op_fromint(io2) == op2, "new op integer");
    CHECK_RC(MPI_Op_free(&op2));
    MPI_Group_free(&g);
    MPI_Info_free(&info);
    MPI_Type_free(&t);
    MPI_Errhandler_free(&eh);
}

static void statuses(void)
{
    MPI_Status s = {.MPI_SOURCE = 3, .MPI_TAG = 42, .MPI_ERROR = MPI_ERR_TRUNCATE}, back;
    MPI_Fint f[MPI_F_STATUS_SIZE];
    MPI_F08_status f08;
    CHECK_RC(MPI_Status_set_elements(&s, MPI_INT, 7));
    CHECK_RC(MPI_Status_c2f(&s, f));
    CHECK(f[0] == 3 && f[1] == 42 && f[2] == MPI_ERR_TRUNCATE, "c2f fields");
    CHECK_RC(MPI_Status_f2f08(f, &f08));
    CHECK(f08.MPI_SOURCE == 3 && f08.MPI_TAG == 42, "f2f08");
    CHECK_RC(MPI_Status_f082c(&f08, &back));
    int n = -1;
    CHECK_RC(MPI_Get_count(&back, MPI_INT, &n));
    CHECK(back.MPI_SOURCE == 3 && back.MPI_TAG == 42 && n == 7, "round trip: count %d", n);
    memset(&back, 0, sizeof back);
    CHECK_RC(MPI_Status_c2f08(&s, &f08));
    CHECK_RC(MPI_Status_f082f(&f08, f));
    CHECK_RC(MPI_Status_f2c(f, &back));
    CHECK(memcmp(&back, &s, sizeof s) == 0, "second round trip");
    CHECK(err_class(MPI_Status_c2f(MPI_STATUS_IGNORE, f)) == MPI_ERR_ARG, "STATUS_IGNORE");
    CHECK(err_class(MPI_Status_f2c(f, NULL)) == MPI_ERR_ARG, "NULL output");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    predefined();
    invalid();
    user_objects();
    statuses();
    printf("ops_handles: ok\n");
    MPI_Finalize();
    return 0;
}
