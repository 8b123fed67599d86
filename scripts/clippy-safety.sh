#!/usr/bin/env bash
# Checks docs/clippy-safety.toml, the clippy list that refuses the full crate's entries to a
# program that uses the restricted profile and also depends on the full crate: no GPU needed.
#
#   bash scripts/clippy-safety.sh
#
# 1. copies the list into tests/fixtures/clippy-safety/ as its clippy.toml (clippy.toml cannot
#    include a file), without `allow-invalid = true`: the fixture turns every library's feature
#    on, so every path of the list must resolve; and copies the root Cargo.lock, so that the
#    fixture builds the versions the workspace does, without resolving anything;
# 2. lints the fixture (tests/fixtures/clippy-safety/src/main.rs, a program that calls the full
#    crate's entries beside the profile's own way) with the lints denied, into
#    $CARGO_TARGET_DIR/clippy-safety (target/clippy-safety), so that a second run is cheap;
# 3. requires that clippy fails; that it names each expected item (below), and no other; that no
#    path of the list fails to resolve ("does not refer to"); that no finding points into the
#    profile's own block of main.rs (between its two `clippy-safety:` markers); that the
#    fixture has no other error (a compile error is not a finding); and that every entry of the
#    list has a reason. The last line is a one-line summary.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
fixture=tests/fixtures/clippy-safety
list=docs/clippy-safety.toml

# What main.rs calls or names, each of which clippy must report.
methods=(
    custack::Driver::init
    custack::Context::new
    custack::Context::primary
    custack::Stack::push
    custack::name_launches
    custack::Library::load_ptx
    custack::Device::sm_resource
    custack::nvrtc::Program::compile
    custack::PushedGuard::load_ptx
    custack::PushedGuard::alloc_managed
    custack::PushedGuard::blas
    custack::PushedGuard::rng
    custack::DeviceBuffer::ipc_handle
    custack::Function::suggested_block_size_with
    custack::StreamScope::host_fn
    custack::StreamScope::alloc
    custack::StreamScope::launch
    custack::Stream::submit
)
types=(
    custack::Context
    custack::PushedGuard
)

status=0
fail() {
    echo "clippy-safety: FAIL: $*" >&2
    status=1
}

entries=$(grep -c '{ path = ' "$list")
reasons=$(grep -c '{ path = .*, reason = "[^"]' "$list")
((entries == reasons)) || fail "$list: $((entries - reasons)) of its $entries entries have no reason"

sed 's/, allow-invalid = true//' "$list" >"$fixture/clippy.toml"
cp Cargo.lock "$fixture/Cargo.lock"
rc=0
out=$(cd "$fixture" && CARGO_TARGET_DIR=$target/clippy-safety cargo clippy --quiet --color never -- \
    -D clippy::disallowed_methods -D clippy::disallowed_types 2>&1) || rc=$?

if ((rc == 0)); then
    fail "clippy passed the fixture, which calls what the list disallows"
fi
if grep -q 'does not refer to' <<<"$out"; then
    fail "paths of the list that do not resolve:"
    grep 'does not refer to' <<<"$out" >&2
fi
others=$(grep -E '^error' <<<"$out" | grep -vE '^error: use of a disallowed (method|type) `|^error: could not compile' || true)
[[ -z $others ]] || fail "the fixture has errors that are not findings:"$'\n'"$others"

reported=$(sed -nE 's/^error: use of a disallowed (method|type) `([^`]+)`.*/\1 \2/p' <<<"$out" | sort -u)
expected=$(printf 'method %s\n' "${methods[@]}"; printf 'type %s\n' "${types[@]}")
expected=$(sort -u <<<"$expected")
missing=$(comm -13 <(echo "$reported") <(echo "$expected"))
extra=$(comm -23 <(echo "$reported") <(echo "$expected"))
[[ -z $missing ]] || fail "clippy did not report:"$'\n'"$missing"
[[ -z $extra ]] || fail "clippy reported what the fixture does not expect:"$'\n'"$extra"

begin=$(grep -n "clippy-safety: the profile's own way begins" "$fixture/src/main.rs" | cut -d: -f1)
end=$(grep -n "clippy-safety: the profile's own way ends" "$fixture/src/main.rs" | cut -d: -f1)
[[ -n $begin && -n $end ]] || fail "$fixture/src/main.rs lacks its two markers"
while read -r line; do
    if [[ -n $line && -n $begin && -n $end ]] && ((line > begin && line < end)); then
        fail "a finding in the profile's own way, at src/main.rs:$line"
    fi
done < <(sed -nE 's/^ *--> src\/main\.rs:([0-9]+):.*/\1/p' <<<"$out")

if ((status != 0)); then
    echo "$out" >&2
    exit "$status"
fi
echo "clippy-safety: clippy refuses all ${#methods[@]} disallowed methods and ${#types[@]} types the fixture uses, and nothing in the profile's own calls; all $entries paths of $list resolve"
