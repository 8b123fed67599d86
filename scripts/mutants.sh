#!/usr/bin/env bash
# Mutation testing of the modules that carry custack's safety claims: cargo-mutants (installed
# with `cargo install --locked cargo-mutants` when missing; a verification tool, never a
# dependency) mutates each function of the files below in turn (a body replaced by a default,
# an operator swapped, a condition negated, a match arm deleted) in a scratch copy of the tree,
# and runs the tests that need no GPU against each mutant. A mutant no test fails on "survives":
# either a test is missing or the mutation changes nothing observable, and docs/safety.md says
# which, for each one. Not part of scripts/test.sh: on the 2-core machine each mutant costs a
# build (about a minute), so the whole list takes hours.
#
#   bash scripts/mutants.sh                                   # the files below
#   MUTANTS_FILES="src/safety/profile.rs" bash scripts/mutants.sh
#   MUTANTS_TESTS="--lib" bash scripts/mutants.sh             # the unit tests only
#
# The tests run for each mutant (MUTANTS_TESTS): the unit tests and the integration tests of the
# profile, the confinement, the closed API listing, the errors, initialization without a device
# (the full API outside the profile) and the run phase's allocations.
# The checking driver's programs are not run per mutant (scripts/check-driver.sh takes minutes);
# a survivor they would kill is listed as such. Output: mutants.out/ (cargo-mutants' own:
# caught.txt, missed.txt, timeout.txt, unviable.txt) and one summary line per file.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v cargo-mutants >/dev/null || cargo install --locked cargo-mutants
files=${MUTANTS_FILES:-"src/safety/profile.rs src/safety/image.rs src/error/confinement.rs src/error/poison.rs src/safety/bound.rs src/safety/phase.rs src/safety/context.rs src/safety/scope.rs src/safety/stream.rs src/safety/values.rs src/deadline/mod.rs"}
tests=${MUTANTS_TESTS:-"--lib --test confinement --test safety_profile --test safety_api --test errors --test error_api --test no_device --test zero_alloc"}
args=()
for f in $files; do args+=(-f "$f"); done
# shellcheck disable=SC2086 # the test arguments are words
cargo mutants --no-shuffle --timeout 600 "${args[@]}" -- $tests || true
for f in caught missed timeout unviable; do
    printf '%-9s %s\n' "$f" "$(wc -l <mutants.out/$f.txt 2>/dev/null || echo 0)"
done
echo "missed (survived):"
sed 's/^/    /' mutants.out/missed.txt 2>/dev/null || true
