#!/usr/bin/env bash
# Vendors Debian's jemalloc into libsmartmap_heap (findings §2 item 4), run by the
# build (src/CMakeLists.txt):
#   vendor_jemalloc.sh /usr/lib/<triplet>/libjemalloc_pic.a OUT.a
# OUT.a is the same archive with every global symbol renamed "smap_je_<name>"
# (malloc -> smap_je_malloc, je_arena_new -> smap_je_je_arena_new), so that
# it can never clash with, or be interposed by, an application's allocator,
# and without jemalloc_cpp.pic.o (C++ operator new/delete), which needs
# libstdc++: libstdc++'s own operators call our malloc anyway.
# Tools can be overridden with NM, OBJCOPY and AR.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 libjemalloc_pic.a OUT.a" >&2; exit 2; }
src=$1 out=$2
nm_=${NM:-nm} objcopy_=${OBJCOPY:-objcopy} ar_=${AR:-ar}

tmp=$(mktemp -d "$(dirname "$out")/.vendor_jemalloc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp "$src" "$tmp/in.a"
if "$ar_" t "$tmp/in.a" | grep -qx 'jemalloc_cpp.pic.o'; then
    "$ar_" d "$tmp/in.a" jemalloc_cpp.pic.o
fi

# Every defined global symbol (T, D, B, R, V, W, ...), once.
"$nm_" -g --defined-only "$tmp/in.a" | awk 'NF == 3 { print $3 }' | sort -u >"$tmp/names"
awk '{ print $1 " smap_je_" $1 }' "$tmp/names" >"$tmp/map"
for need in malloc mallocx rallocx dallocx mallctl malloc_conf malloc_usable_size; do
    grep -qx "$need" "$tmp/names" || { echo "$0: $src does not define $need" >&2; exit 1; }
done

"$objcopy_" --redefine-syms="$tmp/map" "$tmp/in.a" "$tmp/out.a"

# Nothing may keep its public name.
left=$("$nm_" -g --defined-only "$tmp/out.a" | awk 'NF == 3 && $3 !~ /^smap_je_/ { print $3 }')
if [ -n "$left" ]; then
    echo "$0: symbols left unrenamed: $left" >&2
    exit 1
fi
mv "$tmp/out.a" "$out"
