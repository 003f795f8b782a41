/* Compiled (not run) by header_compiles.sh in several language modes: the
 * standard-ABI layout facts of mpi.h, checked at compile time. */
#include <mpi.h>
#include <mpi.h> /* include guard */
#include <stddef.h>

#if defined(__cplusplus) && __cplusplus >= 201103L
#include <type_traits>
#define ABI_ASSERT(c, msg) static_assert(c, msg)
#define IS_POINTER(T) std::is_pointer<T>::value
#define IS_SIGNED(T) std::is_signed<T>::value
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define ABI_ASSERT(c, msg) _Static_assert(c, msg)
#define IS_POINTER(T) 1 /* checked below by assignment to void * */
#define IS_SIGNED(T) ((T)-1 < (T)0)
#else
#define ABI_CAT2(a, b) a##b
#define ABI_CAT(a, b) ABI_CAT2(a, b)
#define ABI_ASSERT(c, msg) typedef char ABI_CAT(abi_assert_, __LINE__)[(c) ? 1 : -1]
#define IS_POINTER(T) 1
#define IS_SIGNED(T) ((T)-1 < (T)0)
#endif

ABI_ASSERT(sizeof(MPI_Status) == 8 * sizeof(int), "MPI_Status is 8 ints");
ABI_ASSERT(sizeof(MPI_Status) == 32, "MPI_Status is 32 bytes");
ABI_ASSERT(offsetof(MPI_Status, MPI_SOURCE) == 0, "MPI_SOURCE first");
ABI_ASSERT(offsetof(MPI_Status, MPI_TAG) == sizeof(int), "MPI_TAG second");
ABI_ASSERT(offsetof(MPI_Status, MPI_ERROR) == 2 * sizeof(int), "MPI_ERROR third");
ABI_ASSERT(sizeof(MPI_Aint) == sizeof(void *), "MPI_Aint is pointer-sized");
ABI_ASSERT(IS_SIGNED(MPI_Aint), "MPI_Aint is signed");
ABI_ASSERT(sizeof(MPI_Count) == 8 && IS_SIGNED(MPI_Count), "MPI_Count is int64_t");
ABI_ASSERT(sizeof(MPI_Offset) == 8 && IS_SIGNED(MPI_Offset), "MPI_Offset is int64_t");
ABI_ASSERT(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint is int");

#define HANDLE(T) \
    ABI_ASSERT(sizeof(T) == sizeof(void *) && IS_POINTER(T), #T " is a pointer type");
HANDLE(MPI_Comm)
HANDLE(MPI_Datatype)
HANDLE(MPI_Errhandler)
HANDLE(MPI_File)
HANDLE(MPI_Group)
HANDLE(MPI_Info)
HANDLE(MPI_Message)
HANDLE(MPI_Op)
HANDLE(MPI_Request)
HANDLE(MPI_Session)
HANDLE(MPI_Win)
HANDLE(MPI_T_enum)
HANDLE(MPI_T_cvar_handle)
HANDLE(MPI_T_pvar_handle)
HANDLE(MPI_T_pvar_session)
HANDLE(MPI_T_event_instance)
HANDLE(MPI_T_event_registration)

#if !defined(SMARTMAP_MPI) || SMARTMAP_MPI != 1
#error "SMARTMAP_MPI is not 1"
#endif
#if MPI_VERSION != 5 || MPI_SUBVERSION != 0
#error "MPI_VERSION.MPI_SUBVERSION is not 5.0"
#endif

/* Handles convert to void * without a cast only when they are pointers
 * (an integer handle would be a -Werror=int-conversion error in C). */
void *abi_handle_is_pointer(MPI_Comm c);
void *abi_handle_is_pointer(MPI_Comm c)
{
    void *p = c;
    return p;
}

/* A few prototypes used through pointers of the exact standard type. */
int abi_prototypes(void);
int abi_prototypes(void)
{
    int (*init)(int *, char ***) = MPI_Init;
    int (*pinit)(int *, char ***) = PMPI_Init;
    double (*wtime)(void) = MPI_Wtime;
    int (*send_c)(const void *, MPI_Count, MPI_Datatype, int, int, MPI_Comm) = MPI_Send_c;
    int (*pcontrol)(const int, ...) = MPI_Pcontrol;
    MPI_Comm (*fromint)(int) = MPI_Comm_fromint;
    return init != 0 && pinit != 0 && wtime != 0 && send_c != 0 && pcontrol != 0 &&
           fromint != 0;
}
