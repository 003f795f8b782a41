/* Info hints of files (MPI 5.0 §14.2.8), under ROMIO's names so programs
 * tuned for MPICH keep their settings.  A hint with a value we cannot use
 * is ignored, as the standard allows; MPI_File_get_info reports the values
 * in effect.  The independent buffer sizes size the packing chunk and the
 * sieve of access.c, romio_ds_read/romio_ds_write switch data sieving;
 * the collective-buffering ones steer two-phase I/O (twophase.c,
 * collective.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "mpi/info.h"

void smap_io_hints_default(struct smap_io_hints *h)
{
    memset(h, 0, sizeof *h);
    h->cb_buffer_size = 16777216;
    h->cb_nodes = 1;
    h->ind_rd_buffer_size = 4194304;
    h->ind_wr_buffer_size = 524288;
    strcpy(h->romio_cb_read, "automatic");
    strcpy(h->romio_cb_write, "automatic");
    strcpy(h->romio_ds_read, "automatic");
    strcpy(h->romio_ds_write, "automatic");
    strcpy(h->romio_no_indep_rw, "false");
    strcpy(h->cb_config_list, "*:1");
}

/* A positive number (at most 2^40: a buffer size or a count), or -1. */
static long long positive(const char *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end || x <= 0 || x > (1LL << 40))
        return -1;
    return x;
}

static void num(const struct MPI_ABI_Info *in, const char *key, long long *dst)
{
    const char *v = smap_info_lookup(in, key);
    long long x;
    if (v && (x = positive(v)) > 0)
        *dst = x;
}

static void word(const struct MPI_ABI_Info *in, const char *key, char *dst, size_t cap,
                 const char *const *allowed)
{
    const char *v = smap_info_lookup(in, key);
    if (!v)
        return;
    for (; *allowed; allowed++)
        if (!strcmp(v, *allowed) && strlen(v) < cap) {
            strcpy(dst, v);
            return;
        }
}

void smap_io_hints_set(struct smap_io_hints *h, const struct MPI_ABI_Info *in)
{
    static const char *const ead[] = {"enable", "disable", "automatic", NULL};
    static const char *const tf[] = {"true", "false", NULL};
    num(in, "cb_buffer_size", &h->cb_buffer_size);
    num(in, "cb_nodes", &h->cb_nodes);
    num(in, "ind_rd_buffer_size", &h->ind_rd_buffer_size);
    num(in, "ind_wr_buffer_size", &h->ind_wr_buffer_size);
    num(in, "striping_factor", &h->striping_factor);
    num(in, "striping_unit", &h->striping_unit);
    word(in, "romio_cb_read", h->romio_cb_read, sizeof h->romio_cb_read, ead);
    word(in, "romio_cb_write", h->romio_cb_write, sizeof h->romio_cb_write, ead);
    word(in, "romio_ds_read", h->romio_ds_read, sizeof h->romio_ds_read, ead);
    word(in, "romio_ds_write", h->romio_ds_write, sizeof h->romio_ds_write, ead);
    word(in, "romio_no_indep_rw", h->romio_no_indep_rw, sizeof h->romio_no_indep_rw, tf);
    const char *v = smap_info_lookup(in, "cb_config_list");
    if (v && *v && strlen(v) < sizeof h->cb_config_list) {
        strcpy(h->cb_config_list, v);
        h->cb_given = 1;
    }
    if (smap_info_lookup(in, "cb_nodes"))
        h->cb_given = 1;
}

struct MPI_ABI_Info *smap_io_hints_get(const struct smap_io_hints *h)
{
    struct MPI_ABI_Info *in = smap_info_new();
    if (!in)
        return NULL;
    char b[32];
    int bad = 0;
#define NUM(k)                                                                             \
    do {                                                                                   \
        snprintf(b, sizeof b, "%lld", h->k);                                               \
        bad |= smap_info_set(in, #k, b);                                                   \
    } while (0)
    NUM(cb_buffer_size);
    NUM(cb_nodes);
    NUM(ind_rd_buffer_size);
    NUM(ind_wr_buffer_size);
    if (h->striping_factor)
        NUM(striping_factor);
    if (h->striping_unit)
        NUM(striping_unit);
#undef NUM
    bad |= smap_info_set(in, "romio_cb_read", h->romio_cb_read);
    bad |= smap_info_set(in, "romio_cb_write", h->romio_cb_write);
    bad |= smap_info_set(in, "romio_ds_read", h->romio_ds_read);
    bad |= smap_info_set(in, "romio_ds_write", h->romio_ds_write);
    bad |= smap_info_set(in, "romio_no_indep_rw", h->romio_no_indep_rw);
    bad |= smap_info_set(in, "cb_config_list", h->cb_config_list);
    if (bad) {
        smap_info_free(in);
        return NULL;
    }
    return in;
}
