/* A program built with another MPI runs under smrun as N singletons: its
 * MPI never speaks PMI to us, every rank thinks it is rank 0 of 1, and the
 * job "succeeds".  When a rank exits without having initialized through
 * our PMI service, smrun looks at the program's ELF dependencies for
 * another MPI's library and says so (a warning: the exit code stands).
 * Programs that use no MPI (hostname, scripts) depend on none, so they are
 * never warned about. */
#include "smrun.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Sonames of Open MPI's and MPICH's libraries (smartmap's is libmpi_abi). */
static int foreign_mpi(const char *soname)
{
    static const char *const prefixes[] = {
        "libmpi.so.", "libmpich", "libmpi_mpifh.", "libmpi_usempi", "libmpifort.",
        "libmpi_cxx.", "libmpicxx.", "libmpi_java.", "libopen-rte.", "libopen-pal.",
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(soname, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

static int in_file(size_t size, uint64_t off, uint64_t len)
{
    return off <= size && len <= size - off;
}

/* Copies the first DT_NEEDED of a foreign MPI into lib; 0 when found. */
static int scan_elf(const unsigned char *m, size_t size, char *lib, size_t len)
{
    const Elf64_Ehdr *eh = (const void *)m;
    if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        !in_file(size, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
        return -1;
    const Elf64_Shdr *sh = (const void *)(m + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNAMIC || sh[i].sh_link >= eh->e_shnum)
            continue;
        const Elf64_Shdr *str = &sh[sh[i].sh_link];
        if (!in_file(size, sh[i].sh_offset, sh[i].sh_size) ||
            !in_file(size, str->sh_offset, str->sh_size))
            return -1;
        const Elf64_Dyn *d = (const void *)(m + sh[i].sh_offset);
        for (size_t k = 0; k < sh[i].sh_size / sizeof *d && d[k].d_tag != DT_NULL; k++) {
            if (d[k].d_tag != DT_NEEDED || d[k].d_un.d_val >= str->sh_size)
                continue;
            const char *name = (const char *)m + str->sh_offset + d[k].d_un.d_val;
            if (strnlen(name, str->sh_size - d[k].d_un.d_val) == str->sh_size - d[k].d_un.d_val)
                continue;
            if (foreign_mpi(name)) {
                snprintf(lib, len, "%s", name);
                return 0;
            }
        }
    }
    return -1;
}

int smrun_foreign_mpi(const char *program, char *lib, size_t len)
{
    int fd = open(program, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    int rc = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            rc = scan_elf(m, (size_t)st.st_size, lib, len);
            munmap(m, (size_t)st.st_size);
        }
    }
    close(fd);
    return rc;
}

void smrun_check_uninitialized(struct smrun_job *job, const struct smrun_rank *r)
{
    if (r->pmi.initialized || job->foreign_warned || !job->program)
        return;
    job->foreign_warned = 1;
    char lib[128];
    if (smrun_foreign_mpi(job->program, lib, sizeof lib) == 0)
        smrun_msg("warning: rank %d never initialized through smartmap: %s is linked with %s, "
                  "another MPI's library (built with another MPI's mpicc/mpif90?); its ranks "
                  "ran as unconnected singletons. Rebuild it with smartmap's mpicc",
                  r->rank, job->program, lib);
}
