#!/usr/bin/env bash
# Every tunable of src/base/tunables.def is documented in docs/USAGE.md.
set -u
missing=0
for name in $(sed -n 's/^SMAP_TUNABLE(\([A-Z0-9_]*\),.*/\1/p' "$SMAP_SRC/src/base/tunables.def"); do
    grep -q "SMAP_$name\b" "$SMAP_SRC/docs/USAGE.md" || { echo "FAIL: SMAP_$name is not in docs/USAGE.md"; missing=1; }
done
[ -n "$(sed -n 's/^SMAP_TUNABLE(\([A-Z0-9_]*\),.*/\1/p' "$SMAP_SRC/src/base/tunables.def")" ] || { echo "FAIL: no tunables parsed"; exit 1; }
[ $missing -eq 0 ] && echo PASS
exit $missing
