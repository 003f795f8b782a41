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
for word in "-n N" "-np N" "-x VAR" "-genv VAR VALUE" "--bind-to core|none" "--report-bindings" \
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
echo PASS
