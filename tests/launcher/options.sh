# Command line: bad rank counts, unknown options and missing arguments are
# usage errors (exit 2, one clear line); --help lists every option and
# environment variable; --version; "--" and options after the program.
source "$SMAP_SRC/tests/launcher/lib.sh"

for bad in 0 -1 abc 1x "" 99999999999; do
    run_job -n "$bad" "$RANKPROG"
    expect_rc 2
    expect_err "smrun: -n: '$bad' is not a valid number of ranks"
    [ "$(wc -l < "$WORK/err")" = 1 ] || fail "more than one line for -n '$bad'"
done
run_job -np 0 "$RANKPROG";            expect_rc 2; expect_err "-np: '0' is not a valid"
run_job -n;                            expect_rc 2; expect_err "option '-n' needs an argument"
run_job --bogus "$RANKPROG";           expect_rc 2; expect_err "smrun: unknown option '--bogus'"
run_job -n 2;                          expect_rc 2; expect_err "smrun: no program to run"
run_job --timeout -1 "$RANKPROG";      expect_rc 2; expect_err "not a valid number of seconds"
run_job --timeout soon "$RANKPROG";    expect_rc 2; expect_err "not a valid number of seconds"
run_job -genv ONLYNAME;                expect_rc 2; expect_err "needs two arguments"
run_job --help=x "$RANKPROG";          expect_rc 2; expect_err "takes no argument"

run_job --help
expect_rc 0
for word in "-n N" "-np N" "-x VAR" "-genv VAR VALUE" "--bind-to hwthread|core|l3cache|socket|numa|none" "--map-by slot|core" "--rank-by slot|core" "--report-bindings" \
            "-l, --tag-output" "--timeout SECONDS" "-v, --verbose" "-h, --help" "-V, --version" \
            "PMI_FD" "PMI_RANK" "PMI_SIZE" "SMAP_SESSION_DIR" "SMAP_LAUNCHER" "SMAP_NODE_CPUS" \
            "PMI_PORT" "MPIEXEC_TIMEOUT" "SMRUN_BIND_TO" "TMPDIR" "PATH" "EXIT STATUS" "SYNOPSIS"; do
    expect_out "$word"
done
run_job -h; expect_rc 0; expect_out "SYNOPSIS"

run_job --version
expect_rc 0
expect_out "smrun (smartmap) "

# --np=N form, "--", and options after the program belong to the program.
run_job --np=2 -- sh -c 'echo "args:$*"' sh -n 5 -l
expect_rc 0
[ "$(grep -c '^args:-n 5 -l$' "$WORK/out")" = 2 ] || fail "program arguments were not passed as is"
# The spellings of Open MPI's mpirun and hydra's mpiexec (each used to be
# "unknown option").
run_job --oversubscribe --allow-run-as-root -genvall -n 2 "$RANKPROG" print:ran
expect_rc 0
[ "$(grep -c '^ran$' "$WORK/out")" = 2 ] || fail "--oversubscribe --allow-run-as-root: not 2 ranks"
mkdir -p "$WORK/wd dir"
for spelling in -wdir --wdir -wd; do
    run_job $spelling "$WORK/wd dir" -n 2 sh -c pwd
    expect_rc 0
    [ "$(grep -cxF "$WORK/wd dir" "$WORK/out")" = 2 ] || fail "$spelling: ranks did not start in it"
done
run_job --wdir="$WORK/wd dir" sh -c pwd
expect_rc 0; expect_out "$WORK/wd dir"
cp "$RANKPROG" "$WORK/wd dir/prog"
run_job -wdir "$WORK/wd dir" ./prog print:relative
expect_rc 0; expect_out "relative"
run_job -wdir "$WORK/no such dir" "$RANKPROG"
expect_rc 1; expect_err "-wdir $WORK/no such dir: No such file or directory"
A_VAR=one B_VAR=two run_job -genvlist A_VAR,B_VAR "$RANKPROG" env:A_VAR env:B_VAR
expect_rc 0; expect_out "A_VAR=one"; expect_out "B_VAR=two"
B_VAR=two run_job -envlist B_VAR,UNSET_VAR "$RANKPROG" env:B_VAR
expect_rc 0; expect_out "B_VAR=two"; expect_err "UNSET_VAR is not set"
run_job -genvlist 'A,1B' "$RANKPROG"
expect_rc 2; expect_err "not a comma-separated list of variable names"
run_job --mca btl self,vader -n 1 "$RANKPROG" print:mca
expect_rc 0; expect_out "mca"; expect_err "--mca btl self,vader is an Open MPI parameter; smartmap ignores it"
run_job -q --mca btl self -x UNSET_VAR "$RANKPROG" print:quiet
expect_rc 0; expect_out "quiet"
[ ! -s "$WORK/err" ] || fail "-q: smrun still warned: $(cat "$WORK/err")"
run_job --timestamp-output -l -n 2 "$RANKPROG" "print:stamped {rank}"
expect_rc 0
[ "$(grep -cE '^\[[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}\] \[[01]\] stamped [01]$' "$WORK/out")" = 2 ] ||
    fail "--timestamp-output -l: $(cat "$WORK/out")"
run_job --display-map -n 3 "$RANKPROG"
expect_rc 0; expect_err "smrun: map: host $(hostname): ranks 0-2 (3)"
run_job --display-map -hosts localhost:2 -n 5 "$RANKPROG"
expect_rc 0; expect_err "smrun: map: host localhost: ranks 0-4 (5)"
run_job --help
for word in "--timestamp-output" "--display-map" "-wdir DIR" "-genvlist" "-genvall" "-q, --quiet" "--mca KEY VALUE" "--oversubscribe" \
            "--allow-run-as-root" "-N N"; do
    expect_out "$word"
done
echo PASS
