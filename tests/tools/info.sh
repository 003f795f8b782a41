# tools_info: smartmap_info reports the versions, the prefix and every tunable
# of src/base/tunables.def with its type, default and doc; flags bad values.
. "$(dirname "$0")/lib.sh"

info=$BIN/smartmap_info

# Rows of the table: SMAP_TUNABLE(NAME, field, TYPE, "default", "doc") starting
# a line, possibly continued over several lines; one row per output line.
def=$SMAP_SRC/src/base/tunables.def
rows=$(awk '/^SMAP_TUNABLE\(/ { row = "" ; inrow = 1 }
            inrow { sub(/^[ \t]+/, " "); row = row $0 }
            inrow && /\)[ \t]*$/ { print row; inrow = 0 }' "$def")
re='^SMAP_TUNABLE\(([A-Z0-9_]+), *[a-z0-9_]+, *([A-Z]+), *"([^"]*)", *"(.*)"\)[ 	]*$'
# The defaults are what we expect to see: clear any SMAP_<NAME> set around us.
while IFS= read -r row; do
    if [[ $row =~ $re ]]; then unset "SMAP_${BASH_REMATCH[1]}"; fi
done <<<"$rows"

out=$("$info") || fail "smartmap_info exited with $?"

# --- versions: the project's, and MPI's as include/mpi.h declares them -------
version=$(sed -n 's/^project(smartmap VERSION \([0-9.]*\).*/\1/p' "$SMAP_SRC/CMakeLists.txt")
[ -n "$version" ] || fail "cannot read the project version from CMakeLists.txt"
expect_contains "$out" "smartmap version:     $version" "smartmap_info"
[ "$("$info" --version)" = "smartmap_info (smartmap) $version" ] || fail "--version: $("$info" --version)"
mpih=$SMAP_SRC/include/mpi.h
[ -f "$mpih" ] || fail "$mpih is missing"
macro() { sed -n "s/^#define $1 *\([0-9][0-9]*\).*/\1/p" "$mpih" | awk 'NR == 1'; }
v=$(macro MPI_VERSION) s=$(macro MPI_SUBVERSION)
{ [ -n "$v" ] && [ -n "$s" ]; } || fail "mpi.h does not define MPI_VERSION/MPI_SUBVERSION"
expect_contains "$out" "MPI standard:         $v.$s" "smartmap_info vs mpi.h"
v=$(macro MPI_ABI_VERSION) s=$(macro MPI_ABI_SUBVERSION)
{ [ -n "$v" ] && [ -n "$s" ]; } || fail "mpi.h does not define MPI_ABI_VERSION/MPI_ABI_SUBVERSION"
expect_contains "$out" "MPI standard ABI:     $v.$s" "smartmap_info vs mpi.h"
expect_contains "$out" "install prefix:       $STAGE" "smartmap_info"
expect_contains "$out" "build options:" "smartmap_info"
expect_contains "$out" "copy levels:" "smartmap_info"

# --- every row of tunables.def --------------------------------------------------
count=0
int_name=
tab=$("$info" --tunables) || fail "smartmap_info --tunables failed"
expect_lacks "$tab" "smartmap version" "--tunables prints only the table"
while IFS= read -r row; do
    [[ $row =~ $re ]] || fail "cannot parse this tunables.def row: $row"
    name=SMAP_${BASH_REMATCH[1]} type=${BASH_REMATCH[2]} dflt=${BASH_REMATCH[3]} doc=${BASH_REMATCH[4]}
    case $type in INT) type=int ;; SIZE) type=size ;; BOOL) type=bool ;; STR) type=string ;; esac
    for text in "$out" "$tab"; do
        line=$(printf '%s\n' "$text" | grep -E "^  $name +" || true)
        [ -n "$line" ] || fail "$name is not listed"
        [[ $line =~ ^\ \ $name\ +$type\ +default:\ (.*)$ ]] || fail "$name: type/default wrong: $line"
        [ "${BASH_REMATCH[1]}" = "$dflt" ] || fail "$name: default '${BASH_REMATCH[1]}', want '$dflt'"
        # The block of this tunable: its line up to the next tunable's.
        block=$(printf '%s\n' "$text" | awk -v n="$name" '$1 == n { on = 1; print; next }
                                                         on && /^  SMAP_/ { on = 0 } on { print }')
        expect_contains "$block" "$doc" "$name's doc line"
        expect_contains "$block" "current: $dflt (default)" "$name's current value"
    done
    if [ -z "$int_name" ] && [ "$type" = int ]; then int_name=$name; fi
    count=$((count + 1))
done <<<"$rows"
[ "$count" -gt 0 ] || fail "no rows found in $def"
expect_contains "$out" "tunables ($count;" "the number of tunables"

# --- values from the environment: valid and invalid (SMAP_VERBOSE, say) ------
block_of() { printf '%s\n' "$1" | awk -v n="$2" '$1 == n { on = 1; next } on && /^  SMAP_/ { on = 0 } on { print }'; }
[ -n "$int_name" ] || fail "tunables.def has no INT tunable to try values with"
out=$(env "$int_name=3" "$info" --tunables) || fail "smartmap_info with $int_name=3 failed"
expect_contains "$(block_of "$out" "$int_name")" "current: 3 (from the environment" "$int_name=3"
out=$(env "$int_name=abc" "$info") || fail "smartmap_info with $int_name=abc must still exit 0"
expect_contains "$(block_of "$out" "$int_name")" "(invalid: 'abc' is not a valid int)" "$int_name=abc"

# --- options -------------------------------------------------------------------------
expect_contains "$("$info" --help)" "--tunables" "--help"
if "$info" --bogus >/dev/null 2>&1; then fail "an unknown option was accepted"; fi
echo "PASS tools_info"
