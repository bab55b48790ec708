#!/usr/bin/env bash
# Collects each fuzz target's seed corpus from the repository's own files into OUT/<target>/
# (copies, so libFuzzer may add to them without touching the sources), plus the target's
# committed regressions (tests/fuzz/regressions/<target>/*, not the .expected files).
# Usage: tests/fuzz/seed_corpus.sh OUT
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:?usage: seed_corpus.sh OUT}"

collect() {  # collect TARGET FILE...
  local target="$1"; shift
  mkdir -p "$out/$target"
  local f
  for f in "$@"; do
    [ -f "$f" ] || continue
    # Name by path so files of the same name from different folders do not collide.
    cp "$f" "$out/$target/$(echo "${f#"$root"/}" | tr '/' '_')"
  done
  for f in "$root/tests/fuzz/regressions/$target"/*; do
    [ -f "$f" ] && [ "${f%.expected}" = "$f" ] && cp "$f" "$out/$target/regression_$(basename "$f")"
  done
  return 0
}

mapfile -t json < <(find "$root/resources/examples" "$root/tests/data" -name '*.json' -size -64k | sort)
mapfile -t npy < <(find "$root/tests/data" -name '*.npy' -size -64k | sort)
mapfile -t npz < <(find "$root/tests/data" -name '*.npz' -size -64k | sort)
mapfile -t nir < <(find "$root/tests/data" -name '*.nir' -size -256k | sort)
mapfile -t eqs < <(find "$root/engine/neurons/models" -name '*.model' | sort)

collect fuzz_model_json "${json[@]}"
collect fuzz_npy "${npy[@]}" "${npz[@]}"
collect fuzz_state_dict "${npy[@]}"
collect fuzz_nir "${nir[@]}"
collect fuzz_equations "${eqs[@]}"
# Option values: the forms spikesim's documentation and tests use.
mkdir -p "$out/fuzz_cli_values"
printf '%s\n' '--current' '0:2e-9:11' > "$out/fuzz_cli_values/fi_current"
printf '%s\n' '--param' 'tau_mem=0.01:0.05:5' '--param' 'v_th=-55e-3:-45e-3:3' > "$out/fuzz_cli_values/sweep_param"
printf '%s\n' '-0.08:-0.03,-0.01:0.02' '--current' '1e-9' > "$out/fuzz_cli_values/phase_range"
printf '%s\n' '--steps' '500' '--dt' '1e-4' '--seed' '7' '--discretisation' 'exact' \
  '--time-unit' 'steps' '--realtime' '1.5' '--grid' '21' > "$out/fuzz_cli_values/run_options"
collect fuzz_cli_values
for t in "$out"/*/; do
  echo "seed corpus $(basename "$t"): $(ls "$t" | wc -l) files"
done
