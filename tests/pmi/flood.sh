# Floods: 10 MB without a newline on the PMI socket, and requests sent
# without ever reading the replies.  The launcher neither crashes nor
# hangs nor grows: protocol error, job stopped, non-zero exit.
source "$SMAP_SRC/tests/launcher/lib.sh"

run_job -n 2 "$PMI_CLIENT" init @1:flood:10000000 @1:sleep:20 @0:sleep:20
expect_rc 1
expect_err "smrun: rank 1: PMI protocol error: line too long"
expect_within 8
expect_clean

# Without even an init first.
run_job -n 2 "$PMI_CLIENT" @0:flood:10000000 @0:sleep:20 @1:sleep:20
expect_rc 1
expect_err "smrun: rank 0: PMI protocol error: line too long"
expect_within 8
expect_clean

run_job -n 2 "$PMI_CLIENT" init @1:reqflood:2000000 @1:sleep:20 @0:sleep:20
expect_rc 1
expect_err "smrun: rank 1: PMI protocol error: the rank does not read its PMI responses"
expect_within 15
expect_clean
echo PASS
