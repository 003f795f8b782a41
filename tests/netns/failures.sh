echo PASS
