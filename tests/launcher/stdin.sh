# smrun's stdin goes to rank 0 only, EOF included; the others read
# /dev/null.  A stdin that never ends does not keep smrun alive.
source "$SMAP_SRC/tests/launcher/lib.sh"

printf 'hello\nworld\n' > "$WORK/small"
head -c 3000000 /dev/urandom > "$WORK/big"
for f in small big; do
    want=$(PMI_RANK=0 "$RANKPROG" stdin < "$WORK/$f")
    STDIN="$WORK/$f" run_job -n 3 "$RANKPROG" stdin
    expect_rc 0
    expect_out "$want"
    expect_out "rank 1 stdin bytes=0 sum=0"
    expect_out "rank 2 stdin bytes=0 sum=0"
    expect_within 20
done

# Through a pipe, like "producer | smrun": EOF must reach rank 0.
T0=$(now_ms)
printf 'abc' | "$SMRUN" -n 2 "$RANKPROG" stdin > "$WORK/out" 2> "$WORK/err"
RC=$?; ELAPSED_MS=$(( $(now_ms) - T0 ))
expect_rc 0
expect_out "rank 0 stdin bytes=3"
expect_within 20

# A stdin that stays open (a FIFO we hold) while the ranks ignore it.
mkfifo "$WORK/fifo"
exec 7<>"$WORK/fifo"
STDIN="$WORK/fifo" run_job -n 2 "$RANKPROG" print:done
exec 7>&-
expect_rc 0
expect_within 8
echo PASS
