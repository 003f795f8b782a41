#!/usr/bin/env bash
# fortran_tools: an installed smartmap's Fortran side -- mpifort's options
# (-show, -showme:libs, -compile_info, -fc=, SMAP_FC/MPICH_FC/OMPI_FC), a
# `use mpi` program built with the installed mpifort, with `pkg-config
# mpi-fort` and gfortran, and with CMake's find_package(MPI) giving
# MPI::MPI_Fortran, each run on 2 ranks with the installed mpiexec.
. "$SMAP_SRC/tests/tools/lib.sh"

prefix=$TMP/prefix
install_into "$prefix"
pre=$(cd -P "$prefix" && pwd -P)
[ -f "$pre/include/mpif.h" ] || fail "mpif.h not installed"
[ -f "$pre/include/mpi.mod" ] && [ -f "$pre/include/mpi_f08.mod" ] || fail "module files not installed"
for w in mpifort mpif90 mpif77; do [ -x "$prefix/bin/$w" ] || fail "$w not installed"; done

show=$("$prefix/bin/mpifort" -show -o x x.f90)
expect_contains "$show" "-I$pre/include" "mpifort -show: include dir"
expect_contains "$show" "$pre/lib/libsmartmap_fort.so $pre/lib/libmpi_abi.so" "mpifort -show: libraries"
expect_contains "$("$prefix/bin/mpif90" -showme:libs)" "smartmap_fort" "-showme:libs"
expect_lacks "$("$prefix/bin/mpifort" -compile_info -c x.f90)" "libmpi_abi" "-compile_info"
expect_contains "$(SMAP_FC=my-fc "$prefix/bin/mpifort" -show x.f90)" "my-fc " "SMAP_FC"
expect_contains "$(MPICH_FC=mpich-fc "$prefix/bin/mpifort" -show x.f90)" "mpich-fc " "MPICH_FC"
expect_contains "$(OMPI_FC=ompi-fc "$prefix/bin/mpif77" -show x.f90)" "ompi-fc " "OMPI_FC"
expect_contains "$(SMAP_FC=a-fc "$prefix/bin/mpifort" -fc=b-fc -show x.f90)" "b-fc " "-fc= wins"
# the C wrapper is unchanged by all this
expect_lacks "$("$prefix/bin/mpicc" -show x.c)" "smartmap_fort" "mpicc links no Fortran"

check_run() {   # PROG WHAT
    local out
    out=$(cd "$TMP" && run_job 60 "$prefix/bin/mpiexec" -n 2 "$1") || fail "$2: run failed: $out"
    expect_hello_lines "$out" 2
}

# 1. the installed mpifort
cp "$SMAP_SRC/tests/fortran/hello.f90" "$TMP/"
(cd "$TMP" && "$prefix/bin/mpifort" -o hello_w hello.f90) || fail "mpifort could not build hello.f90"
expect_smartmap_program "$TMP/hello_w" "$prefix"
check_run "$TMP/hello_w" mpifort

# 2. pkg-config mpi-fort with the plain compiler
fc=$("$prefix/bin/mpifort" -showme:command)
flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs mpi-fort) ||
    fail "pkg-config mpi-fort failed"
(cd "$TMP" && $fc -o hello_pc hello.f90 $flags) || fail "$fc with pkg-config mpi-fort failed: $flags"
check_run "$TMP/hello_pc" pkg-config

# 3. CMake's FindMPI through mpifort
proj=$TMP/proj
mkdir -p "$proj"
cp "$SMAP_SRC/tests/fortran/hello.f90" "$proj/"
cat >"$proj/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(findmpi_fortran Fortran)
find_package(MPI REQUIRED COMPONENTS Fortran)
message(STATUS "smartmap-test: F08=${MPI_Fortran_HAVE_F08_MODULE} F90=${MPI_Fortran_HAVE_F90_MODULE} F77=${MPI_Fortran_HAVE_F77_HEADER} VERSION=${MPI_Fortran_VERSION}")
add_executable(hello hello.f90)
target_link_libraries(hello PRIVATE MPI::MPI_Fortran)
CMAKE
cmake -S "$proj" -B "$proj/build" -DMPI_Fortran_COMPILER="$prefix/bin/mpifort" >"$TMP/cmake.log" 2>&1 ||
    { cat "$TMP/cmake.log" >&2; fail "cmake find_package(MPI COMPONENTS Fortran) failed"; }
line=$(grep 'smartmap-test:' "$TMP/cmake.log")
echo "$line"
expect_contains "$line" "F08=TRUE" "FindMPI: use mpi_f08"
expect_contains "$line" "F90=TRUE" "FindMPI: use mpi"
expect_contains "$line" "F77=TRUE" "FindMPI: mpif.h"
cmake --build "$proj/build" >"$TMP/build.log" 2>&1 || { cat "$TMP/build.log" >&2; fail "building against MPI::MPI_Fortran failed"; }
expect_smartmap_program "$proj/build/hello" "$prefix"
check_run "$proj/build/hello" cmake
echo "PASS fortran_tools"
