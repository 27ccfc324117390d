#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ECN (RFC 9000 13.4) across a router (topo.sh), run inside the test VM by
# run_tests.sh. Our h3server in the server namespace serves a download:
#  - to our h3client and to gtlsclient through a router whose netem marks
#    ECT packets CE where it would drop them (loss ... ecn): the client
#    must count CE marks (its QuicInEcnCe, for our client) and the server
#    must take them as congestion (QuicEcnCongestionEvents) with ECN
#    still validated (no QuicEcnValidationFailed);
#  - through a router that bleaches the marks (tc pedit clears the ECN
#    bits of the server's datagrams): the server's validation must fail
#    (QuicEcnValidationFailed) and the transfer go on unmarked.
# Every body is compared by SHA-256; one result line per transfer
# (quic_lib.sh: TAP on stdout and a line of $RESULTS); the counters go to
# the log. Nothing asserts a time. Exits 1 if a transfer failed, 4
# (KSFT_SKIP) if all were skipped.
#
# QUIC_ECN_SIZE (default 1 MiB) sets the size of the file; QUIC_ECN_FAMS
# ("4 6") the address families.

set -u
# shellcheck source=quic_lib.sh
. "$(dirname "$0")/quic_lib.sh"
# shellcheck source=topo.sh
. "$dir/topo.sh"

h3=$repo/tools/quic/http3
suite=ecn
size=${QUIC_ECN_SIZE:-1048576}
port=4733
quic_init
quic_at_exit topo_down

names=()
for fam in ${QUIC_ECN_FAMS:-4 6}; do
	names+=("h3client from h3server, router marks CE IPv$fam"
		"gtlsclient from h3server, router marks CE IPv$fam"
		"h3client from h3server, router bleaches ECN IPv$fam")
done

fail_all() {
	local n
	for n in "${names[@]}"; do
		result "not ok" $suite "$n ($1)"
	done
	quic_exit
}

echo "== ECN across a router"
for p in ip tc gtlsclient openssl sha256sum; do
	command -v $p >/dev/null || fail_all "no $p"
done
[ -x "$h3/h3client" ] && [ -x "$h3/h3server" ] || fail_all "h3client/h3server not built"
modprobe -q virtio_rng 2>/dev/null
for m in sch_netem sch_ingress cls_matchall act_pedit act_csum; do
	modprobe -q $m 2>>"$log"
done
topo_up >>"$log" 2>&1 || fail_all "no topology (veth, netns)"
# netem marks what it is handed: a GSO batch, which veth passes on whole,
# would be marked all at once or not at all, so that a download could go
# without a single mark. One datagram per skb from the server, as on a
# wire.
ip -n "$TOPO_QS" link set dev s0 gso_max_segs 1 >>"$log" 2>&1 ||
	fail_all "no gso_max_segs"
topo_cert "$tmp" 2>>"$log" || fail_all "no certificate"
mkdir -p "$tmp/www" "$tmp/got"
head -c "$size" /dev/urandom >"$tmp/www/f.bin"
sum=$(sha256sum <"$tmp/www/f.bin" | cut -d' ' -f1)

snap() {
	ip netns exec "$1" cat /proc/net/quic/snmp 2>/dev/null
}

# router mark|bleach|clean: the client-side link (towards the client)
# marks CE instead of dropping 2% of ECT datagrams; or the router clears
# the ECN bits of what comes from the server; or neither.
router() {
	topo_router tc qdisc del dev r1 clsact 2>/dev/null
	case $1 in
	mark)
		topo_router tc qdisc replace dev r0 root netem delay 5ms \
			loss 2% ecn
		;;
	bleach)
		topo_router tc qdisc replace dev r0 root netem delay 5ms
		topo_router tc qdisc replace dev r1 clsact &&
			topo_router tc filter add dev r1 ingress protocol ip \
				matchall action pedit ex munge ip tos set 0 \
				retain 3 pipe action csum ip &&
			topo_router tc filter add dev r1 ingress \
				protocol ipv6 matchall action pedit ex munge \
				ip6 traffic_class set 0 retain 3
		;;
	*)
		topo_router tc qdisc replace dev r0 root netem delay 5ms
		;;
	esac
}

# Bleaching needs clsact and the pedit and csum actions; a kernel without
# them (the debug kernel's config) skips that case.
tc_rewrites=1
{ topo_router tc qdisc replace dev r1 clsact &&
  topo_router tc filter add dev r1 ingress protocol ip matchall \
	action pedit ex munge ip tos set 0 retain 3 pipe action csum ip; } \
	>>"$log" 2>&1 || tc_rewrites=0
topo_router tc qdisc del dev r1 clsact 2>/dev/null

# transfer NAME WHAT CMD...: one download; WHAT: "ce" (the client counts
# CE, the server reacts, validation holds; CLIENT_COUNTS=0 skips the
# client's count, which gtlsclient keeps to itself) or "bleach" (the
# server's validation fails).
transfer() {
	local name=$1 what=$2 rc ok=1 ce cong failed body=intact
	shift 2
	if [ "$what" = bleach ] && [ $tc_rewrites = 0 ]; then
		result skip $suite "$name (no tc clsact or pedit)"
		return
	fi
	echo "-- $name" >>"$log"
	rm -f "$tmp/got/f.bin"
	snap "$TOPO_QS" >"$tmp/sb"
	snap "$TOPO_QC" >"$tmp/cb"
	"$@" >>"$log" 2>&1
	rc=$?
	snap "$TOPO_QS" >"$tmp/sa"
	snap "$TOPO_QC" >"$tmp/ca"
	echo "   server:$(topo_delta "$tmp/sb" "$tmp/sa")" >>"$log"
	echo "   client:$(topo_delta "$tmp/cb" "$tmp/ca")" >>"$log"
	ce=$(topo_grew QuicInEcnCe "$tmp/cb" "$tmp/ca")
	cong=$(topo_grew QuicEcnCongestionEvents "$tmp/sb" "$tmp/sa")
	failed=$(topo_grew QuicEcnValidationFailed "$tmp/sb" "$tmp/sa")
	[ "$rc" = 0 ] || ok=0
	[ "$(sha256sum <"$tmp/got/f.bin" 2>/dev/null | cut -d' ' -f1)" = "$sum" ] ||
		{
			ok=0
			body="$(stat -c %s "$tmp/got/f.bin" 2>/dev/null || echo 0)"
			body="$body bytes, not intact"
		}
	if [ "$what" = ce ]; then
		[ "${CLIENT_COUNTS:-1}" = 0 ] || [ "$ce" -ge 1 ] || ok=0
		[ "$cong" -ge 1 ] && [ "$failed" = 0 ] || ok=0
	else
		[ "$failed" -ge 1 ] || ok=0
	fi
	if [ $ok = 1 ]; then
		result ok $suite "$name"
	else
		echo "   FAIL $name: status $rc, body $body, client CE $ce," \
			"server CE events $cong, validation failures $failed"
		awk -v n="-- $name" '$0 == n { p = 1 } p { print "        " $0 }' \
			"$log" | tail -n 8
		result "not ok" $suite "$name"
	fi
}

for fam in ${QUIC_ECN_FAMS:-4 6}; do
	if [ $fam = 4 ]; then addr=$TOPO_S4 host=$TOPO_S4; else addr=$TOPO_S6 host="[$TOPO_S6]"; fi
	port=$((port + 1))
	ip netns exec "$TOPO_QS" "$h3/h3server" -d "$tmp/www" "$addr" $port \
		"$tmp/key.pem" "$tmp/cert.pem" >>"$log" 2>&1 &
	srv_pid=$!
	sleep 1
	url="https://$host:$port/f.bin"
	router mark >>"$log" 2>&1
	transfer "h3client from h3server, router marks CE IPv$fam" ce \
		timeout 120 ip netns exec "$TOPO_QC" "$h3/h3client" -t 100 \
		--ca "$tmp/cert.pem" -o "$tmp/got/f.bin" "$url"
	CLIENT_COUNTS=0 transfer \
		"gtlsclient from h3server, router marks CE IPv$fam" ce \
		timeout 120 ip netns exec "$TOPO_QC" gtlsclient -q \
		--exit-on-all-streams-close --download "$tmp/got" "$addr" \
		$port "$url"
	router bleach >>"$log" 2>&1
	transfer "h3client from h3server, router bleaches ECN IPv$fam" bleach \
		timeout 120 ip netns exec "$TOPO_QC" "$h3/h3client" -t 100 \
		--ca "$tmp/cert.pem" -o "$tmp/got/f.bin" "$url"
	router clean >>"$log" 2>&1
	quic_stop_server
done
quic_exit
