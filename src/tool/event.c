/* Event sources.  smartmap defines no event types (MPI_T_event_get_num
 * reports 0, and the functions on registrations and instances answer
 * MPI_T_ERR_INVALID_HANDLE since none can exist), but it has one source
 * of timestamps, the monotonic clock in nanoseconds, which a tool may read
 * to correlate its own records. */
#include "tool/tool.h"

#include <stdint.h>
#include <time.h>

#include "mpi/info.h"

int smap_tool_source_num(void)
{
    return 1;
}

int smap_tool_source_info(int index, char *name, int *name_len, char *desc, int *desc_len,
                          MPI_T_source_order *ordering, MPI_Count *ticks_per_second,
                          MPI_Count *max_ticks, MPI_Info *info)
{
    if (index != 0)
        return MPI_T_ERR_INVALID_INDEX;
    struct MPI_ABI_Info *in = NULL;
    if (info && !(in = smap_info_new()))
        return MPI_T_ERR_MEMORY;
    smap_tool_str("smap_clock", name, name_len);
    smap_tool_str("CLOCK_MONOTONIC of this process, in nanoseconds", desc, desc_len);
    if (ordering)
        *ordering = MPI_T_SOURCE_ORDERED;
    if (ticks_per_second)
        *ticks_per_second = 1000000000;
    if (max_ticks)
        *max_ticks = INT64_MAX;
    if (info)
        *info = smap_info_handle(in);
    return MPI_SUCCESS;
}

int smap_tool_source_timestamp(int index, MPI_Count *timestamp)
{
    if (index != 0)
        return MPI_T_ERR_INVALID_INDEX;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    *timestamp = (MPI_Count)ts.tv_sec * 1000000000 + ts.tv_nsec;
    return MPI_SUCCESS;
}
