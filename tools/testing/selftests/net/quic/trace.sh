#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The quic:* tracepoints against the counters, run inside the test VM by
# run_tests.sh. quic_xfer uploads QUIC_TRACE_SIZE bytes (4 MiB) from the
# client namespace to a listener in the server namespace (topo.sh), across
# a router whose client-side link delays 5 ms and loses 5% of the
# datagrams both ways, with every quic event enabled through tracefs
# (a tracefs mount of our own: "ip netns exec" mounts a fresh /sys). Each
# end, once its connection has gone quiet, writes a mark into
# trace_marker between two reads of its quic_info (QUIC_SOCKOPT_INFO),
# and reports the quic_info and its SO_COOKIE (quic_xfer.c). Before the
# client starts, 7 datagrams of 3 bytes (a long header cut short) go to
# the listener's port. Then:
#
#  - per end, the quic_packet_sent, quic_packet_rcvd and quic_packet_lost
#    events of its cookie up to its mark number exactly its qi_pkts_sent,
#    qi_pkts_rcvd and qi_pkts_lost, and the upload declared some lost;
#  - per end, its quic_state events go from CLOSE to SYN_RECV (connect()
#    or accept()), to ESTABLISHED, to CLOSE, and nowhere else; the
#    listener's from CLOSE to LISTEN to CLOSE;
#  - no event carries a cookie other than the client's, the accepted
#    socket's, the listener's, or 0 (quic_drop only: no socket);
#  - the short datagrams: as many quic_drop events, cookie 0, reason
#    QuicInDropMalformed, as that counter of /proc/net/quic/snmp grew;
#  - without loss, the receiver of an upload sends at most one ACK-only
#    1-RTT packet per 5 ack-eliciting ones it receives: the client asks
#    for fewer ACKs with ACK_FREQUENCY (draft-ietf-quic-ack-frequency);
#    RFC 9000's rule here would be one per 2, then per 4 (ackfreq.c);
#    an upload that lost packets and went over is tried again, up to 3
#    times, and the result skipped if each did;
#  - with the events disabled, a transfer adds no line to the buffer.
#
# The trace clock is set to "global" so that events of all CPUs are in
# order with the marks. Nothing asserts a time. Exits 1 if a result
# failed, 4 (KSFT_SKIP) if there is no tracefs or no quic events.

set -u
# shellcheck source=quic_lib.sh
. "$(dirname "$0")/quic_lib.sh"
# shellcheck source=topo.sh
. "$dir/topo.sh"

suite=trace
size=${QUIC_TRACE_SIZE:-4194304}
loss=${QUIC_TRACE_LOSS:-5%}
xfer=$dir/quic_xfer
port=4751
junk=7
quic_init

names=("client: quic_packet_sent events = qi_pkts_sent"
	"client: quic_packet_rcvd events = qi_pkts_rcvd"
	"client: quic_packet_lost events = qi_pkts_lost"
	"server: quic_packet_sent events = qi_pkts_sent"
	"server: quic_packet_rcvd events = qi_pkts_rcvd"
	"server: quic_packet_lost events = qi_pkts_lost"
	"the upload across $loss loss declared packets lost"
	"client: quic_state CLOSE, SYN_RECV, ESTABLISHED, CLOSE"
	"server: quic_state CLOSE, SYN_RECV, ESTABLISHED, CLOSE"
	"listener: quic_state CLOSE, LISTEN, CLOSE"
	"every event carries the cookie of its socket, or 0 for a drop"
	"quic_drop QuicInDropMalformed events = the counter's growth"
	"receiver: ACK-only packets <= ack-eliciting received / 5"
	"no event recorded while the events are disabled")

fail_all() {
	local n v=${2:-not ok}
	for n in "${names[@]}"; do
		result "$v" $suite "$n ($1)"
	done
	quic_exit
}

T=$tmp/tracefs
saved_clock='' saved_kb='' saved_on='' mounted=0
trace_cleanup() {
	[ -d "$T/events/quic" ] && echo 0 >"$T/events/quic/enable"
	[ -n "$saved_clock" ] && echo "$saved_clock" >"$T/trace_clock"
	[ -n "$saved_kb" ] && echo "$saved_kb" >"$T/buffer_size_kb"
	[ -n "$saved_on" ] && echo "$saved_on" >"$T/tracing_on"
	[ -f "$T/trace" ] && : >"$T/trace"
	[ $mounted = 1 ] && umount "$T"
	topo_down
}
quic_at_exit trace_cleanup

echo "== quic:* tracepoints against quic_info, $size bytes across $loss loss"
for p in ip tc awk; do
	command -v $p >/dev/null || fail_all "no $p"
done
[ -x "$xfer" ] || fail_all "quic_xfer not built"
modprobe -q quic 2>/dev/null
mkdir -p "$T"
mount -t tracefs nodev "$T" 2>>"$log" && mounted=1
[ -f "$T/trace_marker" ] || fail_all "no tracefs" skip
[ -d "$T/events/quic" ] || fail_all "no quic events in tracefs" skip
saved_clock=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$T/trace_clock")
saved_kb=$(awk '{ print $1 }' "$T/buffer_size_kb")
saved_on=$(cat "$T/tracing_on")
echo global >"$T/trace_clock" || fail_all "no global trace clock"
echo 8192 >"$T/buffer_size_kb" || fail_all "cannot size the buffer"
echo 1 >"$T/tracing_on"

modprobe -q sch_netem 2>>"$log"
topo_up >>"$log" 2>&1 || fail_all "no topology (veth, netns)"
# One datagram per skb, so that netem drops datagrams, not GSO batches.
ip -n "$TOPO_QC" link set dev c0 gso_max_segs 1 >>"$log" 2>&1
ip -n "$TOPO_QS" link set dev s0 gso_max_segs 1 >>"$log" 2>&1
topo_link c netem delay 5ms loss "$loss" >>"$log" 2>&1 ||
	fail_all "no netem"

snap() {
	topo_server cat /proc/net/quic/snmp
}

# xfer_run OUT [ARG...]: a listener on $port in the server namespace,
# then the client's upload; their reports and the listener's line in
# OUT.srv and OUT.cli. With "junk", the short datagrams go to the
# listener first (from inside the server namespace, no loss), the snmp
# counters around them in OUT.sb and OUT.sa, and a mark after them.
xfer_run() {
	local o=$1 jk=$2 i rc
	shift 2
	port=$((port + 1))
	topo_server "$xfer" -s "$@" $TOPO_S4 $port >"$o.srv" 2>>"$log" &
	srv_pid=$!
	for i in $(seq 100); do
		grep -q '^quic_xfer listener' "$o.srv" && break
		sleep 0.1
	done
	if [ "$jk" = junk ]; then
		snap >"$o.sb"
		topo_server "$xfer" -j -n $junk $TOPO_S4 $port >>"$log" 2>&1
		for i in $(seq 50); do
			snap >"$o.sa"
			[ "$(topo_grew QuicInDropMalformed "$o.sb" "$o.sa")" -ge $junk ] &&
				break
			sleep 0.1
		done
		echo "trace.sh junk sent" >"$T/trace_marker"
	fi
	timeout 600 ip netns exec "$TOPO_QC" "$xfer" -c -b "$size" "$@" \
		$TOPO_S4 $port >"$o.cli" 2>>"$log"
	rc=$?
	# The server ends when the client's close reaches it.
	for i in $(seq 300); do
		kill -0 "$srv_pid" 2>/dev/null || break
		sleep 0.1
	done
	quic_stop_server
	cat "$o.srv" "$o.cli" >>"$log"
	return $rc
}

# field FILE ROLE NAME: NAME=value of ROLE's report line in FILE.
field() {
	awk -v r="$2" -v n="$3" '$1 == "quic_xfer" && $2 == r {
		for (i = 3; i <= NF; i++)
			if (index($i, n "=") == 1)
				print substr($i, length(n) + 2) }' "$1"
}

# The run with every quic event on.
: >"$T/trace"
echo 1 >"$T/events/quic/enable"
xfer_run "$tmp/on" junk -M "$T/trace_marker"
xrc=$?
echo 0 >"$T/events/quic/enable"
overrun=$(awk '/^overrun:/ { n += $2 } END { print n + 0 }' \
	"$T"/per_cpu/cpu*/stats)
cat "$T/trace" >"$tmp/on.trace"
echo "   $(grep -vc '^#' "$tmp/on.trace") lines recorded, overrun $overrun" >>"$log"
if [ $xrc != 0 ]; then
	tail -n 20 "$log"
	fail_all "the transfer failed (status $xrc)"
fi
[ "$overrun" = 0 ] || fail_all "the trace buffer overran: $overrun events lost"

cc=$(field "$tmp/on.cli" client cookie)
cm=$(field "$tmp/on.cli" client mark)
sc=$(field "$tmp/on.srv" server cookie)
sm=$(field "$tmp/on.srv" server mark)
lc=$(field "$tmp/on.srv" listener cookie)
[ -n "$cc" ] && [ -n "$sc" ] && [ -n "$lc" ] && [ -n "$cm" ] && [ -n "$sm" ] ||
	fail_all "no report from quic_xfer"

# One pass over the trace: per cookie and event, the events up to that
# end's mark ("pre"); the state changes in order; the cookies seen; the
# drops before the junk mark.
awk -v cc="$cc" -v cm="$cm" -v sc="$sc" -v sm="$sm" -v lc="$lc" '
	/^#/ { next }
	{
		ev = ""
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[a-z_]+:$/ && $(i - 1) ~ /^[0-9.]+:$/) {
				ev = substr($i, 1, length($i) - 1)
				break
			}
		if (ev == "tracing_mark_write") {
			if ($(i + 1) == "quic_xfer" && $(i + 2) == "mark") {
				if ($(i + 3) == cc && $(i + 4) == cm)
					done[cc] = 1
				if ($(i + 3) == sc && $(i + 4) == sm)
					done[sc] = 1
			}
			if ($(i + 1) == "trace.sh" && $(i + 2) == "junk")
				junk_done = 1
			next
		}
		if (ev !~ /^quic_/)
			next
		ck = ""; st = ""; why = ""
		for (j = i + 1; j <= NF; j++) {
			if ($j ~ /^cookie=/)
				ck = substr($j, 8)
			if ($j ~ /^old=/)
				st = substr($j, 5) st
			if ($j ~ /^new=/)
				st = st ">" substr($j, 5)
			if ($j ~ /^reason=/)
				why = substr($j, 8)
		}
		if (!done[ck])
			pre[ev " " ck]++
		if (ev == "quic_state")
			states[ck] = states[ck] " " st
		if (ck != cc && ck != sc && ck != lc && !(ck == "0" && ev == "quic_drop"))
			stray[ev " cookie=" ck]++
		if (ev == "quic_drop" && !junk_done && ck == "0" &&
		    why == "QuicInDropMalformed")
			junk_drops++
		if (ev == "quic_drop")
			drops[ck " " why]++
		total[ev]++
	}
	END {
		for (r in total)
			printf "events %s %d\n", r, total[r]
		for (r in drops)
			printf "drops %s %d\n", r, drops[r]
		for (r in pre)
			printf "pre %s %d\n", r, pre[r]
		printf "states client%s\n", states[cc]
		printf "states server%s\n", states[sc]
		printf "states listener%s\n", states[lc]
		for (r in stray)
			printf "stray %s %d\n", r, stray[r]
		printf "junk %d\n", junk_drops
	}' "$tmp/on.trace" >"$tmp/on.sum"
sed 's/^/   /' "$tmp/on.sum" >>"$log"

pre() {
	awk -v e="$1" -v c="$2" '$1 == "pre" && $2 == e && $3 == c { n = $4 }
		END { print n + 0 }' "$tmp/on.sum"
}

# check_count ROLE COOKIE EVENT FIELD
check_count() {
	local want got
	want=$(field "$tmp/on.$([ "$1" = client ] && echo cli || echo srv)" "$1" "$4")
	got=$(pre "$3" "$2")
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		result ok $suite "$1: $3 events = qi_pkts_$4"
	else
		echo "   $1: $got $3 events up to its mark, qi_pkts_$4 ${want:-?}"
		result "not ok" $suite "$1: $3 events = qi_pkts_$4"
	fi
}
check_count client "$cc" quic_packet_sent sent
check_count client "$cc" quic_packet_rcvd rcvd
check_count client "$cc" quic_packet_lost lost
check_count server "$sc" quic_packet_sent sent
check_count server "$sc" quic_packet_rcvd rcvd
check_count server "$sc" quic_packet_lost lost

lost=$(field "$tmp/on.cli" client lost)
if [ "${lost:-0}" -gt 0 ]; then
	result ok $suite "the upload across $loss loss declared packets lost"
else
	echo "   the client declared ${lost:-?} packets lost"
	result "not ok" $suite "the upload across $loss loss declared packets lost"
fi

# check_states ROLE WANT NAME: ROLE's state changes (OLD>NEW) are WANT.
check_states() {
	local s
	s=$(awk -v r="$1" '$1 == "states" && $2 == r { $1 = $2 = ""; print }' \
		"$tmp/on.sum" | xargs)
	if [ "$s" = "$2" ]; then
		result ok $suite "$3"
	else
		echo "   $1 went through: ${s:-no state change}"
		result "not ok" $suite "$3"
	fi
}
check_states client "CLOSE>SYN_RECV SYN_RECV>ESTABLISHED ESTABLISHED>CLOSE" \
	"client: quic_state CLOSE, SYN_RECV, ESTABLISHED, CLOSE"
check_states server "CLOSE>SYN_RECV SYN_RECV>ESTABLISHED ESTABLISHED>CLOSE" \
	"server: quic_state CLOSE, SYN_RECV, ESTABLISHED, CLOSE"
check_states listener "CLOSE>LISTEN LISTEN>CLOSE" \
	"listener: quic_state CLOSE, LISTEN, CLOSE"

# The cookies: three distinct sockets, each with events, and nothing else.
if [ "$cc" != "$sc" ] && [ "$cc" != "$lc" ] && [ "$sc" != "$lc" ] &&
   [ "$cc" != 0 ] && [ "$sc" != 0 ] && [ "$lc" != 0 ] &&
   [ "$(pre quic_packet_sent "$cc")" -gt 0 ] &&
   [ "$(pre quic_packet_sent "$sc")" -gt 0 ] &&
   ! grep -q '^stray ' "$tmp/on.sum"; then
	result ok $suite "every event carries the cookie of its socket, or 0 for a drop"
else
	echo "   client $cc, server $sc, listener $lc; others:"
	grep '^stray ' "$tmp/on.sum" | head -n 5 | sed 's/^/     /'
	result "not ok" $suite "every event carries the cookie of its socket, or 0 for a drop"
fi

grew=$(topo_grew QuicInDropMalformed "$tmp/on.sb" "$tmp/on.sa")
got=$(awk '$1 == "junk" { print $2 }' "$tmp/on.sum")
if [ "$grew" = $junk ] && [ "$got" = "$grew" ]; then
	result ok $suite "quic_drop QuicInDropMalformed events = the counter's growth"
else
	echo "   $junk short datagrams: QuicInDropMalformed +$grew, $got quic_drop events"
	result "not ok" $suite "quic_drop QuicInDropMalformed events = the counter's growth"
fi

# ACK frequency: the same upload without loss, only the packet events
# on; the server's 1-RTT packets (space 0) sent with ACK frames alone
# (PADDING aside) against those it received that were ack-eliciting
# (any frame but PADDING, ACK and CONNECTION_CLOSE). A packet lost on
# the way (a queue overflowing under a slow guest) is answered with
# immediate ACKs, as it should be: an upload that lost packets and went
# over the ratio says nothing of the frequency, and is tried again, up
# to 3 times.
ack_ratio() {
	awk -v sc="$1" '
	BEGIN {
		split("0x1 0x4 0x5 0x8 0x9 0xc 0xd", a)
		for (i in a)
			ackonly[a[i]] = 1
		split("0 0x1 0x4 0x5 0x8 0x9 0xc 0xd 0x10000000 0x10000001 " \
		      "0x10000004 0x10000005 0x10000008 0x10000009 " \
		      "0x1000000c 0x1000000d", b)
		for (i in b)
			none[b[i]] = 1
	}
	/quic_packet_(sent|rcvd):/ {
		ck = ""; sp = ""; fr = ""
		for (j = 1; j <= NF; j++) {
			if ($j ~ /^cookie=/)
				ck = substr($j, 8)
			if ($j ~ /^space=/)
				sp = substr($j, 7)
			if ($j ~ /^frames=/)
				fr = substr($j, 8)
		}
		if (ck != sc || sp != "0")
			next
		if (/quic_packet_sent:/ && (fr in ackonly) && fr != "0x1")
			acks++
		if (/quic_packet_rcvd:/ && !(fr in none))
			elic++
	}
	END { print acks + 0, elic + 0 }' "$T/trace"
}

topo_link c netem delay 5ms >>"$log" 2>&1
acks=0 elic=0 xrc=1 sc= lost=
for try in 1 2 3; do
	: >"$T/trace"
	echo 1 >"$T/events/quic/quic_packet_sent/enable"
	echo 1 >"$T/events/quic/quic_packet_rcvd/enable"
	xfer_run "$tmp/ack" none
	xrc=$?
	echo 0 >"$T/events/quic/enable"
	sc=$(field "$tmp/ack.srv" server cookie)
	lost=$(field "$tmp/ack.cli" client lost)
	read -r acks elic <<<"$(ack_ratio "$sc")"
	echo "   ACK frequency, try $try: server $sc sent $acks ACK-only packets for $elic ack-eliciting received, client lost ${lost:-?}" >>"$log"
	ratio_ok=0
	[ -n "$sc" ] && [ "$elic" -gt 100 ] && [ $((acks * 5)) -le "$elic" ] &&
		ratio_ok=1
	[ $xrc = 0 ] && { [ $ratio_ok = 1 ] || [ "$lost" = 0 ]; } && break
done
name="receiver: ACK-only packets <= ack-eliciting received / 5"
if [ $xrc = 0 ] && [ $ratio_ok = 1 ]; then
	result ok $suite "$name"
elif [ $xrc = 0 ] && [ "$lost" != 0 ]; then
	echo "# $name: every upload lost packets and went over (last: $lost lost, $acks ACK-only for $elic)" >>"$log"
	result skip $suite "$name"
else
	echo "# $name: transfer status $xrc, $acks ACK-only packets sent for $elic ack-eliciting received" |
		tee -a "$log"
	result "not ok" $suite "$name"
fi

# A transfer of 1 MiB with the events disabled: the buffer stays
# empty (no mark is written either).
: >"$T/trace"
size=1048576 xfer_run "$tmp/off" none
xrc=$?
n=$(grep -vc '^#' "$T/trace")
if [ $xrc = 0 ] && [ "$n" = 0 ]; then
	result ok $suite "no event recorded while the events are disabled"
else
	echo "   transfer status $xrc, $n lines recorded:"
	grep -v '^#' "$T/trace" | head -n 5 | sed 's/^/     /'
	result "not ok" $suite "no event recorded while the events are disabled"
fi
quic_exit
