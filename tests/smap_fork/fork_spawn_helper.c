/* A program linked with libmpi that a rank starts through posix_spawn or
 * fork+exec: it inherits the rank's SMAP_* and PMI_* variables but does not
 * call MPI_Init.  It allocates, writes its globals and exits 0 when all is
 * well (argv[1] is a word to echo, to show the arguments arrived). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_table[4096];

int main(int argc, char **argv)
{
    for (int i = 0; i < 4096; i++)
        g_table[i] = i;
    size_t total = 0;
    for (int i = 0; i < 200; i++) {
        size_t n = (size_t)(i + 1) * 1000;
        char *p = malloc(n);
        if (!p)
            return 2;
        memset(p, i, n);
        total += (unsigned char)p[n - 1];
        free(p);
    }
    for (int i = 0; i < 4096; i++)
        if (g_table[i] != i)
            return 3;
    if (argc > 1)
        printf("%s %zu\n", argv[1], total);
    return 0;
}
