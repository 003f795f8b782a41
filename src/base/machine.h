/* Which machine this is, beyond its host name: the kernel's boot id, one
 * per boot of one machine.  Emulated hosts (network namespaces) and
 * containers of one machine share it, so they share its CPUs: the
 * launcher binds their ranks as one machine's (tools/smrun/topo.c) and
 * the waiting policy counts them together (boot/job.c, base/wait.h). */
#ifndef SMAP_BASE_MACHINE_H
#define SMAP_BASE_MACHINE_H

#include <stddef.h>

/* The boot id (hex and dashes) into buf, "" when it cannot be read. */
void smap_machine_boot_id(char *buf, size_t len);

#endif
