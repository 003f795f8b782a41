// tools_mpicxx: a C++17 program using mpi.h and the standard library.
#include <mpi.h>

#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::vector<int> v(10);
    std::iota(v.begin(), v.end(), rank);               // rank, rank+1, ..., rank+9
    auto sum = std::accumulate(v.begin(), v.end(), 0);  // 10*rank + 45
    if (auto s = std::to_string(sum); !s.empty())       // C++17 if-initialiser
        std::printf("rank %d sum %s\n", rank, s.c_str());
    MPI_Finalize();
    return 0;
}
