/* The SMARTMAP section of smartmap_info (smap_section.c). */
#ifndef SMAP_INFO_SMAP_SECTION_H
#define SMAP_INFO_SMAP_SECTION_H

/* Prints exposure, copy levels, the CMA probe and shmem THP; returns 0. */
int print_smartmap_section(void);

#endif
