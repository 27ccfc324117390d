#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make run": the main job as far as it exists, run inside the test VM.
# Today: show the loaded modules and open an IPPROTO_QUIC socket of each
# family and type.

set -u
dir=$(cd "$(dirname "$0")" && pwd)

echo "== kernel $(uname -r), modules:"
grep -E '^(quic|prandom_siphash|udp_tunnel|ip6_udp_tunnel) ' /proc/modules |
	awk '{ printf "   %-16s %8d bytes, used by %s\n", $1, $2, $3 }'
echo "== /proc/net/protocols:"
grep -E '^(protocol|QUIC)' /proc/net/protocols | cut -c1-60 | sed 's/^/   /'
echo "== IPPROTO_QUIC sockets:"
"$dir/quic_probe"
