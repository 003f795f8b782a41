#include "base/machine.h"

#include <stdio.h>
#include <string.h>

void smap_machine_boot_id(char *buf, size_t len)
{
    char id[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(id, sizeof id, f))
            id[0] = 0;
        fclose(f);
    }
    id[strcspn(id, "\n/@ \t")] = 0;
    snprintf(buf, len, "%s", id);
}
