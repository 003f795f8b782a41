/* Finding a program to start, the way execvp does: one search shared by
 * the launcher (smrun's ranks and spawn requests) and the library (PMIx
 * spawn under Open MPI's mpirun, which must know before it asks). */
#ifndef SMAP_BASE_PROGRAM_H
#define SMAP_BASE_PROGRAM_H

#include <stddef.h>

/* 0 if `path` is an executable regular file, else the errno execve would
 * give (ENOENT, ENOTDIR, EISDIR, EACCES). */
int smap_program_error(const char *path);

/* The program `name` into `out`: a name with a '/' as it is; else the
 * first executable match in `first` (':'-separated directories, the `path`
 * info key of a spawn; may be NULL), then in PATH (an empty entry is the
 * working directory).  0, or the errno to report: EACCES when only something
 * not executable matched, else ENOENT. */
int smap_find_program(const char *name, const char *first, char *out, size_t len);

#endif
