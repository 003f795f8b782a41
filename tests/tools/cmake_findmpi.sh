# tools_cmake_findmpi: CMake's FindMPI, pointed at an installed smartmap's
# mpicc (MPI_C_COMPILER, as its documentation says), finds smartmap even
# with Debian's Open MPI installed beside it, and a tiny project linked with
# the MPI::MPI_C target builds and runs.
. "$(dirname "$0")/lib.sh"

prefix=$TMP/prefix
install_into "$prefix"
proj=$TMP/proj
mkdir -p "$proj"
cp "$SMAP_SRC/examples/hello.c" "$proj/"
cat >"$proj/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(findmpi_test C)
find_package(MPI REQUIRED COMPONENTS C)
message(STATUS "smartmap-test: MPI_C_VERSION=${MPI_C_VERSION} MPI_C_LIBRARIES=${MPI_C_LIBRARIES}")
add_executable(hello hello.c)
target_link_libraries(hello PRIVATE MPI::MPI_C)
CMAKE
cmake -S "$proj" -B "$proj/build" -DMPI_C_COMPILER="$prefix/bin/mpicc" >"$TMP/cmake.log" 2>&1 ||
    { cat "$TMP/cmake.log" >&2; fail "cmake with find_package(MPI) failed"; }
grep 'smartmap-test:' "$TMP/cmake.log"
line=$(grep 'smartmap-test:' "$TMP/cmake.log")
expect_contains "$line" "MPI_C_VERSION=5.0" "FindMPI's MPI version"
expect_contains "$line" "$(cd -P "$prefix/lib" && pwd -P)/libmpi_abi.so" "FindMPI's libraries"
cmake --build "$proj/build" >"$TMP/build.log" 2>&1 || { cat "$TMP/build.log" >&2; fail "building against MPI::MPI_C failed"; }
expect_smartmap_program "$proj/build/hello" "$prefix"
out=$(cd "$TMP" && run_job 60 "$prefix/bin/mpiexec" -n 2 "$proj/build/hello") || fail "mpiexec -n 2 hello failed: $out"
expect_hello_lines "$out" 2
echo "PASS tools_cmake_findmpi"
