#!/usr/bin/env bash
# arrays_equal.sh WHAT < PAIRS - compares dumped arrays byte for byte: each input line is "A B", two
# files that must be equal. Prints each pair that differs and a closing count line naming WHAT
# (e.g. "cuda/tc's runs" against cuda/default's); exit 1 when a pair differs or no pair was given.
# Used by the tests that prove two code paths compute the same bits (anneal_tc_same.sh,
# anneal_init_forms.sh).
set -u
n=0 fail=0
while read -r a b; do
  n=$((n + 1))
  if ! cmp -s "$a" "$b"; then
    echo "FAIL: $(basename "$b") differs from $(basename "$a")"
    fail=1
  fi
done
[ "$n" -gt 0 ] || { echo "FAIL: no array to compare"; exit 1; }
echo "ok: $n arrays compared, $1 $([ $fail -eq 0 ] && echo equal || echo DIFFER)"
exit $fail
