#!/bin/sh
# Makes the start page's example thumbnails (NAME.png, 320x200, listed in resources.qrc as
# :/examples/thumbnails/NAME.png): each example runs for a short while in an offscreen
# spikestudio, which pictures its canvas and its plots (--grab, whatever size the window's layout
# gives them); ImageMagick stacks the network above the plots and keeps the file
# small (128 colours, no metadata).
#   resources/examples/thumbnails/make.sh [SPIKESTUDIO]   (default: build/app/spikestudio)
# Rerun it after changing an example or the look of the canvas or plots, then look at them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
app=${1:-$root/build/app/spikestudio}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export QT_QPA_PLATFORM=offscreen
# A first start every time (default docks and layout), whatever the user's settings are.
export HOME="$tmp" XDG_CONFIG_HOME="$tmp/.config"

# NAME and steps to run before the picture (enough for spikes or a few input cycles to show).
while read -r name steps; do
    model=$root/resources/examples/$name.json
    for part in canvas plots; do
        "$app" --size 1280x800 --run-steps "$steps" --grab "$part" --screenshot "$tmp/$part.png" "$model" \
            2>"$tmp/log" || { cat "$tmp/log" >&2; exit 1; }
    done
    # The network above (the whole canvas in a 320x60 strip), the plots below (320x140), each
    # scaled whole and centred on white.
    convert "$tmp/canvas.png" -resize 320x60 -gravity center -background white -extent 320x60 "$tmp/top.png"
    convert "$tmp/plots.png" -resize 320x140 -gravity center -background white -extent 320x140 "$tmp/bottom.png"
    convert "$tmp/top.png" "$tmp/bottom.png" -append -strip +dither -colors 128 "PNG8:$here/$name.png"
    echo "$here/$name.png: $(wc -c <"$here/$name.png") bytes"
done <<LIST
lif_current_step 250
lif_vs_lifrefrac 250
lifrefrac_as_equations 250
fi_curve 300
poisson_feedforward 300
two_layer_lif 200
cuba_network 2000
izhikevich_presets 2000
coba_network 1500
dynamics_network_driven 400
dynamics_network 100
parameter_sweep 300
LIST
