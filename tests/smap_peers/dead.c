/* For dead.sh: after MPI_Init every rank writes DIR/ready.<rank> (its pid);
 * then local rank VICTIM SIGKILLs itself while the others wait in the node
 * barrier, which must fail (not hang) once the death is seen; they then
 * wait to be stopped by the launcher. */
#include <signal.h>

#include "peers_test.h"

int main(int argc, char **argv)
{
    CHECK(argc == 3, "usage: dead VICTIM DIR");
    CHECK_RC(MPI_Init(&argc, &argv));
    int lr = smap_local_rank(), victim = atoi(argv[1]);
    char path[512];
    snprintf(path, sizeof path, "%s/ready.%d", argv[2], lr);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot create %s", path);
    fprintf(f, "%ld\n", (long)getpid());
    fclose(f);
    CHECK(smap_node_barrier() == 0, "node barrier");
    if (lr == victim)
        raise(SIGKILL);
    int rc = smap_node_barrier();
    fprintf(stderr, "local rank %d: barrier returned %d\n", lr, rc);
    sleep(30);   /* smrun must stop us long before */
    return 3;
}
