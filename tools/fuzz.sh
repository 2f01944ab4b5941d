#!/usr/bin/env bash
# Fuzzes the core's loaders and text paths with libFuzzer (clang, ASan and
# UBSan on every object): the pack loader, the static model table, the
# tokenizer model, the persona file, the chunker, the word splitter / BM25,
# the answerability calibration of a model manifest, the persona answering
# a conversation's turn (question and session state) and a model's bilingual
# lexicon with a query translated through it
# (tests/fuzz/targets.cpp says what each does with an input).
#
#   bash tools/fuzz.sh [--seconds N] [--runs R] [--jobs J] [--seed S] [TARGET...]
#
# Seed corpora are small valid files of each kind and the project's own
# files; what libFuzzer adds is kept in build-fuzz/corpus/TARGET between
# runs. Prints per target: executions, seconds, coverage (edges) and crashes;
# exits non-zero on any crash, leak, sanitizer report
# or timeout (an input over 10 s). A crash's input is written to
# build-fuzz/crashes/TARGET/; add it under tests/data/fuzz/TARGET/ and to
# tests/data/fuzz/INDEX so the test command replays it. A campaign is run in
# pieces: `bash tools/fuzz.sh --campaign --seconds 150` (20 minutes for the
# nine targets), committing tests/fuzz/ after each; tests/fuzz/CAMPAIGN.md
# has the totals.
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=60
jobs=1
seed=0  # 0: libFuzzer picks one; the test command fixes it
runs=-1  # executions per target before it stops (-1: until --seconds)
report=""  # --report FILE: the table as Markdown, with the command and machine
campaign=0  # --campaign: a piece of the campaign (see below)
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --report) report=$2; shift 2 ;;
    --campaign) campaign=1; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
all_targets=(pack static_model tokenizer_model persona chunker words calibration answer lexicon row_set split)
[ ${#targets[@]} -eq 0 ] && targets=("${all_targets[@]}")

out=${VESPER_FUZZ_DIR:-build-fuzz}  # build tree, seeds, corpus and crashes
mkdir -p "$out"
CC=clang CXX=clang++ cmake -S . -B "$out" -DVESPER_FUZZ=ON -DVESPER_NATIVE_ARCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$out/configure.log" 2>&1 \
  || { cat "$out/configure.log"; exit 1; }
cmake --build "$out" -j2 --target fuzz_seeds $(printf 'fuzz_%s ' "${targets[@]}") > "$out/build.log" 2>&1 \
  || { tail -n 40 "$out/build.log"; exit 1; }

# Seeds: small valid files of each kind (fuzz_seeds writes packs with HNSW
# graphs and model tables; spm_train tiny tokenizer models), the project's
# own files, and the regression corpus.
rm -rf "$out/seeds"
mkdir -p "$out/seeds"
"$out/fuzz_seeds" "$out/seeds" || exit 1
mkdir -p "$out/seeds/tokenizer_model" "$out/seeds/persona" "$out/seeds/chunker" "$out/seeds/words" "$out/seeds/calibration" "$out/seeds/answer" "$out/seeds/lexicon"
for kind in unigram bpe; do
  spm_train --input=web/kb/karpathy/000_a7129b241560df3c.txt --model_prefix="$out/seeds/tokenizer_model/$kind" \
    --vocab_size=80 --model_type=$kind --character_coverage=0.98 --hard_vocab_limit=false \
    --normalization_rule_name=identity --minloglevel=2 > /dev/null 2>&1 || { echo "spm_train failed"; exit 1; }
  rm -f "$out/seeds/tokenizer_model/$kind.vocab"
done
cp models/test/tokenizer.model "$out/seeds/tokenizer_model/nfkc.model"  # with a normaliser's character map
cp models/test/static-tiny/model.vtab "$out/seeds/static_model/"
cp web/kb/karpathy/persona.json "$out/seeds/persona/"
cp web/kb/karpathy/*.txt tests/data/edge_cases.txt "$out/seeds/chunker/"
cp web/kb/karpathy/*.txt tests/data/edge_cases.txt "$out/seeds/words/"
node -e 'const m = require("./models/default/manifest.json"); process.stdout.write(JSON.stringify(m.answerability))' \
  > "$out/seeds/calibration/default.json" || exit 1
# Conversation turns (tests/fuzz/targets.cpp, Answering): a flags byte, then
# question, topic, passage ids and quoted units separated by NUL bytes.
i=0
for q in 'Why did Tesla decide to rely on cameras instead of LiDAR?' 'O que é Software 2.0?' \
         '为什么从零构建一个最小版本是理解系统最快的方法？' 'exit role-play' 'How many Model 3 did Tesla sell in 2019?'; do
  printf '\x02%s\0%s\0%s\0%s' "$q" 'What is micrograd?' '000_a7129b241560df3c.txt#3' '000_a7129b241560df3c.txt#3:1' \
    > "$out/seeds/answer/turn-$i"
  i=$((i + 1))
done
# Lexicon slices (the shipped table is MBs): each direction's lines and the
# function words, then a NUL and a query.
for lang in en pt zh; do
  { grep -m 40 -P "^$lang\t" models/default/lexicon.tsv; grep -m 10 -P "^$lang\t[^\t]*\t-$" models/default/lexicon.tsv
    printf '\0%s' 'Why did Tesla bet on cameras? Por que a câmera? 为什么用摄像头？'; } > "$out/seeds/lexicon/$lang.tsv"
done
for t in "${all_targets[@]}"; do
  [ -d "tests/data/fuzz/$t" ] && cp "tests/data/fuzz/$t"/* "$out/seeds/$t/"
done

# Text targets run on inputs up to 8 kB (fast, and where the branches are);
# the regression corpus replays the long ones. Files keep their full size.
max_len() {
  case "$1" in
    chunker|words|lexicon) echo 8192 ;;
    *) echo 0 ;;  # libFuzzer's default: the largest seed
  esac
}

# A campaign piece (--campaign): after each target, the inputs of this run
# that reach coverage the committed corpus does not are merged into
# tests/fuzz/corpus/TARGET (libFuzzer -merge=1), the piece is appended to
# tests/fuzz/campaign.tsv and tests/fuzz/CAMPAIGN.md is rewritten from it
# (totals per target, then every piece). Commit both between pieces. The
# test command replays the committed corpus (it seeds every run).
record_piece() {  # target executions seconds coverage crashes
  "$out/fuzz_$1" -merge=1 "tests/fuzz/corpus/$1" "$out/corpus/$1" > "$out/$1.merge.log" 2>&1 \
    || { echo "merge failed for $1"; tail -n 5 "$out/$1.merge.log"; }
  # Inputs over 16 kB (whole tokenizer models, whole persona files) stay in
  # build-fuzz/corpus only: the committed corpus is for the repository.
  find "tests/fuzz/corpus/$1" -type f -size +16k -delete
  local files
  files=$(find "tests/fuzz/corpus/$1" -type f | wc -l)
  [ -f tests/fuzz/campaign.tsv ] || printf 'date\ttarget\texecutions\tseconds\tcoverage\tcrashes\tcorpus\n' > tests/fuzz/campaign.tsv
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$1" "$2" "$3" "$4" "$5" "$files" >> tests/fuzz/campaign.tsv
  write_campaign_md
}

# A unit libFuzzer reports as slow or timed out is run again alone: a niced
# piece on a busy machine (a build beside it) can be starved past the limit
# by an input that takes milliseconds (a lexicon "slow unit" of 11 s ran in
# 30 ms alone). One that finishes well within the limit moves to
# build-fuzz/unconfirmed/TARGET and is not counted; the rest stay findings.
confirm_slow() {  # target
  local f took
  for f in "$crashes"/slow-unit-* "$crashes"/timeout-*; do
    [ -f "$f" ] || continue
    local began=$(date +%s%N)
    timeout 60 "$out/fuzz_$1" "$f" > /dev/null 2>&1
    took=$(( ($(date +%s%N) - began) / 1000000 ))
    if [ "$took" -lt 2000 ]; then
      mkdir -p "$out/unconfirmed/$1" && mv "$f" "$out/unconfirmed/$1/"
      echo "$1: $(basename "$f") ran in $took ms alone: not counted (build-fuzz/unconfirmed/$1/)"
    fi
  done
}

write_campaign_md() {
  {
    echo "# Fuzzing campaign"
    echo
    echo "Pieces of \`bash tools/fuzz.sh --campaign --seconds N\` (libFuzzer, clang $(clang --version | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n 1),"
    echo "\`-fsanitize=fuzzer,address,undefined\` on every object; $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))."
    echo "Each piece starts from the committed corpus (tests/fuzz/corpus/) and the local one (build-fuzz/corpus/) and merges"
    echo "back what adds coverage; inputs over 16 kB stay local (corpus files counts what is committed)."
    echo "Written by tools/fuzz.sh from tests/fuzz/campaign.tsv; coverage is libFuzzer's count of covered edges (the largest seen)."
    echo
    echo "## Totals"
    echo
    echo "| target | pieces | executions | hours | coverage | crashes | corpus files |"
    echo "|---|---|---|---|---|---|---|"
    awk -F'\t' 'NR > 1 { n[$2]++; e[$2] += $3; s[$2] += $4; if ($5 > c[$2]) c[$2] = $5; x[$2] += $6; f[$2] = $7; if (!($2 in o)) o[$2] = ++k }
      END { for (t in o) order[o[t]] = t; for (i = 1; i <= k; i++) { t = order[i]; printf "| %s | %d | %d | %.2f | %d | %d | %d |\n", t, n[t], e[t], s[t] / 3600, c[t], x[t], f[t] } }' tests/fuzz/campaign.tsv
    echo
    echo "## Pieces"
    echo
    echo "| date (UTC) | target | executions | seconds | coverage | crashes | corpus files |"
    echo "|---|---|---|---|---|---|---|"
    awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7 }' tests/fuzz/campaign.tsv
    # What each crash was and what fixed it (hand-written; its inputs are
    # in tests/data/fuzz/, replayed by the test command).
    if [ -f tests/fuzz/findings.md ]; then echo; cat tests/fuzz/findings.md; fi
  } > tests/fuzz/CAMPAIGN.md
}

status=0
parallel=""
[ "$jobs" -gt 1 ] && parallel="-jobs=$jobs -workers=$jobs"
rows=()
printf '%-16s %12s %9s %10s %8s\n' target executions seconds coverage crashes
for t in "${targets[@]}"; do
  corpus="$out/corpus/$t" crashes="$out/crashes/$t"
  mkdir -p "$corpus"
  rm -rf "$crashes"; mkdir -p "$crashes"  # this run's findings only
  log="$out/$t.log"
  start=$(date +%s)
  mkdir -p "tests/fuzz/corpus/$t"
  "$out/fuzz_$t" "$corpus" "$out/seeds/$t" "tests/fuzz/corpus/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
    -max_len="$(max_len "$t")" -seed="$seed" -runs="$runs" $parallel \
    -artifact_prefix="$crashes/" -print_final_stats=1 > "$log" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  # With --jobs, libFuzzer echoes each job's log (fuzz-N.log) into the main
  # one as the job ends: the main log holds every job's statistics once.
  execs=$(grep -hoE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | awk '{ s += $1 } END { print s }')
  cov=$(grep -hoE 'cov: [0-9]+' "$log" | grep -oE '[0-9]+' | sort -n | tail -n 1)
  rm -f fuzz-*.log
  confirm_slow "$t"
  found=$(find "$crashes" -type f | wc -l)
  printf '%-16s %12s %9s %10s %8s\n' "$t" "${execs:-?}" "$took" "${cov:-?}" "$found"
  rows+=("| $t | ${execs:-?} | $(awk -v s="$took" 'BEGIN { printf "%.2f", s / 3600 }') | ${cov:-?} | $found |")
  if [ "$campaign" = 1 ]; then record_piece "$t" "${execs:-0}" "$took" "${cov:-0}" "$found"; fi
  if [ "$rc" -ne 0 ] || [ "$found" -gt 0 ] || [ -z "$execs" ]; then
    status=1
    grep -E 'ERROR|SUMMARY|==[0-9]+==|Test unit written' "$log" | head -n 20
  fi
done

if [ -n "$report" ]; then
  {
    echo "# Fuzzing campaign"
    echo
    echo "\`bash tools/fuzz.sh --seconds $seconds --runs $runs --jobs $jobs --seed $seed ${targets[*]}\`"
    echo "on $(date -u +%Y-%m-%d), $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"
    echo "clang $(clang --version | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n 1), -fsanitize=fuzzer,address,undefined; a target stops at"
    echo "its execution count or its time, whichever comes first. Coverage is libFuzzer's count of covered edges."
    echo
    echo "| target | executions | hours | coverage | crashes |"
    echo "|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
  } > "$report"
fi
exit $status
