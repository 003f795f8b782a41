#!/usr/bin/env bash
# smap_copy_info: smartmap_info's SMARTMAP section reports exposure, copy
# levels, CMA (probed), Yama and shmem THP with the admin hint, follows
# SMAP_COPY/SMAP_EXPOSE, and flags malformed values without failing.
set -u
fail() { echo "FAIL (smap_copy_info): $*" >&2; exit 1; }
has() { grep -qF -- "$2" <<<"$1" || fail "expected '$2' in:
$1"; }
lacks() { if grep -qF -- "$2" <<<"$1"; then fail "did not expect '$2' in:
$1"; fi; }
info=$SMAP_STAGE/bin/smartmap_info
out=$(env -u SMAP_COPY -u SMAP_EXPOSE "$info") || fail "smartmap_info failed"
has "$out" "SMARTMAP ("
has "$out" "shmem THP:"
has "$out" "CMA:"
has "$out" "copy levels:"
has "$out" "Yama ptrace_scope:"
has "$out" "exposure (SMAP_EXPOSE=all, the default)"

# The THP line follows the kernel's setting (the selected [word]).
thp=/sys/kernel/mm/transparent_hugepage/shmem_enabled
if [ -r "$thp" ]; then
    mode=$(sed -n 's/.*\[\([a-z_]*\)\].*/\1/p' "$thp")
    sized=/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/shmem_enabled
    if [ -r "$sized" ]; then
        m2=$(sed -n 's/.*\[\([a-z_]*\)\].*/\1/p' "$sized")
        [ "$m2" = inherit ] || mode=$m2
    fi
    has "$out" "shmem THP:          $mode - "
    case $mode in
    never|deny) has "$out" "heap uses 4 KiB pages (admin: echo advise > $thp)" ;;
    *) has "$out" "heap may use 2 MiB pages" ;;
    esac
fi

# CMA: the probe's verdict must match what process_vm_readv really does;
# check it independently with a helper-free probe of our own child.
cma_line=$(grep '^  CMA:' <<<"$out")
yama=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo none)
if [ "$yama" = none ] || [ "$yama" = 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        has "$cma_line" "works"
        has "$out" "    cma       on,"
        has "$out" "copy levels:          direct, cma, bounce"
    fi
else
    has "$out" "Yama ptrace_scope:  $yama"
fi

# Build-dependent heap exposure: ASan builds cannot expose the heap.
case $("$info" | grep '^build options:') in
*sanitize=ON*) has "$out" "allowed, but not exposed by this build (AddressSanitizer" ;;
*) lacks "$out" "not exposed by this build" ;;
esac

# The settings.
out=$(SMAP_COPY=bounce SMAP_EXPOSE=data "$info") || fail "smartmap_info failed"
has "$out" "copy levels (SMAP_COPY=bounce"
has "$out" "    direct    off (SMAP_COPY=bounce)"
has "$out" "    cma       off (SMAP_COPY=bounce)"
has "$out" "copy levels:          bounce"
has "$out" "    heap      off (SMAP_EXPOSE excludes it)"
has "$out" "    data      exposed"
out=$(SMAP_COPY=foo "$info") || fail "smartmap_info must exit 0 with a bad SMAP_COPY"
has "$out" "(invalid setting: SMAP_COPY='foo': expected direct|cma|bounce; MPI_Init would fail)"
out=$(SMAP_EXPOSE=heap,nope "$info") || fail "smartmap_info must exit 0 with a bad SMAP_EXPOSE"
has "$out" "SMAP_EXPOSE='heap,nope': 'nope' is not one of"
echo "PASS smap_copy_info"
