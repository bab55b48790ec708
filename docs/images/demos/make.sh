#!/usr/bin/env bash
# Screenshots of every bundled example after 3 s of Run, at a laptop's 1024x700, at 1600x1000,
# and at QT_SCALE_FACTOR=1.5 on a 1920x1080 screen (1280x720 logical pixels): the pictures
# docs/gui.md's "Every demo at three sizes" shows. Run from the repository root after a build:
#     bash docs/images/demos/make.sh [build/app/spikestudio]
# Each picture is taken in a fresh settings directory (first start: default docks, Edit layout,
# which a run turns into the Run layout), offscreen, and reduced to 256 colours.
set -euo pipefail
cd "$(dirname "$0")/../../.."
app=${1:-build/app/spikestudio}
out=docs/images/demos
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
shoot() {  # NAME SIZE SCALE SUFFIX
  rm -rf "$home"/*
  HOME=$home XDG_CONFIG_HOME=$home/.config QT_QPA_PLATFORM=offscreen QT_SCALE_FACTOR=$3 \
    "$app" --size "$2" --run-for 3 --screenshot "$out/$1_$4.png" "resources/examples/$1.json" 2>/dev/null
  convert "$out/$1_$4.png" -strip -colors 256 "PNG8:$out/$1_$4.png"
}
for model in resources/examples/*.json; do
  name=$(basename "$model" .json)
  shoot "$name" 1024x700 1 1024x700
  shoot "$name" 1600x1000 1 1600x1000
  shoot "$name" 1280x720 1.5 scale1.5
  echo "$name"
done
