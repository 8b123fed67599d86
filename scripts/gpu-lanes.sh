#!/usr/bin/env bash
# A release's GPU evidence in one command on a machine of several GPUs (nvidia-h100-x4), one
# lane per GPU, so that what takes about twenty minutes on one GPU fits one command's ten:
#
#   lane 0      bash .gpu/run.sh over every packed binary but test-gpu_load (the baseline
#               report, $OUT/lane0/gpu-report.json), then test-gpu_load alone ($OUT/lane0/load/)
#   lanes 1..   SANITIZE=1 bash .gpu/run.sh, each over its share of the test binaries (every
#               test binary but test-gpu_load, dealt in turn; $OUT/laneK/san/)
#   LANES_PAIR  (optional) a command run, once the sanitizer of the last two lanes is done, on
#               their two GPUs together (CUDA_VISIBLE_DEVICES=N-2,N-1, both lanes' CPUs, in the
#               last lane's copy; its output in $OUT/laneN-1/pair.out): the two-GPU tests
#   then        each lane, until LANES_SECONDS after the start, one fault_to_frame cell of
#               LANES_CELLS (its K-th word, `SCENARIO:INTERFERENCE`, e.g. `sticky:cpu`; none
#               if the list is shorter), 1,000 runs asked, cut at the time left
#
# From the repository root, after `tar xzf .gpuz/bundle.tgz` (scripts/gpu-bundle.sh, with
# --bench fault_to_frame among its benches when LANES_CELLS is set):
#
#   LANES_SECONDS=560 LANES_CELLS="sticky:cpu watchdog:gpu hung:pcie sticky:gpu" bash scripts/gpu-lanes.sh
#
# Each lane runs in its own copy of the repository under /tmp/gpu-lanes (run.sh keeps its state
# under .gpu/), sees its GPU alone (CUDA_VISIBLE_DEVICES=K: a test that needs two GPUs skips as
# on a one-GPU machine) and runs on its share of the CPUs (taskset), so that a cell's CPU
# interferers spin on the lane's own CPUs only and stand for a machine of that many cores.
# run.sh's RUN_UNTIL ends every lane's binaries by the deadline and still writes the report.
# What comes back: $OUT/lanes.tgz (every lane's logs and reports), the baseline and the merged
# sanitizer report ($OUT/gpu-report.json, $OUT/gpu-report-sanitize.json: the lanes' sanitizer
# reports as one, `only` naming every binary they ran) and $OUT/lanes.txt (what each lane did).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
export LANES_ROOT=$root # for LANES_PAIR: what the lanes' copies leave out (.gpuz/)
die() { echo "scripts/gpu-lanes.sh: $*" >&2; exit 2; }
[[ -x .gpu/run.sh && -f .gpu/list ]] || die "no .gpu/ here: tar xzf .gpuz/bundle.tgz first"
command -v taskset >/dev/null || die "no taskset"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
((gpus >= 2)) || die "needs two GPUs or more, this machine has ${gpus:-0}: run .gpu/run.sh instead"
out=${OUT:-/tmp/gpu-lanes-out}
mkdir -p "$out"
start=$(date +%s)
end=$((start + ${LANES_SECONDS:-560}))
cpus=$(nproc)
per=$((cpus / gpus))
read -r -a cells <<<"${LANES_CELLS:-}"

# The test binaries for the sanitizer, dealt to lanes 1..gpus-1 in turn.
mapfile -t tests < <(awk '$1 == "test" && $2 != "test-gpu_load" { print $2 }' .gpu/list)
declare -a share
for i in "${!tests[@]}"; do
    k=$((1 + i % (gpus - 1)))
    share[k]+="${tests[i]} "
done

lane() {
    local k=$1 dir=/tmp/gpu-lanes/$1 lo=$(($1 * per)) hi=$(($1 * per + per - 1)) pair=${LANES_PAIR:-}
    local o=$out/lane$k
    rm -rf "$dir"
    mkdir -p "$dir" "$o"
    tar --exclude=./.gpuz -cf - . | tar -xf - -C "$dir"
    cd "$dir" || return 1
    export CUDA_VISIBLE_DEVICES=$k
    # A JIT cache of the lane's own: the driver's default one (~/.nv/ComputeCache) is shared by
    # every process of the machine, so one lane's compile would be another's cache hit.
    export CUDA_CACHE_PATH=$dir/.nv-cache
    local pin=(taskset -c "$lo-$hi")
    ((per > 0)) || pin=() # fewer CPUs than GPUs: no pinning
    {
        echo "lane $k: GPU $k, CPUs $lo-$hi, started $(($(date +%s) - start)) s after the start"
        if ((k == 0)); then
            ONLY="$(awk '$2 != "test-gpu_load" { print $2 }' .gpu/list | tr '\n' ' ') c-safety_frame" \
                RUN_UNTIL=$end OUT=$o "${pin[@]}" bash .gpu/run.sh >"$o/run.out" 2>&1
            echo "lane 0: run.sh exit $? at $(($(date +%s) - start)) s"
            ONLY=test-gpu_load RUN_UNTIL=$end OUT=$o/load "${pin[@]}" bash .gpu/run.sh >"$o/load.out" 2>&1
            echo "lane 0: test-gpu_load exit $? at $(($(date +%s) - start)) s"
        elif [[ -n ${share[k]:-} ]]; then
            SANITIZE=1 ONLY="${share[k]}" RUN_UNTIL=$end OUT=$o/san "${pin[@]}" bash .gpu/run.sh >"$o/san.out" 2>&1
            echo "lane $k: sanitizer over ${share[k]}exit $? at $(($(date +%s) - start)) s"
        fi
        if [[ -n $pair ]] && ((gpus >= 3 && k >= gpus - 2)); then
            # The pair: the next-to-last lane marks its end; the last runs the command on both.
            if ((k == gpus - 2)); then
                touch "$out/.pair-ready"
                while [[ ! -e $out/.pair-done ]]; do sleep 1; done
            else
                while [[ ! -e $out/.pair-ready ]]; do sleep 1; done
                echo "lane $k: the pair command on GPUs $((k - 1)),$k at $(($(date +%s) - start)) s"
                local both=(taskset -c "$(((k - 1) * per))-$hi")
                ((per > 0)) || both=()
                CUDA_VISIBLE_DEVICES=$((k - 1)),$k timeout -k 5 $((end - $(date +%s))) \
                    "${both[@]}" bash -c "$pair" >"$o/pair.out" 2>&1
                echo "lane $k: the pair command exit $? at $(($(date +%s) - start)) s"
                touch "$out/.pair-done"
            fi
        fi
        local cell=${cells[k]:-} left
        left=$((end - $(date +%s) - 15))
        if [[ -n $cell ]] && ((left > 30)); then
            echo "lane $k: fault_to_frame ${cell%%:*} under ${cell##*:} for at most $left s"
            OUT=$o "${pin[@]}" bash scripts/timing-runs.sh fault_to_frame --runs 1000 \
                --scenarios "${cell%%:*}" --interference "${cell##*:}" --cell-max-s "$left" >"$o/cell.out" 2>&1
            echo "lane $k: fault_to_frame exit $? at $(($(date +%s) - start)) s"
        fi
    } >"$o/lane.txt" 2>&1
}

rm -f "$out/.pair-ready" "$out/.pair-done"
for ((k = 0; k < gpus; k++)); do lane "$k" & done
wait
cd "$root" || exit 1
cat "$out"/lane*/lane.txt >"$out/lanes.txt"
cp "$out/lane0/gpu-report.json" "$out/gpu-report.json" 2>/dev/null
python3 - "$out" <<'MERGE'
import glob, json, sys
out = sys.argv[1]
parts = [json.load(open(p)) for p in sorted(glob.glob(f"{out}/lane*/san/gpu-report.json"))]
if parts:
    merged = dict(parts[0])
    builds = [b for b in parts[0]["binaries"] if b["role"] == "build"]
    merged["binaries"] = builds + [b for p in parts for b in p["binaries"] if b["role"] != "build"]
    merged["only"] = " ".join(" ".join(p.get("only") or "" for p in parts).split())
    tests = [t for b in merged["binaries"] for t in b.get("tests", [])]
    merged["totals"] = {
        "binaries": len(merged["binaries"]),
        "binaries_failed": sum(b["outcome"] == "FAILED" for b in merged["binaries"]),
        "binaries_not_run": sum(b["outcome"] == "not-run" for b in merged["binaries"]),
        "tests": len(tests),
        **{r: sum(t["result"] == r for t in tests) for r in ("ok", "FAILED", "ignored", "unparsed")},
    }
    merged["all_passed"] = all(p["all_passed"] for p in parts)
    merged["lanes"] = len(parts)
    with open(f"{out}/gpu-report-sanitize.json", "w") as f:
        json.dump(merged, f, indent=2)
        f.write("\n")
    print(f"gpu-lanes: the sanitizer's {len(parts)} lanes as one report: {merged['totals']}")
MERGE
tar czf "$out/lanes.tgz" -C "$out" $(cd "$out" && ls -d lane*/) 2>/dev/null
rm -rf "$out"/lane*/ "$out/.pair-ready" "$out/.pair-done"
cat "$out/lanes.txt"
echo "gpu-lanes: done in $(($(date +%s) - start)) s"
