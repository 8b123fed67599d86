#!/usr/bin/env bash
# Mutation testing of the modules that carry custack's safety claims: cargo-mutants (installed
# with `cargo install --locked cargo-mutants` when missing; a verification tool, never a
# dependency) mutates each function of the files below in turn (a body replaced by a default,
# an operator swapped, a condition negated, a match arm deleted) in a scratch copy of the tree,
# and runs the tests that need no GPU against each mutant. A mutant no test fails on "survives":
# either a test is missing or the mutation changes nothing observable, and docs/safety.md says
# which, for each one. Not part of scripts/test.sh: on the 2-core machine each mutant costs a
# build (10 to 70 seconds), so the whole list takes one and a half hours (the first two passes
# of docs/safety.md, 40 and 47 minutes); the third, of the lines changed since the second, 6.
#
#   bash scripts/mutants.sh                                   # the files below
#   MUTANTS_FILES="src/safety/profile.rs" bash scripts/mutants.sh
#   MUTANTS_TESTS="--lib" bash scripts/mutants.sh             # the unit tests only
#   MUTANTS_RE='^src/safety/' bash scripts/mutants.sh         # only the mutants so named
#   MUTANTS_IN_DIFF=84cdfff bash scripts/mutants.sh           # only lines changed since 84cdfff
#
# MUTANTS_IN_DIFF=<rev> mutates only the lines of the files below that differ between <rev> and
# the working tree (cargo-mutants' `--in-diff`, given `git diff <rev> -- FILES`, written to
# target/mutants.diff): a later pass covers what came after an earlier one without rerunning it.
#
# Files: the profile, its init and run phases and their values, the confinement and the poison,
# the wait bound, the deadlines, redundant execution, the restricted graph builder, and of
# `src/driver/mod.rs` only the init path (`Driver::init`, `init_without_callbacks`,
# `register_logs`): the rest of that file are queries for reports. MUTANTS_RE (cargo-mutants'
# `--re`, matched against the mutant's whole name, `FILE:LINE:COL: replace ...`) keeps the
# mutants it matches, of every file; the default keeps every mutant of the files but those of
# `src/driver/mod.rs` outside the init path.
#
# The tests run for each mutant (MUTANTS_TESTS): the unit tests and the integration tests of the
# profile, the confinement, the closed API listing, the errors, initialization without a device
# (the full API outside the profile), the run phase's allocations, redundant execution's
# comparison and the safety manual's thread column.
# The checking driver's programs are not run per mutant (scripts/check-driver.sh takes minutes):
# a survivor is applied by hand and the programs run on it (CHECK_PROGRAMS, CHECK_PASSES=faults,
# or CHECK_PASSES=inject for `redundant_inject`, the comparison on the device), and
# docs/safety.md lists the program that kills it (`restricted_scope`, `driver_init` and
# `restricted_redundant` were written for such survivors). A mutant whose tests run past
# MUTANTS_TIMEOUT seconds (default 120; the unmutated tests take seconds) counts as caught by a
# hang (timeout.txt). Output: mutants.out/ (cargo-mutants' own: caught.txt, missed.txt, timeout.txt,
# unviable.txt) and one summary line per file.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v cargo-mutants >/dev/null || cargo install --locked cargo-mutants
files=${MUTANTS_FILES:-"src/safety/profile.rs src/safety/image.rs src/error/confinement.rs src/error/poison.rs src/safety/bound.rs src/safety/phase.rs src/safety/context.rs src/safety/scope.rs src/safety/stream.rs src/safety/values.rs src/deadline/mod.rs src/driver/mod.rs src/safety/redundant.rs src/safety/partitioned.rs src/safety/graph.rs"}
tests=${MUTANTS_TESTS:-"--lib --test confinement --test safety_profile --test safety_api --test errors --test error_api --test no_device --test zero_alloc --test redundancy --test safety_manual"}
re=${MUTANTS_RE:-'^src/driver/mod\.rs:.*(Driver::init |init_without_callbacks|register_logs)|^src/(safety|error|deadline)/'}
args=()
for f in $files; do args+=(-f "$f"); done
if [ -n "${MUTANTS_IN_DIFF:-}" ]; then
    mkdir -p target
    # shellcheck disable=SC2086 # the files are words
    git diff "$MUTANTS_IN_DIFF" -- $files >target/mutants.diff
    args+=(--in-diff target/mutants.diff)
fi
# shellcheck disable=SC2086 # the test arguments are words
cargo mutants --no-shuffle --timeout "${MUTANTS_TIMEOUT:-120}" "${args[@]}" --re "$re" -- $tests || true
for f in caught missed timeout unviable; do
    printf '%-9s %s\n' "$f" "$(wc -l <mutants.out/$f.txt 2>/dev/null || echo 0)"
done
echo "missed (survived):"
sed 's/^/    /' mutants.out/missed.txt 2>/dev/null || true
