#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Transfers across a router (topo.sh) rather than over lo, run inside the
# test VM by run_tests.sh: our h3client and ngtcp2's gtlsclient download
# from our h3server in another namespace, over IPv4 and IPv6, on a clean
# path, with delay and loss on the client's link, and with the server's
# link shrunk to the IPv6 minimum MTU (1280). Every body is compared by
# SHA-256; one result line per transfer (ktap.sh). Nothing asserts a
# time.
#
# QUIC_PATHS_SIZE (default 2 MiB) sets the size of the file.

set -u
dir=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$dir/../../../../.." && pwd)
OUT=${OUT:-$repo/.vm}
. "$dir/ktap.sh"
. "$dir/topo.sh"

h3=$repo/tools/quic/http3
suite=paths
size=${QUIC_PATHS_SIZE:-2097152}
port=4533
log=$OUT/paths.log
: >"$log"
tmp=$(mktemp -d)
srv_pid=

cleanup() {
	[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null
	topo_down
	rm -rf "$tmp"
}
trap cleanup EXIT

cases=("clean" "delay 10ms, 2% loss on the client link" "server link MTU 1280")

fail_all() {
	local c f
	for c in "${cases[@]}"; do
		for f in 4 6; do
			result "not ok" $suite "h3client from h3server IPv$f, $c ($1)"
			result "not ok" $suite "gtlsclient from h3server IPv$f, $c ($1)"
		done
	done
	exit 0
}

echo "== transfers across a router"
for p in ip tc gtlsclient openssl sha256sum; do
	command -v $p >/dev/null || fail_all "no $p"
done
[ -x "$h3/h3client" ] && [ -x "$h3/h3server" ] || fail_all "h3client/h3server not built"
modprobe -q virtio_rng 2>/dev/null
topo_up >>"$log" 2>&1 || fail_all "no topology (veth, netns)"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 2 -subj /CN=localhost \
	-addext "subjectAltName=DNS:localhost,IP:$TOPO_S4,IP:$TOPO_S6" \
	2>>"$log" || fail_all "no certificate"
mkdir -p "$tmp/www" "$tmp/got"
head -c "$size" /dev/urandom >"$tmp/www/f.bin"
sum=$(sha256sum <"$tmp/www/f.bin" | cut -d' ' -f1)

# check NAME RC FILE
check() {
	if [ "$2" = 0 ] && [ "$(sha256sum <"$3" 2>/dev/null | cut -d' ' -f1)" = "$sum" ]; then
		echo "   ok   $1"
		result ok $suite "$1"
	else
		echo "   FAIL $1: status $2, $(stat -c %s "$3" 2>/dev/null || echo 0) bytes"
		result "not ok" $suite "$1"
	fi
}

for i in "${!cases[@]}"; do
	topo_link c netem delay 0ms >>"$log" 2>&1
	topo_link s mtu 1500 netem delay 0ms >>"$log" 2>&1
	case $i in
	1) topo_link c netem delay 10ms loss 2% >>"$log" 2>&1 ;;
	2) topo_link s mtu 1280 >>"$log" 2>&1 ;;
	esac
	for fam in 4 6; do
		if [ $fam = 4 ]; then addr=$TOPO_S4 host=$TOPO_S4; else addr=$TOPO_S6 host="[$TOPO_S6]"; fi
		port=$((port + 1))
		# Not through the shell function: $! must be h3server itself.
		ip netns exec "$TOPO_QS" "$h3/h3server" -d "$tmp/www" "$addr" $port \
			"$tmp/key.pem" "$tmp/cert.pem" >>"$log" 2>&1 &
		srv_pid=$!
		sleep 1

		name="h3client from h3server IPv$fam, ${cases[$i]}"
		echo "-- $name" >>"$log"
		rm -f "$tmp/got/f.bin"
		timeout 300 ip netns exec "$TOPO_QC" "$h3/h3client" -t 240 \
			--ca "$tmp/cert.pem" -o "$tmp/got/f.bin" \
			"https://$host:$port/f.bin" >>"$log" 2>&1
		check "$name" $? "$tmp/got/f.bin"

		name="gtlsclient from h3server IPv$fam, ${cases[$i]}"
		echo "-- $name" >>"$log"
		rm -f "$tmp/got/f.bin"
		timeout 300 ip netns exec "$TOPO_QC" gtlsclient -q \
			--exit-on-all-streams-close --download "$tmp/got" \
			"$addr" $port "https://$host:$port/f.bin" >>"$log" 2>&1
		check "$name" $? "$tmp/got/f.bin"

		kill "$srv_pid" 2>/dev/null
		wait "$srv_pid" 2>/dev/null
		srv_pid=
	done
done
exit 0
