/* MPI_Comm_get_attr, MPI_Type_get_attr, MPI_Win_get_attr and MPI_Attr_get
 * from Fortran (MPI 5.0 §19.3.7): a Fortran attribute is an integer.  A
 * value set from Fortran is stored as the pointer's bits and comes back as
 * they are; a predefined attribute is stored by C as the address of its
 * value (an int, MPI_WIN_SIZE's MPI_Aint) and comes back as that value;
 * MPI_WIN_BASE is the base address itself. */
#include "binding/fortran/fortran.h"

/* The Fortran integer of attribute value v of keyval kv (flag set). */
static MPI_Aint attr_value(int kv, void *v)
{
    switch (kv) {
    case MPI_TAG_UB: case MPI_IO: case MPI_HOST: case MPI_WTIME_IS_GLOBAL:
    case MPI_APPNUM: case MPI_LASTUSEDCODE: case MPI_UNIVERSE_SIZE:
    case MPI_WIN_DISP_UNIT: case MPI_WIN_CREATE_FLAVOR: case MPI_WIN_MODEL:
        return v ? *(int *)v : 0;
    case MPI_WIN_SIZE:
        return v ? *(MPI_Aint *)v : 0;
    default:
        return (MPI_Aint)(intptr_t)v;
    }
}

void pmpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *attribute_val,
                         MPI_Fint *flag, MPI_Fint *ierror_opt)
{
    SMAP_F_IERROR;
    void *v = NULL;
    int f = 0;
    *ierror = PMPI_Comm_get_attr(PMPI_Comm_f2c(*comm), *keyval, &v, &f);
    if (*ierror == MPI_SUCCESS) {
        *flag = SMAP_F_LOGICAL_OUT(f);
        if (f)
            *attribute_val = attr_value(*keyval, v);
    }
}
SMAP_F_ALIASES(comm_get_attr, COMM_GET_ATTR, void,
               (MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Fint *, MPI_Fint *))

void pmpi_type_get_attr_(MPI_Fint *datatype, MPI_Fint *keyval, MPI_Aint *attribute_val,
                         MPI_Fint *flag, MPI_Fint *ierror_opt)
{
    SMAP_F_IERROR;
    void *v = NULL;
    int f = 0;
    *ierror = PMPI_Type_get_attr(PMPI_Type_f2c(*datatype), *keyval, &v, &f);
    if (*ierror == MPI_SUCCESS) {
        *flag = SMAP_F_LOGICAL_OUT(f);
        if (f)
            *attribute_val = attr_value(*keyval, v);
    }
}
SMAP_F_ALIASES(type_get_attr, TYPE_GET_ATTR, void,
               (MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Fint *, MPI_Fint *))

void pmpi_win_get_attr_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *attribute_val,
                        MPI_Fint *flag, MPI_Fint *ierror_opt)
{
    SMAP_F_IERROR;
    void *v = NULL;
    int f = 0;
    *ierror = PMPI_Win_get_attr(PMPI_Win_f2c(*win), *keyval, &v, &f);
    if (*ierror == MPI_SUCCESS) {
        *flag = SMAP_F_LOGICAL_OUT(f);
        if (f)
            *attribute_val = attr_value(*keyval, v);
    }
}
SMAP_F_ALIASES(win_get_attr, WIN_GET_ATTR, void,
               (MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Fint *, MPI_Fint *))

/* MPI-1's form: an INTEGER value (truncated: the standard's own rule). */
void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *attribute_val,
                    MPI_Fint *flag, MPI_Fint *ierror_opt)
{
    SMAP_F_IERROR;
    void *v = NULL;
    int f = 0;
    *ierror = PMPI_Attr_get(PMPI_Comm_f2c(*comm), *keyval, &v, &f);
    if (*ierror == MPI_SUCCESS) {
        *flag = SMAP_F_LOGICAL_OUT(f);
        if (f)
            *attribute_val = (MPI_Fint)attr_value(*keyval, v);
    }
}
SMAP_F_ALIASES(attr_get, ATTR_GET, void,
               (MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *))
