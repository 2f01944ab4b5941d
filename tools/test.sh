#!/usr/bin/env bash
# The README's test command: sets up, builds, and runs every test suite
# (native Catch2, the same tests compiled to WASM under node, node --test).
set -uo pipefail
cd "$(dirname "$0")/.."

# Minutes and seconds since the start, after each stage: the suite must stay
# well inside CI's time (the README says how long each stage takes).
elapsed() { printf '%dm%02ds' $((SECONDS / 60)) $((SECONDS % 60)); }

bash tools/setup.sh || exit 1
echo "== set up ($(elapsed))"
bash tools/build.sh || { echo "build failed"; exit 1; }
echo "== built ($(elapsed))"

passed=0
failed=0
tally() {  # name, passed, failed
  echo "== $1: $2 passed, $3 failed ($(elapsed))"
  passed=$((passed + $2))
  failed=$((failed + $3))
}

# Catch2 prints "All tests passed (A assertions in N test cases)" or
# "test cases: N | P passed | F failed".
run_catch() {  # name, command...
  local name=$1 out p f
  shift
  out=$("$@" 2>&1)
  echo "$out" | tail -n 4
  if grep -q '^All tests passed' <<<"$out"; then
    p=$(grep -oE 'in [0-9]+ test case' <<<"$out" | grep -oE '[0-9]+')
    f=0
  else
    echo "$out" | grep -B2 -A12 'FAILED' | head -n 200
    p=$(grep -oE 'test cases: *[0-9]+ \| *[0-9]+ passed' <<<"$out" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
    f=$(grep -oE '[0-9]+ failed' <<<"$out" | head -n 1 | grep -oE '[0-9]+')
    [ -z "$f" ] && f=1
  fi
  tally "$name" "${p:-0}" "$f"
}

echo "== native Catch2"
run_catch native build/vesper_tests --use-colour no
echo "== WASM Catch2 (the same tests compiled with emcc, under node)"
run_catch wasm node --no-experimental-fetch build-wasm/vesper_tests.cjs --use-colour no

echo "== assembling the static site for the browser tests"
node tools/site.mjs || { echo "site assembly failed"; exit 1; }

echo "== node --test (WASM API, inference, CLI, browser)"
node_out=$(node --test tests/node/ tests/browser/ 2>&1)
echo "$node_out" | grep -E '^(not ok|ok) '
grep -q '^not ok' <<<"$node_out" && echo "$node_out" 
np=$(grep -oE '^# pass [0-9]+' <<<"$node_out" | grep -oE '[0-9]+')
nf=$(grep -oE '^# fail [0-9]+' <<<"$node_out" | grep -oE '[0-9]+')
[ -z "$np" ] && { echo "$node_out"; np=0; nf=1; }
tally node "$np" "${nf:-0}"

# Each fuzz target for a short while, from a fixed seed (the regression
# corpus is replayed by the Catch2 suites above); a long campaign is
# `bash tools/fuzz.sh --seconds 3600`.
echo "== fuzz (libFuzzer, ASan, UBSan; 10 s per target)"
fuzz_out=$(bash tools/fuzz.sh --seconds 10 --seed 1 2>&1)
fuzz_rc=$?
echo "$fuzz_out"
# A target passes when it ran (executions counted) and found nothing.
fuzz_rows=$(grep -cE '^[a-z_]+ +([0-9]+|\?) ' <<<"$fuzz_out")
fp=$(grep -cE '^[a-z_]+ +[1-9][0-9]* +[0-9]+ +[0-9]+ +0$' <<<"$fuzz_out")
ff=$((fuzz_rows - fp))
[ "$fuzz_rc" -ne 0 ] && [ "$ff" -le 0 ] && ff=1
tally fuzz "$fp" "$ff"

echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
