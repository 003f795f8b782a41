# Malformed PMI requests: the launcher names the rank and the reason
# ("smrun: rank 1: PMI protocol error: ..."), stops the job, exits non-zero
# within seconds, and leaves nothing behind.
source "$SMAP_SRC/tests/launcher/lib.sh"

bad_case() {   # reason step...
    local why=$1; shift
    run_job -n 2 "$PMI_CLIENT" "ready:$WORK" @0:sleep:20 "@1:waitfile:$WORK/ready.0" "$@" @1:sleep:20
    expect_rc 1
    expect_err "smrun: rank 1: PMI protocol error: $why"
    expect_within 8
    expect_gone $(rank_pid 0) $(rank_pid 1)
    expect_clean
}

bad_case "line does not start with cmd="        @1:send:foo=bar
bad_case "line does not start with cmd="        "@1:send:   "
bad_case "token without '='"                    @1:init "@1:send:cmd=get_maxes garbage"
bad_case "unknown command 'frobnicate'"         @1:init @1:send:cmd=frobnicate
bad_case "cmd=put before cmd=init"              "@1:send:cmd=put kvsname=x key=a value=b"
bad_case "cmd=barrier_in before cmd=init"       @1:send:cmd=barrier_in
bad_case "invalid value"                        @1:init "@1:send:cmd=put kvsname={kvs} key=a value="
bad_case "put without value="                   @1:init "@1:send:cmd=put kvsname={kvs} key=a"
bad_case "missing kvsname= or key="             @1:init "@1:send:cmd=get key=a"
bad_case "empty key"                            @1:init "@1:send:cmd=get =x"
bad_case "control character in line"           @1:init @1:ctrl
bad_case "line too long"                        @1:init @1:oversize:3000
bad_case "barrier_in while already waiting"     @1:init @1:send:cmd=barrier_in @1:send:cmd=barrier_in
echo PASS
