/* Pitfall B: main's locals, the copy of argc and the locals of the first
 * frames below main all lie in the exposed stack ("smartmap-stack"), not
 * in the anonymous page(s) kept at the top for argv/environ. */
#include "expose_util.h"

static void check_in_stack(const void *p, const char *what)
{
    CHECK(xmap_contains("smartmap-stack", p), "%s at %p is not in smartmap-stack", what, p);
}

__attribute__((noinline)) static void frame2(void)
{
    volatile char deep[64] = { 2 };
    check_in_stack((const void *)deep, "a local two frames below main");
}

__attribute__((noinline)) static void frame1(void)
{
    volatile int x = 1;
    check_in_stack((const void *)&x, "a local one frame below main");
    frame2();
}

int main(int argc, char **argv)
{
    char arr[32] = "main's local array";
    /* Before MPI_Init: the stack was converted by the library constructor. */
    check_in_stack(arr, "main's local array");
    check_in_stack(&argc, "main's copy of argc");
    check_in_stack(&argv, "main's copy of argv");
    frame1();
    CHECK_RC(MPI_Init(&argc, &argv));
    check_in_stack(arr, "main's local array (after MPI_Init)");
    CHECK(strcmp(arr, "main's local array") == 0, "main's local array changed");
    CHECK_RC(MPI_Finalize());
    return 0;
}
