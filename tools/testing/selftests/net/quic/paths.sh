#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Transfers across a router (topo.sh) rather than over lo, run inside the
# test VM by run_tests.sh: our h3client and ngtcp2's gtlsclient download
# from our h3server in another namespace. Over IPv4 and IPv6: a clean
# path, delay and loss on the client's link, the server's link shrunk to
# the IPv6 minimum MTU (1280). Over IPv4, with the server's congestion
# control CUBIC: 2% loss, 25% reordering, a 2 s blackhole in mid-transfer,
# a 25 s outage under a 60 s idle timeout (our client only); with NewReno,
# a 750 ms round trip. Over both, the client's link at 1280 bytes, below
# the server's: the path MTU search finds it, nothing is fragmented; and
# the same link shrinking from 1500 to 1280 bytes in mid-transfer (a black
# hole for the size in use until the sender falls back). With reordering
# and no loss, less than 1.2 times the file crosses the server's link.
# Then our h3client's handshakes with ngtcp2's gtlsserver, 30% of the
# datagrams towards the client lost and a 12 KB certificate flight.
# Every body is compared by SHA-256; one result line
# per transfer (quic_lib.sh: TAP on stdout and a line of $RESULTS); the
# server's counters go to the log. Nothing asserts a time. Exits 1 if a
# transfer failed, 4 (KSFT_SKIP) if all were skipped.
#
# QUIC_PATHS_SIZE (default 2 MiB) sets the size of the file;
# QUIC_PATHS_ONLY (indices into cases[]) runs only some cases;
# QUIC_PATHS_FAMS ("4 6") and QUIC_PATHS_CLIENTS ("h3 gtls") narrow the
# families and clients of every case (the debug kernel's run).

set -u
# shellcheck source=quic_lib.sh
. "$(dirname "$0")/quic_lib.sh"
# shellcheck source=topo.sh
. "$dir/topo.sh"

h3=$repo/tools/quic/http3
suite=paths
size=${QUIC_PATHS_SIZE:-2097152}
port=4533
quic_init
quic_at_exit topo_down

# One entry per case: its name, the server's congestion control, the
# address families, the clients, their idle timeout (s, 0: default).
cases=("clean" "delay 10ms, 2% loss on the client link" "server link MTU 1280"
       "CUBIC, delay 10ms, 2% loss" "CUBIC, delay 10ms, 25% reordering"
       "CUBIC, 2 s blackhole mid-transfer" "RTT 750ms"
       "CUBIC, 25 s outage under a 60 s idle timeout"
       "client link MTU 1280" "client link MTU 1500 -> 1280 mid-transfer")
# Three reno, three cubic, reno, three cubic.
ccs=(reno{,,} cubic{,,} reno cubic{,,})
# The name of the long-flight handshake cases, with IPv<family> before it.
hs_what="30% loss towards the client, 12 KB flight"
# The name of the PMTU check, with "<client> IPv<family>: " before it.
pmtu_what="no fragment, at most 30 datagrams too big"
fams=("4 6" "4 6" "4 6" 4 4 4 4 4 "4 6" "4 6")
clients=("h3 gtls" "h3 gtls" "h3 gtls" "h3 gtls" "h3 gtls" "h3 gtls" "h3 gtls" h3
	 "h3 gtls" "h3 gtls")
idles=(0 0 0 0 0 0 0 60 0 0)
# The case whose path MTU (1280) is below the server's link MTU (1500).
pmtu_case=8
# The case with reordering and no loss: what the server puts on the wire
# (IP and UDP headers, the handshake and anything sent twice included)
# stays under 1.2 times the file (reordering is not taken for loss).
reorder_case=4

# client_name KIND
client_name() {
	[ "$1" = h3 ] && echo h3client || echo gtlsclient
}

# want WORD LIST: is WORD one of the words of LIST?
want() {
	case " $2 " in *" $1 "*) return 0 ;; esac
	return 1
}

fail_all() {
	local i f k cn
	for i in ${QUIC_PATHS_ONLY:-${!cases[@]}}; do
		for f in ${fams[$i]}; do
			want "$f" "${QUIC_PATHS_FAMS:-4 6}" || continue
			for k in ${clients[$i]}; do
				want "$k" "${QUIC_PATHS_CLIENTS:-h3 gtls}" || continue
				cn=$(client_name $k)
				result "not ok" $suite "$cn from h3server IPv$f, ${cases[$i]} ($1)"
				[ "$i" != $reorder_case ] ||
					result "not ok" $suite \
						"$cn IPv$f: under 1.2x the file on the wire ($1)"
				[ "$i" != $pmtu_case ] ||
					result "not ok" $suite \
						"$cn IPv$f: $pmtu_what ($1)"
			done
		done
	done
	if [ "${QUIC_PATHS_HS_RUNS:-5}" -gt 0 ] &&
	   want h3 "${QUIC_PATHS_CLIENTS:-h3 gtls}"; then
		for f in ${QUIC_PATHS_FAMS:-4 6}; do
			for i in $(seq "${QUIC_PATHS_HS_RUNS:-5}"); do
				result "not ok" $suite \
					"h3client from gtlsserver IPv$f, $hs_what, run $i ($1)"
			done
		done
	fi
	quic_exit
}

echo "== transfers across a router"
for p in ip tc gtlsclient openssl sha256sum; do
	command -v $p >/dev/null || fail_all "no $p"
done
[ -x "$h3/h3client" ] && [ -x "$h3/h3server" ] || fail_all "h3client/h3server not built"
modprobe -q virtio_rng 2>/dev/null
topo_up >>"$log" 2>&1 || fail_all "no topology (veth, netns)"
topo_cert "$tmp" 2>>"$log" || fail_all "no certificate"
mkdir -p "$tmp/www" "$tmp/got"
head -c "$size" /dev/urandom >"$tmp/www/f.bin"
sum=$(sha256sum <"$tmp/www/f.bin" | cut -d' ' -f1)

# check NAME RC FILE
check() {
	if [ "$2" = 0 ] && [ "$(sha256sum <"$3" 2>/dev/null | cut -d' ' -f1)" = "$sum" ]; then
		result ok $suite "$1"
	else
		echo "   FAIL $1: status $2, $(stat -c %s "$3" 2>/dev/null || echo 0) bytes"
		result "not ok" $suite "$1"
	fi
}

# during CASE PID: what happens to the path while the transfer PID runs:
# 0.5 s in, the client's link drops everything, for 2 s in the blackhole
# case and for 25 s in the outage case, or shrinks to 1280 bytes for good
# (the transfers take longer than 0.5 s at 20 Mbit/s under TCG).
during() {
	local secs
	case $1 in
	5) secs=2 ;;
	7) secs=25 ;;
	9)
		sleep 0.5
		topo_link c mtu 1280 >>"$log" 2>&1
		return 0
		;;
	*) return 0 ;;
	esac
	sleep 0.5
	kill -0 "$2" 2>/dev/null || return 0
	topo_link c netem delay 5ms rate 20mbit loss 100% >>"$log" 2>&1
	sleep $secs
	topo_link c netem delay 5ms rate 20mbit >>"$log" 2>&1
}

# The server namespace's QUIC counters, and those a transfer moved.
snap() {
	ip netns exec "$TOPO_QS" cat /proc/net/quic/snmp 2>/dev/null
}

# IP counters of the router (forwarding) and the client (reassembly).
ipsnap() {
	{
		ip netns exec "$TOPO_QR" nstat -az
		ip netns exec "$TOPO_QC" nstat -az | sed 's/^/client/'
	} 2>/dev/null
}

# pmtu_check NAME FAM: the transfer just done was never fragmented (the
# client reassembled nothing) and the router dropped at most 30 datagrams
# too big for the client's link: the path MTU probes, nothing else.
pmtu_check() {
	local v=Ip
	[ "$2" = 6 ] && v=Ip6
	awk -v v=$v 'NR == FNR { b[$1] = $2; next }
		{ d[$1] = $2 - b[$1] }
		END {
			reasm = d["client" v "ReasmReqds"]
			fails = d[v "FragFails"]
			printf "   %s fragments reassembled, %s too big dropped\n",
				reasm + 0, fails + 0
			exit !(reasm == 0 && fails <= 30)
		}' "$tmp/ipbefore" "$tmp/ipafter" >>"$log"
	if [ $? = 0 ]; then
		result ok $suite "$1"
	else
		echo "   FAIL $1"
		result "not ok" $suite "$1"
	fi
}

# wire_check KIND NAME: the transfer just done put less than 1.2 times
# the file on the server's link. Asserted for the 2 MiB transfer issue 9
# names, to gtlsclient; a smaller file (the debug kernel's 512 KiB) is
# mostly slow start, before the reordering threshold has adapted. To our
# own client the figure is only logged: it acknowledges every packet out
# of order at once, and the server then declares more packets lost than
# its threshold adapts to in time (1.06x to 1.18x measured; open).
wire_check() {
	local kind=$1 sent=$(($(cat "$tmp/wireafter") - $(cat "$tmp/wirebefore")))

	shift
	echo "   on the wire: $sent bytes for $size" >>"$log"
	if [ "$size" -lt 2097152 ]; then
		result skip $suite "$1 (file below 2 MiB)"
	elif [ "$kind" = h3 ]; then
		result skip $suite "$1 (logged only with our client)"
	elif [ $((sent * 10)) -lt $((size * 12)) ]; then
		result ok $suite "$1"
	else
		echo "   FAIL $1: $sent bytes for $size"
		result "not ok" $suite "$1"
	fi
}

# transfer CASE NAME CMD...: one download, the path doing what "during"
# says meanwhile; the body is checked, the server's counters logged.
transfer() {
	local i=$1 name=$2 rc
	shift 2
	echo "-- $name" >>"$log"
	rm -f "$tmp/got/f.bin"
	snap >"$tmp/before"
	ipsnap >"$tmp/ipbefore"
	topo_server cat /sys/class/net/s0/statistics/tx_bytes >"$tmp/wirebefore"
	"$@" >>"$log" 2>&1 &
	during "$i" $!
	wait $!
	rc=$?
	snap >"$tmp/after"
	ipsnap >"$tmp/ipafter"
	topo_server cat /sys/class/net/s0/statistics/tx_bytes >"$tmp/wireafter"
	echo "   server:$(topo_delta "$tmp/before" "$tmp/after")" >>"$log"
	check "$name" $rc "$tmp/got/f.bin"
}

for i in ${QUIC_PATHS_ONLY:-${!cases[@]}}; do
	topo_link c mtu 1500 netem delay 0ms >>"$log" 2>&1
	topo_link s mtu 1500 netem delay 0ms >>"$log" 2>&1
	# Path MTUs learnt from ICMP in an earlier case are forgotten.
	for ns in "$TOPO_QS" "$TOPO_QC" "$TOPO_QR"; do
		ip -n "$ns" -4 route flush cache
		ip -n "$ns" -6 route flush cache
	done >>"$log" 2>&1
	case $i in
	1 | 3) topo_link c netem delay 10ms loss 2% >>"$log" 2>&1 ;;
	2) topo_link s mtu 1280 >>"$log" 2>&1 ;;
	4) topo_link c netem delay 10ms reorder 25% 50% >>"$log" 2>&1 ;;
	5 | 7 | 9) topo_link c netem delay 5ms rate 20mbit >>"$log" 2>&1 ;;
	6) topo_link c netem delay 375ms >>"$log" 2>&1 ;;
	8) topo_link c mtu 1280 >>"$log" 2>&1 ;;
	esac
	idle=()
	[ "${idles[$i]}" = 0 ] || idle=(--idle "${idles[$i]}")
	for fam in ${fams[$i]}; do
		want "$fam" "${QUIC_PATHS_FAMS:-4 6}" || continue
		if [ $fam = 4 ]; then
			addr=$TOPO_S4 host=$TOPO_S4
		else
			addr=$TOPO_S6 host="[$TOPO_S6]"
		fi
		port=$((port + 1))
		# Not through the shell function: $! must be h3server itself.
		ip netns exec "$TOPO_QS" "$h3/h3server" --cc "${ccs[$i]}" \
			"${idle[@]}" -d "$tmp/www" "$addr" $port \
			"$tmp/key.pem" "$tmp/cert.pem" >>"$log" 2>&1 &
		srv_pid=$!
		sleep 1

		for k in ${clients[$i]}; do
			want "$k" "${QUIC_PATHS_CLIENTS:-h3 gtls}" || continue
			name="$(client_name $k) from h3server IPv$fam, ${cases[$i]}"
			if [ $k = h3 ]; then
				transfer $i "$name" timeout 300 \
					ip netns exec "$TOPO_QC" "$h3/h3client" \
					-t 240 "${idle[@]}" --ca "$tmp/cert.pem" \
					-o "$tmp/got/f.bin" "https://$host:$port/f.bin"
			else
				transfer $i "$name" timeout 300 \
					ip netns exec "$TOPO_QC" gtlsclient -q \
					--exit-on-all-streams-close \
					--download "$tmp/got" "$addr" $port \
					"https://$host:$port/f.bin"
			fi
			cn=$(client_name $k)
			[ "$i" != $reorder_case ] ||
				wire_check $k "$cn IPv$fam: under 1.2x the file on the wire"
			[ "$i" != $pmtu_case ] ||
				pmtu_check "$cn IPv$fam: $pmtu_what" $fam
		done

		quic_stop_server
	done
done

# Handshakes with ngtcp2's gtlsserver when 30% of the datagrams towards
# our client are lost (netem on the router's side of the client's link
# only) and the server's flight is long (a certificate of some 12 KB:
# many names): our client must keep the Handshake CRYPTO data that comes
# out of order and acknowledge it (RFC 9000 7.5), so that the server
# learns which pieces are missing, before gtlsserver gives the
# handshake up (--handshake-timeout, QUIC_PATHS_HS_TIMEOUT, 30 s: a
# limit on time, so it is kept far from what a working client needs:
# at 10 s, a run of losses and the PTO's backoff under TCG now and then
# ran one out). Before our client kept such data, 4 of
# 10 of these handshakes failed at 10 s. QUIC_PATHS_HS_RUNS (5)
# handshakes per family, each fetching a 64 KiB file; 0 leaves them out.
hs_runs=${QUIC_PATHS_HS_RUNS:-5}
if [ "$hs_runs" -gt 0 ] && want h3 "${QUIC_PATHS_CLIENTS:-h3 gtls}"; then
	sans=$(printf 'DNS:n%03d.long-flight.example,' $(seq 450))
	mkdir -p "$tmp/long"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$tmp/long/key.pem" -out "$tmp/long/cert.pem" -days 2 \
		-subj /CN=localhost \
		-addext "subjectAltName=${sans}IP:$TOPO_S4,IP:$TOPO_S6" \
		2>>"$log"
	head -c 65536 /dev/urandom >"$tmp/www/small.bin"
	small=$(sha256sum <"$tmp/www/small.bin" | cut -d' ' -f1)
	topo_link c mtu 1500 netem delay 5ms >>"$log" 2>&1
	tc -n "$TOPO_QR" qdisc replace dev r0 root netem delay 5ms loss 30% \
		>>"$log" 2>&1
	for fam in ${QUIC_PATHS_FAMS:-4 6}; do
		if [ $fam = 4 ]; then
			addr=$TOPO_S4 host=$TOPO_S4
		else
			addr=$TOPO_S6 host="[$TOPO_S6]"
		fi
		port=$((port + 1))
		ip netns exec "$TOPO_QS" gtlsserver -q \
			--handshake-timeout="${QUIC_PATHS_HS_TIMEOUT:-30}s" \
			-d "$tmp/www" "$addr" $port "$tmp/long/key.pem" \
			"$tmp/long/cert.pem" >>"$log" 2>&1 &
		srv_pid=$!
		sleep 1
		for r in $(seq "$hs_runs"); do
			name="h3client from gtlsserver IPv$fam, $hs_what, run $r"
			echo "-- $name" >>"$log"
			rm -f "$tmp/got/small.bin"
			timeout 120 ip netns exec "$TOPO_QC" "$h3/h3client" -t 60 \
				--ca "$tmp/long/cert.pem" -o "$tmp/got/small.bin" \
				"https://$host:$port/small.bin" >>"$log" 2>&1
			rc=$?
			if [ $rc = 0 ] &&
			   [ "$(sha256sum <"$tmp/got/small.bin" | cut -d' ' -f1)" = "$small" ]; then
				result ok $suite "$name"
			else
				echo "   FAIL $name: status $rc"
				result "not ok" $suite "$name"
			fi
		done
		quic_stop_server
	done
fi
quic_exit
