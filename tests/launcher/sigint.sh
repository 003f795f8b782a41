# SIGINT / SIGTERM / SIGHUP to smrun: forwarded to the job, every rank gone,
# exit 128+signal, nothing left.  (smrun runs as a background job of a
# non-interactive shell, so it even starts with SIGINT ignored.)
source "$SMAP_SRC/tests/launcher/lib.sh"

for sig in INT:130 TERM:143 HUP:129; do
    name=${sig%:*}; code=${sig#*:}
    start_job -n 3 "$RANKPROG" "ready:$WORK" "waitfile:$NEVER"
    wait_ready 3
    pids="$(rank_pid 0) $(rank_pid 1) $(rank_pid 2)"
    kill -"$name" "$SMRUN_PID"
    finish_job
    expect_rc "$code"
    expect_err "smrun: caught SIG$name"
    expect_within 10
    expect_gone $pids
    expect_clean
done
echo PASS
