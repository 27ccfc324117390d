#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make bench", impaired path (run by bench.sh): across the router of
# topo.sh, the client's link a 10 Mbit/s bottleneck, 15 ms each way (30 ms
# RTT). Goodput of h3client and ngtcp2's gtlsclient from our h3server
# (CUBIC) and of iperf3 TCP CUBIC, then one QUIC flow against one TCP flow.
# Under TCG the guest's CPU may not keep up with even 10 Mbit/s of QUIC:
# path-quic-clean, the same download without netem, comes first, so that a
# reader sees whether the link or the CPU is the bottleneck.
# BENCH_PATH_MIB (default 10) sizes the goodput downloads, BENCH_FAIR_MIB
# (default 15) the QUIC flow against iperf3's 30 s. Asserts nothing.

set -u
dir=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$dir/../../../../../.." && pwd)
OUT=${OUT:-$repo/.vm}
. "$dir/../topo.sh"

h3=$repo/tools/quic/http3
mib=${BENCH_PATH_MIB:-10}
fmib=${BENCH_FAIR_MIB:-15}
port=4601
iport=4602
log=$OUT/bench_paths.log
{ mkdir -p "$OUT" && : >"$log"; } 2>/dev/null || log=/dev/null
tmp=$(mktemp -d)
srv_pid=

trap '[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; topo_down; rm -rf "$tmp"' EXIT

skip() { echo "  path: skipped, $1"; exit 0; }

echo "== impaired path, 10 Mbit/s and 30 ms RTT across a router" \
	"(MB/s, 10^6 bytes; higher is faster)"
for p in ip tc openssl sha256sum; do
	command -v $p >/dev/null || skip "no $p"
done
[ -x "$h3/h3client" ] && [ -x "$h3/h3server" ] || skip "h3client/h3server not built"
modprobe -q virtio_rng 2>/dev/null
topo_up >>"$log" 2>&1 || skip "no topology (veth, netns)"
# The senders hand the router one packet per skb, not 64 KB GSO bursts,
# so that netem's limit (below) counts packets as they are on the wire.
ip -n "$TOPO_QC" link set c0 gso_max_segs 1 >>"$log" 2>&1
ip -n "$TOPO_QS" link set s0 gso_max_segs 1 >>"$log" 2>&1
topo_cert "$tmp" 2>>"$log" || skip "no certificate"
mkdir -p "$tmp/www" "$tmp/got"
head -c $((mib << 20)) /dev/urandom >"$tmp/www/f.bin"
head -c $((fmib << 20)) /dev/urandom >"$tmp/www/fair.bin"
# Not through topo_server: $! must be h3server itself.
ip netns exec "$TOPO_QS" "$h3/h3server" --cc cubic -d "$tmp/www" $TOPO_S4 \
	$port "$tmp/key.pem" "$tmp/cert.pem" >>"$log" 2>&1 &
srv_pid=$!
sleep 1

# get h3|gtls FILE: download FILE with h3client or gtlsclient, check its
# SHA-256; print "MB/s seconds end", by h3client's own summary line
# (handshake excluded) or, for gtlsclient, timed from outside, and the
# wall-clock time the client ended; nothing if it failed.
get() {
	local f=$2 out rc t0 t1
	rm -f "$tmp/got/$f"
	t0=$(date +%s.%N)
	if [ "$1" = h3 ]; then
		out=$(timeout 300 ip netns exec "$TOPO_QC" "$h3/h3client" -t 240 \
			--ca "$tmp/cert.pem" -o "$tmp/got/$f" \
			"https://$TOPO_S4:$port/$f" 2>&1)
	else
		out=$(timeout 300 ip netns exec "$TOPO_QC" gtlsclient -q \
			--exit-on-all-streams-close --download "$tmp/got" \
			$TOPO_S4 $port "https://$TOPO_S4:$port/$f" 2>&1)
	fi
	rc=$?
	t1=$(date +%s.%N)
	echo "$1 $f: status $rc $out" >>"$log"
	[ $rc = 0 ] && [ "$(sha256sum 2>/dev/null <"$tmp/got/$f" | cut -d' ' -f1)" = \
		"$(sha256sum <"$tmp/www/$f" | cut -d' ' -f1)" ] || return 1
	echo "$out" | awk -v b="$(stat -c %s "$tmp/www/$f")" -v t0="$t0" \
		-v t1="$t1" -v k="$1" 'BEGIN { t = t1 - t0 }
		k == "h3" && /^h3client: 200 / { t = $6 }
		END { printf "%.4f %s %s\n", b / t / 1e6, t, t1 }'
}

# tcp ARGS...: iperf3 TCP CUBIC from a one-off server in the server
# namespace, which sends (-R: the same way as the downloads); the JSON
# report to stdout.
tcp() {
	local spid
	ip netns exec "$TOPO_QS" iperf3 -s -1 -p $iport >>"$log" 2>&1 &
	spid=$!
	sleep 0.5
	timeout 120 ip netns exec "$TOPO_QC" iperf3 -c $TOPO_S4 -p $iport -R \
		-C cubic -J "$@" 2>>"$log"
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
}

# report NAME MBS: a rate and its share of the 10 Mbit/s link.
report() {
	[ -n "$2" ] || { echo "  $1: failed"; return; }
	awk -v n="$1" -v r="$2" 'BEGIN {
		printf "  %s: %.2f MB/s, %.0f%% of 10 Mbit/s\n", n, r, r / 1.25 * 100 }'
}

report path-quic-clean "$(get h3 f.bin | cut -d' ' -f1)"
echo "  (path-quic-clean has no netem: under TCG the CPU, not the link, may be the bottleneck)"
# netem's limit counts every packet it holds: those in the 15 ms delay line
# (12.5 at 10 Mbit/s of 1500 B) and those queued behind the rate. 50 leaves
# ~37 packets of queue, 1.5 times the BDP (10 Mbit/s x 30 ms = 37.5 KB, 25
# packets of 1500 B): a sane buffer, neither starving CUBIC nor bloated.
topo_link c netem delay 15ms rate 10mbit limit 50 >>"$log" 2>&1 ||
	skip "no netem with rate (sch_netem)"
report path-quic-cubic "$(get h3 f.bin | cut -d' ' -f1)"
if command -v gtlsclient >/dev/null; then
	report path-ngtcp2-cubic "$(get gtls f.bin | cut -d' ' -f1)"
else
	echo "  path-ngtcp2-cubic: skipped, no gtlsclient"
fi
command -v iperf3 >/dev/null && command -v jq >/dev/null ||
	skip "no iperf3 or jq for TCP and fairness"
report path-tcp-cubic "$(tcp -n "${mib}M" |
	jq -r '.end.sum_received.bits_per_second / 8e6' 2>/dev/null)"

# Fairness: iperf3 for 30 s, at once a QUIC download of $fmib MiB. The QUIC
# rate is size/time; TCP's the mean of iperf3's 1 s intervals, weighted by
# their overlap with the QUIC download; iperf3's second 0 is placed by its
# end (its start is later than the process's by a few round trips). If
# QUIC outlasts iperf3, both rates are over the overlap only (QUIC's from
# the bytes it had by then).
tcp -t 30 -i 1 >"$tmp/fair.json" &
ipid=$!
sleep 0.5
get h3 fair.bin >"$tmp/fairq" &
qpid=$!
wait "$ipid"
ie=$(date +%s.%N) ib=
kill -0 "$qpid" 2>/dev/null && ib=$(stat -c %s "$tmp/got/fair.bin" 2>/dev/null || echo 0)
wait "$qpid"
read -r _ qsecs qe <"$tmp/fairq" || { echo "  fair: quic failed"; exit 0; }
jq -r '.intervals[].sum | "\(.start) \(.end) \(.bits_per_second)"' \
	"$tmp/fair.json" 2>/dev/null |
	awk -v qe="$qe" -v secs="$qsecs" \
		-v bytes=$((fmib << 20)) -v ie="$ie" -v ib="$ib" '
	{ s[NR] = $1; e[NR] = $2; r[NR] = $3 / 8e6 }
	END {
		t0 = ie - e[NR]; a = qe - secs - t0; b = qe - t0
		q = bytes / secs / 1e6
		if (ib != "") {
			b = ie - t0; q = ib / (b - a) / 1e6
			note = ", the overlap only: QUIC outlasted iperf3"
		}
		for (i = 1; i <= NR; i++) {
			lo = s[i] > a ? s[i] : a; hi = e[i] < b ? e[i] : b
			if (hi > lo) { w += hi - lo; sum += r[i] * (hi - lo) }
		}
		if (!w) { print "  fair: tcp failed"; exit }
		t = sum / w
		printf "  fair: quic %.2f MB/s (%.0f%%), tcp %.2f MB/s (%.0f%%) over %.1f s%s\n",
		       q, q / (q + t) * 100, t, t / (q + t) * 100, w, note
	}'
exit 0
