#!/bin/bash
# Builds Poisson(100) -> LIF(100) -> LIF(50) from an empty network by real input under Xvfb, as a
# user would (docs/gui.md, "Building a network from an empty canvas"), and saves the screenshots
# of that section here. Needs xvfb, xdotool and imagemagick; run from the repository root after a
# build: bash docs/images/journey/make.sh [build/app/spikestudio]
set -e
app=${1:-build/app/spikestudio}
out=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
export DISPLAY=:97
Xvfb :97 -screen 0 1600x1000x24 >/dev/null 2>&1 &
xvfb=$!
trap 'kill $app_pid $xvfb 2>/dev/null; rm -rf "$tmp"' EXIT
sleep 1
echo '{"format": "spikestudio.model", "version": 1, "model": {"type": "Network"}}' > "$tmp/empty.json"
HOME=$tmp XDG_CONFIG_HOME=$tmp/.config "$app" --size 1600x1000 "$tmp/empty.json" >/dev/null 2>&1 &
app_pid=$!
sleep 4
type_node() {  # x y text: type on the canvas with the pointer there, Enter in the quick-add list
  xdotool mousemove "$1" "$2"; sleep 0.4
  xdotool type --delay 50 "$3"; sleep 0.6
  xdotool key Return; sleep 0.8
}
drag() {  # x1 y1 x2 y2
  xdotool mousemove "$1" "$2" mousedown 1 sleep 0.2 mousemove $(( ($1 + $3) / 2 )) "$2" sleep 0.2 \
    mousemove "$3" "$4" sleep 0.2 mouseup 1
  sleep 1
}
type_node 400 300 "PoissonSource 100"
type_node 700 300 "LIF 100"
type_node 1000 300 "LIF 50"
import -window root "$out/journey_nodes.png"
drag 488 355 598 355            # poissonsource.out -> lif.in: equal sizes, a plain wire
drag 787 355 898 355            # lif.spikes -> lif_2.in: 100 -> 50 opens the kind menu
import -window root "$out/journey_kind_menu.png"
xdotool key Down Return; sleep 1  # Sparse random
xdotool mousemove 540 355 click 1; sleep 1  # select the plain wire: its panel
xdotool mousemove 1400 132 click 1; sleep 0.8  # the Projection kind
xdotool key End Return; sleep 1   # Sparse random
xdotool mousemove 40 38 click 1; sleep 5  # Run
import -window root "$out/journey_running.png"
