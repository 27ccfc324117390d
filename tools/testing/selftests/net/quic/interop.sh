#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# HTTP/3 interop with Debian's ngtcp2 examples, run inside the test VM by
# run_tests.sh: our h3client (kernel QUIC) downloads from gtlsserver, and
# gtlsclient downloads from our h3server (kernel QUIC), over IPv4 and
# IPv6, with each of AES-128-GCM, AES-256-GCM and ChaCha20-Poly1305, one
# file of each size. Every body is compared by SHA-256 with the file
# served. Then, per family, one transfer each way with a Retry first
# (gtlsserver -V, h3server --retry), session resumption and 0-RTT both
# ways, Version Negotiation both ways, a server's preferred address both
# ways and between our ends, and a gtlsclient upload that our server
# forgets midway: gtlsclient must drain on our Stateless Reset. One
# result line per transfer (quic_lib.sh: TAP on stdout and a line of
# $RESULTS), with its throughput in the log; nothing asserts a time.
# Exits 1 if a transfer failed, 4 (KSFT_SKIP) if none ran.
#
#   interop.sh [SIZE...]	sizes in bytes (default 1 MiB and 10 MiB)
#
# QUIC_INTEROP_SIZES, QUIC_INTEROP_FAMS ("4 6"; QUIC_INTEROP_FAMILIES,
# its former name, still works) and QUIC_INTEROP_CIPHERS narrow the
# matrix; QUIC_INTEROP_TIMEOUT (180) bounds each transfer, in seconds.
# QUIC_INTEROP_H3 is where h3client and h3server are (default:
# tools/quic/http3 of this tree).

set -u
# shellcheck source=quic_lib.sh
. "$(dirname "$0")/quic_lib.sh"

h3=${QUIC_INTEROP_H3:-$repo/tools/quic/http3}
suite=interop
sizes=("$@")
# shellcheck disable=SC2206
[ ${#sizes[@]} -gt 0 ] || sizes=(${QUIC_INTEROP_SIZES:-1048576 10485760})
families=${QUIC_INTEROP_FAMS:-${QUIC_INTEROP_FAMILIES:-4 6}}
ciphers=${QUIC_INTEROP_CIPHERS:-AES-128-GCM AES-256-GCM CHACHA20-POLY1305}
tmo=${QUIC_INTEROP_TIMEOUT:-180}
port=4433
quic_init

mib() {
	awk -v b="$1" 'BEGIN { if (b % 1048576) print b " B"; else print b / 1048576 " MiB" }'
}

fail_all() {
	local why=$1 f c s
	for f in $families; do
		for c in $ciphers; do
			for s in "${sizes[@]}"; do
				result "not ok" $suite \
					"h3client from gtlsserver IPv$f $c $(mib "$s") ($why)"
				result "not ok" $suite \
					"gtlsclient from h3server IPv$f $c $(mib "$s") ($why)"
			done
		done
		s=${sizes[0]}
		result "not ok" $suite \
			"h3client from gtlsserver -V (Retry) IPv$f $(mib "$s") ($why)"
		result "not ok" $suite "gtlsclient from h3server --retry IPv$f $(mib "$s") ($why)"
		result "not ok" $suite "h3client resumes with gtlsserver IPv$f ($why)"
		result "not ok" $suite "gtlsclient resumes with h3server IPv$f ($why)"
		result "not ok" $suite "h3client 0-RTT with gtlsserver IPv$f ($why)"
		result "not ok" $suite "gtlsclient 0-RTT with h3server --early-data IPv$f ($why)"
		result "not ok" $suite \
			"gtlsclient drains on h3server's stateless reset IPv$f ($why)"
	done
	quic_exit
}

echo "== interop with ngtcp2 $(dpkg-query -W -f='${Version}' ngtcp2-client 2>/dev/null)"
for p in gtlsserver gtlsclient openssl sha256sum; do
	command -v $p >/dev/null || fail_all "no $p: run make provision"
done
[ -x "$h3/h3client" ] && [ -x "$h3/h3server" ] || fail_all "h3client/h3server not built"

# GnuTLS blocks in getrandom() until the CRNG is seeded: feed it.
modprobe -q virtio_rng 2>/dev/null

# A certificate for localhost and both loopback addresses, made now.
if ! openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 2 -subj /CN=localhost \
	-addext "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1" 2>>"$log"; then
	fail_all "no certificate"
fi
mkdir -p "$tmp/www" "$tmp/got"
for s in "${sizes[@]}"; do
	# Not a bare number: gtlsserver makes up a body for /<digits>.
	head -c "$s" /dev/urandom >"$tmp/www/f$s.bin"
	sha256sum <"$tmp/www/f$s.bin" | cut -d' ' -f1 >"$tmp/$s.sha"
done

# serve gtlsserver|h3server [ARG...]: start that server, logging to
# $log, on the next port ($port) of $addr with the test certificate.
serve() {
	local who=$1 prog=$1
	shift
	[ "$prog" = h3server ] && prog=$h3/h3server
	port=$((port + 1))
	"$prog" "$@" "$addr" $port "$tmp/key.pem" "$tmp/cert.pem" \
		>>"$log" 2>&1 &
	srv_pid=$!
	quic_wait_udp $port || echo "$who did not bind port $port" >>"$log"
}

# check NAME SIZE FILE RC SECONDS: one result line.
check() {
	local name=$1 size=$2 file=$3 rc=$4 secs=$5 sum rate
	sum=$(sha256sum <"$file" 2>/dev/null | cut -d' ' -f1)
	rate=$(awk -v b="$size" -v s="$secs" 'BEGIN { printf "%.2f", (s > 0 ? b / s / 1e6 : 0) }')
	if [ "$rc" = 0 ] && [ "$sum" = "$(cat "$tmp/$size.sha")" ]; then
		echo "# $name: ${secs}s, $rate MB/s"
		result ok $suite "$name"
	else
		echo "   FAIL $name: status $rc, $(stat -c %s "$file" 2>/dev/null || echo 0) bytes"
		result "not ok" $suite "$name"
	fi
	echo "$name: status $rc, ${secs}s, $rate MB/s" >>"$log"
}

# snmp NAME: a counter of /proc/net/quic/snmp (0 if there is none).
snmp() {
	local v
	v=$(awk -v k="$1" '$1 == k { print $2 }' /proc/net/quic/snmp 2>/dev/null)
	echo "${v:-0}"
}

# timed CMD...: run CMD, put its status in $rc and its duration in $secs.
timed() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >>"$log" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
}

for fam in $families; do
	if [ "$fam" = 6 ]; then
		addr=::1
		host=[::1]
	else
		addr=127.0.0.1
		host=127.0.0.1
	fi
	for cipher in $ciphers; do
		prio="NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+$cipher"

		# Our client, ngtcp2's server.
		port=$((port + 1))
		gtlsserver -q -d "$tmp/www" --ciphers="$prio" "$addr" $port \
			"$tmp/key.pem" "$tmp/cert.pem" >>"$log" 2>&1 &
		srv_pid=$!
		quic_wait_udp $port || echo "gtlsserver did not bind port $port" >>"$log"
		for s in "${sizes[@]}"; do
			name="h3client from gtlsserver IPv$fam $cipher $(mib "$s")"
			echo "-- $name" >>"$log"
			rm -f "$tmp/got/f$s.bin"
			timed timeout "$tmo" "$h3/h3client" -c "$cipher" \
				--ca "$tmp/cert.pem" -o "$tmp/got/f$s.bin" \
				"https://$host:$port/f$s.bin"
			check "$name" "$s" "$tmp/got/f$s.bin" "$rc" "$secs"
		done
		quic_stop_server

		# ngtcp2's client, our server.
		port=$((port + 1))
		"$h3/h3server" -c "$cipher" -d "$tmp/www" "$addr" $port \
			"$tmp/key.pem" "$tmp/cert.pem" >>"$log" 2>&1 &
		srv_pid=$!
		quic_wait_udp $port || echo "h3server did not bind port $port" >>"$log"
		for s in "${sizes[@]}"; do
			name="gtlsclient from h3server IPv$fam $cipher $(mib "$s")"
			echo "-- $name" >>"$log"
			rm -f "$tmp/got/f$s.bin"
			timed timeout "$tmo" gtlsclient -q \
				--exit-on-all-streams-close --ciphers="$prio" \
				--download "$tmp/got" "$addr" $port \
				"https://$host:$port/f$s.bin"
			check "$name" "$s" "$tmp/got/f$s.bin" "$rc" "$secs"
		done
		quic_stop_server
	done

	# Address validation with a Retry (RFC 9000 8.1.2), both ways: our
	# client follows gtlsserver's, gtlsclient follows ours.
	s=${sizes[0]}
	port=$((port + 1))
	gtlsserver -q -V -d "$tmp/www" "$addr" $port \
		"$tmp/key.pem" "$tmp/cert.pem" >>"$log" 2>&1 &
	srv_pid=$!
	quic_wait_udp $port || echo "gtlsserver did not bind port $port" >>"$log"
	name="h3client from gtlsserver -V (Retry) IPv$fam $(mib "$s")"
	echo "-- $name" >>"$log"
	rm -f "$tmp/got/f$s.bin"
	timed timeout "$tmo" "$h3/h3client" --ca "$tmp/cert.pem" \
		-o "$tmp/got/f$s.bin" "https://$host:$port/f$s.bin"
	check "$name" "$s" "$tmp/got/f$s.bin" "$rc" "$secs"
	quic_stop_server

	port=$((port + 1))
	"$h3/h3server" --retry -d "$tmp/www" "$addr" $port \
		"$tmp/key.pem" "$tmp/cert.pem" >>"$log" 2>&1 &
	srv_pid=$!
	quic_wait_udp $port || echo "h3server did not bind port $port" >>"$log"
	name="gtlsclient from h3server --retry IPv$fam $(mib "$s")"
	echo "-- $name" >>"$log"
	rm -f "$tmp/got/f$s.bin"
	retry0=$(awk '$1 == "QuicOutRetry" { print $2 }' /proc/net/quic/snmp)
	timed timeout "$tmo" gtlsclient -q --exit-on-all-streams-close \
		--download "$tmp/got" "$addr" $port "https://$host:$port/f$s.bin"
	retry1=$(awk '$1 == "QuicOutRetry" { print $2 }' /proc/net/quic/snmp)
	echo "Retry packets sent: $((retry1 - retry0))" >>"$log"
	[ $((retry1 - retry0)) -ge 1 ] || rc="$rc (no Retry sent)"
	check "$name" "$s" "$tmp/got/f$s.bin" "$rc" "$secs"
	quic_stop_server

	# Session resumption (RFC 8446 2.2, RFC 9001 4.6), both ways: the
	# first connection saves the server's NewSessionTicket (and its
	# transport parameters), the second resumes with them. gtlsclient
	# also offers 0-RTT then; h3server does not take early data, so the
	# request goes again in 1-RTT packets.
	port=$((port + 1))
	gtlsserver -q -d "$tmp/www" "$addr" $port \
		"$tmp/key.pem" "$tmp/cert.pem" >>"$log" 2>&1 &
	srv_pid=$!
	quic_wait_udp $port || echo "gtlsserver did not bind port $port" >>"$log"
	name="h3client resumes with gtlsserver IPv$fam"
	echo "-- $name" >>"$log"
	rm -f "$tmp/sess" "$tmp/tp" "$tmp/got/f$s.bin"
	timed timeout "$tmo" "$h3/h3client" --ca "$tmp/cert.pem" \
		--session-file "$tmp/sess" --tp-file "$tmp/tp" \
		-o "$tmp/got/f$s.bin" "https://$host:$port/f$s.bin"
	[ -s "$tmp/sess" ] || rc="$rc (no session saved)"
	if [ "$rc" = 0 ]; then
		rm -f "$tmp/got/f$s.bin"
		timeout "$tmo" "$h3/h3client" --ca "$tmp/cert.pem" \
			--session-file "$tmp/sess" --tp-file "$tmp/tp" \
			-o "$tmp/got/f$s.bin" "https://$host:$port/f$s.bin" \
			>"$tmp/resume.log" 2>&1
		rc=$?
		cat "$tmp/resume.log" >>"$log"
		grep -q ", resumed" "$tmp/resume.log" || rc="$rc (not resumed)"
	fi
	check "$name" "$s" "$tmp/got/f$s.bin" "$rc" "$secs"
	quic_stop_server

	port=$((port + 1))
	"$h3/h3server" -d "$tmp/www" "$addr" $port \
		"$tmp/key.pem" "$tmp/cert.pem" >"$tmp/h3s.log" 2>&1 &
	srv_pid=$!
	quic_wait_udp $port || echo "h3server did not bind port $port" >>"$log"
	name="gtlsclient resumes with h3server IPv$fam"
	echo "-- $name" >>"$log"
	rm -f "$tmp/sess" "$tmp/tp" "$tmp/got/f$s.bin"
	timed timeout "$tmo" gtlsclient -q --exit-on-all-streams-close \
		--session-file "$tmp/sess" --tp-file "$tmp/tp" \
		--download "$tmp/got" "$addr" $port "https://$host:$port/f$s.bin"
	[ -s "$tmp/sess" ] || rc="$rc (no session saved)"
	if [ "$rc" = 0 ]; then
		rm -f "$tmp/got/f$s.bin"
		timeout "$tmo" gtlsclient -q --exit-on-all-streams-close \
			--session-file "$tmp/sess" --tp-file "$tmp/tp" \
			--download "$tmp/got" "$addr" $port \
			"https://$host:$port/f$s.bin" >>"$log" 2>&1
		rc=$?
	fi
	quic_stop_server
	cat "$tmp/h3s.log" >>"$log"
	[ "$rc" != 0 ] || grep -q ", resumed" "$tmp/h3s.log" ||
		rc="$rc (not resumed)"
	check "$name" "$s" "$tmp/got/f$s.bin" "$rc" "$secs"

	# 0-RTT (RFC 9001 4.6.1), both ways: the second connection sends its
	# request in 0-RTT packets and the server takes them. h3client says
	# ", 0-RTT accepted" when its TLS session has early data taken; the
	# kernel counts the 0-RTT packets it sent.
	port=$((port + 1))
	gtlsserver -q -d "$tmp/www" "$addr" $port \
		"$tmp/key.pem" "$tmp/cert.pem" >>"$log" 2>&1 &
	srv_pid=$!
	quic_wait_udp $port || echo "gtlsserver did not bind port $port" >>"$log"
	name="h3client 0-RTT with gtlsserver IPv$fam"
	echo "-- $name" >>"$log"
	rm -f "$tmp/sess" "$tmp/tp" "$tmp/got/f$s.bin"
	timed timeout "$tmo" "$h3/h3client" --ca "$tmp/cert.pem" \
		--session-file "$tmp/sess" --tp-file "$tmp/tp" \
		-o "$tmp/got/f$s.bin" "https://$host:$port/f$s.bin"
	[ -s "$tmp/sess" ] && [ -s "$tmp/tp" ] || rc="$rc (no session saved)"
	if [ "$rc" = 0 ]; then
		rm -f "$tmp/got/f$s.bin"
		out0=$(snmp QuicOut0RttPackets)
		timeout "$tmo" "$h3/h3client" --ca "$tmp/cert.pem" --early-data \
			--session-file "$tmp/sess" --tp-file "$tmp/tp" \
			-o "$tmp/got/f$s.bin" "https://$host:$port/f$s.bin" \
			>"$tmp/early.log" 2>&1
		rc=$?
		out1=$(snmp QuicOut0RttPackets)
		cat "$tmp/early.log" >>"$log"
		echo "0-RTT packets sent: $((out1 - out0))" >>"$log"
		grep -q ", resumed, 0-RTT accepted" "$tmp/early.log" ||
			rc="$rc (0-RTT not accepted)"
		[ $((out1 - out0)) -ge 1 ] || rc="$rc (no 0-RTT packet sent)"
	fi
	check "$name" "$s" "$tmp/got/f$s.bin" "$rc" "$secs"
	quic_stop_server

	# gtlsclient names early data only when it is rejected, and only
	# without -q (--no-quic-dump and --no-http-dump keep its log short):
	# its 0-RTT packets show in that log ("pkt tx ... type=0RTT"),
	# h3server logs the 0-RTT it took, the kernel counts the packets.
	port=$((port + 1))
	"$h3/h3server" --early-data -d "$tmp/www" "$addr" $port \
		"$tmp/key.pem" "$tmp/cert.pem" >"$tmp/h3s.log" 2>&1 &
	srv_pid=$!
	quic_wait_udp $port || echo "h3server did not bind port $port" >>"$log"
	name="gtlsclient 0-RTT with h3server --early-data IPv$fam"
	echo "-- $name" >>"$log"
	rm -f "$tmp/sess" "$tmp/tp" "$tmp/got/f$s.bin"
	timed timeout "$tmo" gtlsclient -q --exit-on-all-streams-close \
		--session-file "$tmp/sess" --tp-file "$tmp/tp" \
		--download "$tmp/got" "$addr" $port "https://$host:$port/f$s.bin"
	[ -s "$tmp/sess" ] && [ -s "$tmp/tp" ] || rc="$rc (no session saved)"
	if [ "$rc" = 0 ]; then
		rm -f "$tmp/got/f$s.bin"
		in0=$(snmp QuicIn0RttPackets)
		timeout "$tmo" gtlsclient --no-quic-dump --no-http-dump \
			--exit-on-all-streams-close \
			--session-file "$tmp/sess" --tp-file "$tmp/tp" \
			--download "$tmp/got" "$addr" $port \
			"https://$host:$port/f$s.bin" >"$tmp/early.log" 2>&1
		rc=$?
		in1=$(snmp QuicIn0RttPackets)
		sent=$(grep -c 'pkt tx .*type=0RTT' "$tmp/early.log")
		grep -E 'Early data|Negotiated|ERR_' "$tmp/early.log" >>"$log"
		echo "0-RTT packets sent: $sent, taken: $((in1 - in0))" >>"$log"
		! grep -q "Early data was rejected" "$tmp/early.log" ||
			rc="$rc (0-RTT rejected)"
		[ "$sent" -ge 1 ] || rc="$rc (no 0-RTT packet sent)"
		[ $((in1 - in0)) -ge 1 ] || rc="$rc (no 0-RTT packet taken)"
	fi
	quic_stop_server
	cat "$tmp/h3s.log" >>"$log"
	[ "$rc" != 0 ] || grep -q ", resumed, 0-RTT accepted" "$tmp/h3s.log" ||
		rc="$rc (h3server took no 0-RTT)"
	check "$name" "$s" "$tmp/got/f$s.bin" "$rc" "$secs"

	# Version Negotiation (RFC 9000 6), both ways: a client whose first
	# Initials carry a greased version gets the server's list and
	# starts again in v1. The kernel counts the one our client took.
	# (gtlsclient starts again only with --preferred-versions: without
	# it, it gives up, even with ngtcp2's own server.)
	serve gtlsserver -q -d "$tmp/www"
	name="h3client Version Negotiation with gtlsserver IPv$fam"
	echo "-- $name" >>"$log"
	rm -f "$tmp/got/f$s.bin"
	vn0=$(snmp QuicInVersionNegotiation)
	timed timeout "$tmo" "$h3/h3client" --quic-version 1a2a3a4a \
		--ca "$tmp/cert.pem" -o "$tmp/got/f$s.bin" \
		"https://$host:$port/f$s.bin"
	vn1=$(snmp QuicInVersionNegotiation)
	echo "Version Negotiation packets taken: $((vn1 - vn0))" >>"$log"
	[ $((vn1 - vn0)) -ge 1 ] || rc="$rc (no Version Negotiation)"
	check "$name" "$s" "$tmp/got/f$s.bin" "$rc" "$secs"
	quic_stop_server

	serve h3server -d "$tmp/www"
	name="gtlsclient Version Negotiation with h3server IPv$fam"
	echo "-- $name" >>"$log"
	rm -f "$tmp/got/f$s.bin"
	timed timeout "$tmo" gtlsclient -q --exit-on-all-streams-close \
		-v 0x1a2a3a4a --preferred-versions=v1 \
		--download "$tmp/got" "$addr" $port \
		"https://$host:$port/f$s.bin"
	check "$name" "$s" "$tmp/got/f$s.bin" "$rc" "$secs"
	quic_stop_server

	# A server's preferred address (RFC 9000 9.6), both ways and between
	# our ends: the client moves there once the handshake is confirmed.
	# 127.0.0.2 for IPv4, another port of ::1 for IPv6. The kernel
	# counts the move on each of our ends that made it.
	for pair in "h3client gtlsserver" "gtlsclient h3server" \
		    "h3client h3server"; do
		cl=${pair% *}
		sv=${pair#* }
		port=$((port + 1))
		if [ "$fam" = 6 ]; then
			pref="[::1]:$port"
		else
			pref="127.0.0.2:$port"
		fi
		if [ "$sv" = gtlsserver ]; then
			serve gtlsserver -q -d "$tmp/www" \
				"--preferred-ipv$fam-addr=$pref"
		else
			serve h3server --preferred "$pref" -d "$tmp/www"
		fi
		name="$cl moves to $sv's preferred address IPv$fam"
		echo "-- $name ($pref)" >>"$log"
		rm -f "$tmp/got/f$s.bin"
		mv0=$(snmp QuicPathMigrations)
		if [ "$cl" = gtlsclient ]; then
			# gtlsclient moves once the handshake is confirmed,
			# and a 1 MiB download from our server can end
			# before it does: the request waits a second.
			timed timeout "$tmo" gtlsclient -q \
				--exit-on-all-streams-close --delay-stream=1s \
				--download "$tmp/got" "$addr" $port \
				"https://$host:$port/f$s.bin"
		else
			timed timeout "$tmo" "$h3/h3client" \
				--ca "$tmp/cert.pem" -o "$tmp/got/f$s.bin" \
				"https://$host:$port/f$s.bin"
		fi
		mv1=$(snmp QuicPathMigrations)
		want=1
		[ "$pair" != "h3client h3server" ] || want=2
		echo "validated moves: $((mv1 - mv0))" >>"$log"
		[ $((mv1 - mv0)) -ge $want ] ||
			rc="$rc ($((mv1 - mv0)) validated moves)"
		check "$name" "$s" "$tmp/got/f$s.bin" "$rc" "$secs"
		quic_stop_server
	done

	# A server that forgets a connection (h3server --drop-after, a
	# shutdown(SHUT_RD) mid-upload) answers the client's next packets
	# with Stateless Resets that gtlsclient recognises: it drains
	# (ERR_DRAINING) instead of waiting for its idle timeout.
	# The upload outgrows the server's flow-control windows, so that
	# gtlsclient still sends full packets when the server drops it:
	# ngtcp2 recognises resets to them, not the shorter answers to its
	# small packets (RFC 9000 10.3: one byte shorter than the trigger).
	[ -f "$tmp/up.bin" ] || head -c 8388608 /dev/urandom >"$tmp/up.bin"
	port=$((port + 1))
	"$h3/h3server" --drop-after 65536 -d "$tmp/www" "$addr" $port \
		"$tmp/key.pem" "$tmp/cert.pem" >"$tmp/reset-srv.log" 2>&1 &
	srv_pid=$!
	quic_wait_udp $port || echo "h3server did not bind port $port" >>"$log"
	name="gtlsclient drains on h3server's stateless reset IPv$fam"
	echo "-- $name" >>"$log"
	cp /proc/net/quic/snmp "$tmp/snmp0"
	timeout "$tmo" gtlsclient -q --exit-on-all-streams-close \
		-d "$tmp/up.bin" "$addr" $port "https://$host:$port/f$s.bin" \
		>"$tmp/reset.log" 2>&1
	cp /proc/net/quic/snmp "$tmp/snmp1"
	rst0=$(awk '$1 == "QuicOutStatelessReset" { print $2 }' "$tmp/snmp0")
	rst1=$(awk '$1 == "QuicOutStatelessReset" { print $2 }' "$tmp/snmp1")
	cat "$tmp/reset.log" "$tmp/reset-srv.log" >>"$log"
	echo "Stateless Resets sent: $((rst1 - rst0))" >>"$log"
	if [ $((rst1 - rst0)) -ge 1 ] && grep -q ERR_DRAINING "$tmp/reset.log"; then
		echo "# $name: $((rst1 - rst0)) resets sent"
		result ok $suite "$name"
	else
		echo "   FAIL $name: $((rst1 - rst0)) resets sent"
		# What each end saw, for the report: it is rare.
		{
			tail -n 5 "$tmp/reset.log"
			tail -n 5 "$tmp/reset-srv.log"
			paste "$tmp/snmp0" "$tmp/snmp1" |
				awk '$2 != $4 { printf "%s +%d\n", $1, $4 - $2 }'
		} | sed 's/^/      /'
		result "not ok" $suite "$name"
	fi
	quic_stop_server
done
quic_exit
