#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make bench": micro-benchmarks measured side by side in one VM boot.
# Prints figures and ratios; asserts nothing.

set -u
dir=$(cd "$(dirname "$0")" && pwd)

# bench_module MODULE: load MODULE with bench=1 and print its figures.
bench_module() {
	local mod=$1 before
	before=$(dmesg | wc -l)
	modprobe "$mod" bench=1 || { echo "$mod: cannot load"; return; }
	dmesg -t | tail -n +"$((before + 1))" | grep '^# bench:' | sed 's/^# bench: /  /'
	rmmod "$mod"
}

echo "== kernel $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
echo "== prandom_siphash (ns per call; lower is faster)"
bench_module test_prandom_siphash | tee /tmp/bench-prandom
# Ratios against prandom_siphash_u32, measured in the same boot.
awk '$1 == "prandom_siphash_u32" { base = $2 }
     { ns[$1] = $2 }
     END {
	if (!base)
		exit
	for (f in ns)
		if (f != "prandom_siphash_u32")
			printf "  ratio %s/prandom_siphash_u32 %.2f\n", f, ns[f] / base
     }' /tmp/bench-prandom | sort
echo "== QUIC hashing (ns per lookup hash)"
bench_module quic_test
