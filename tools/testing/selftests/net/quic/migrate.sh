#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A client whose address changes under a transfer (RFC 9000 9), across a
# router (topo.sh), run inside the test VM by run_tests.sh. Our h3server
# in the server namespace serves a download (and takes an upload); the
# client's address changes mid-transfer (0.5 s in; the router's rewrites
# once the body has begun to come):
#  - gtlsclient --change-local-addr --nat-rebinding, uploading: a new
#    source port, the client carries on as if nothing happened (a NAT
#    rebinding; downloading, it would send nothing more from the new
#    port, having closed the old one, and no server could follow it);
#  - gtlsclient --change-local-addr: a new source port, and the client
#    validates the new path itself;
#  - the router starts rewriting the client's UDP source port (tc pedit,
#    stateless, both ways): our h3client, from h3server and from
#    gtlsserver (the router's counters stand for the move there: the
#    client sees none, and gtlsserver has no counters of ours); and
#    gtlsclient with the first datagrams our server sends to the new port
#    lost at the router (its PATH_CHALLENGE among them: tc police lets
#    6000 bytes conform and drops them), so that the server must send its
#    challenge again, or give the validation up and go back to the old
#    port, which the router still lets through, if the client, which
#    only downloads, sends nothing more;
#  - the router starts translating the client's IPv4 address (a
#    stateless tc "nat" action both ways): a new source address, for our
#    h3client and for gtlsclient;
#  - our h3client moves itself to a second local address (--migrate,
#    QUIC_SOCKOPT_CONNECTION_MIGRATION) once 256 KiB have come, from our
#    h3server and from ngtcp2's gtlsserver.
# The server must follow the client: every body is compared by SHA-256,
# and the server's QuicPathMigrations counter must have grown (the
# client's, for its own move; with gtlsserver, the router must have
# rewritten packets both ways). One result line per transfer (quic_lib.sh:
# TAP on stdout and a line of $RESULTS); the server's counters go to the
# log. Nothing asserts a time. Exits 1 if a transfer failed, 4 (KSFT_SKIP)
# if all were skipped or none was left to run.
#
# QUIC_MIGRATE_SIZE (default 2 MiB) sets the size of the file;
# QUIC_MIGRATE_FAMS ("4 6") the address families of the port cases;
# QUIC_MIGRATE_ONLY, a shell pattern, the cases that run (by name, e.g.
# '*changes its port*'; the others are left out of the results).

set -u
# shellcheck source=quic_lib.sh
. "$(dirname "$0")/quic_lib.sh"
# shellcheck source=topo.sh
. "$dir/topo.sh"

h3=$repo/tools/quic/http3
suite=migrate
size=${QUIC_MIGRATE_SIZE:-2097152}
port=4633
# The client's address as the server sees it once the router translates.
nat4=10.9.1.77
quic_init
quic_at_exit topo_down

names=()
for fam in ${QUIC_MIGRATE_FAMS:-4 6}; do
	names+=("gtlsclient NAT rebinding (new port) upload IPv$fam"
		"gtlsclient migration (new port, validated by the client) IPv$fam"
		"h3client behind a NAT that changes its port IPv$fam"
		"gtlsclient behind a NAT that changes its port, its first datagrams back lost IPv$fam"
		"h3client moves to a second address, from h3server IPv$fam"
		"h3client moves to a second address, from gtlsserver IPv$fam"
		"h3client behind a NAT that changes its port, from gtlsserver IPv$fam")
done
names+=("h3client behind a NAT that changes its address IPv4"
	"gtlsclient behind a NAT that changes its address IPv4")

fail_all() {
	local n
	for n in "${names[@]}"; do
		result "not ok" $suite "$n ($1)"
	done
	quic_exit
}

echo "== a client that moves"
for p in ip tc gtlsclient openssl sha256sum; do
	command -v $p >/dev/null || fail_all "no $p"
done
[ -x "$h3/h3client" ] && [ -x "$h3/h3server" ] || fail_all "h3client/h3server not built"
modprobe -q virtio_rng 2>/dev/null
# Loaded now, not by the first rule in mid-transfer.
for m in sch_ingress cls_matchall cls_flower act_nat act_pedit act_csum \
	act_police; do
	modprobe -q $m 2>>"$log"
done
topo_up >>"$log" 2>&1 || fail_all "no topology (veth, netns)"
topo_cert "$tmp" 2>>"$log" || fail_all "no certificate"
# The second address our h3client moves to; the IPv6 one deprecated, so
# that it is not taken as the source before the move.
{ topo_client ip addr add 10.9.1.2/24 dev c0 &&
  topo_client ip addr add fd09:1::2/64 dev c0 nodad preferred_lft 0; } \
	>>"$log" 2>&1 || fail_all "no second client address"
mkdir -p "$tmp/www" "$tmp/got"
head -c "$size" /dev/urandom >"$tmp/www/f.bin"
sum=$(sha256sum <"$tmp/www/f.bin" | cut -d' ' -f1)
# The client's link is slowed so that the transfer outlasts the move.
topo_link c netem delay 5ms rate 8mbit >>"$log" 2>&1

# snap [NS]: the QUIC counters of the server's namespace, or of NS.
snap() {
	ip netns exec "${1:-$TOPO_QS}" cat /proc/net/quic/snmp 2>/dev/null
}

# nat_rules addr|port|port-lossy FAM: the router's rewrite as a tc batch,
# on stdout: it translates the client's IPv4 address to $nat4 towards the
# server, and back; or the source port of the client's QUIC socket,
# $cport, to 40000, and back. Stateless, so a flow already running
# changes address at once. The way back goes in first, so that the
# server's first answer to the new address is not lost; port-lossy loses
# it: a police action lets the first 6000 bytes back conform, and drops
# them (the server's first PATH_CHALLENGE and what it sent with it),
# then hardly refills (100 bit/s), so that all that exceeds it goes on
# to be rewritten. (With 1600 bytes, one datagram, the server recovered
# even before its fixes; with 6000 or 12000, the module of 21dd1d6 went
# silent in 2 runs of 3, the client sending nothing more.)
nat_rules() {
	local ip=ip police=

	echo "qdisc replace dev r1 clsact"
	case $1 in
	addr)
		echo "filter add dev r1 ingress matchall" \
			"action nat ingress $nat4/32 $TOPO_C4"
		echo "filter add dev r1 egress matchall" \
			"action nat egress $TOPO_C4/32 $nat4"
		;;
	port|port-lossy)
		[ "$2" = 6 ] && ip=ipv6
		[ "$1" = port-lossy ] && police="action police rate 100bit \
burst 6000 mtu 64k conform-exceed pipe/drop"
		echo "filter add dev r1 ingress protocol $ip flower" \
			"ip_proto udp dst_port 40000 $police" \
			"action pedit ex munge udp dport set $cport" \
			"pipe action csum udp"
		echo "filter add dev r1 egress protocol $ip flower" \
			"ip_proto udp src_port $cport" \
			"action pedit ex munge udp sport set 40000" \
			"pipe action csum udp"
		;;
	esac
}

# nat_off: the router rewrites nothing more.
nat_off() {
	tc -n "$TOPO_QR" qdisc del dev r1 clsact 2>/dev/null
	return 0
}

# policed: how many packets back to the client the police action dropped.
policed() {
	local n

	n=$(tc -n "$TOPO_QR" -s filter show dev r1 ingress 2>/dev/null |
		awk '/police/ { p = 1 } p && /dropped/ {
			sub(/,/, "", $7); print $7; exit }')
	echo "${n:-0}"
}

# rewritten DIR: how many packets the router's rule on r1 DIR (egress:
# from the client, ingress: back to it) has rewritten.
rewritten() {
	local n

	n=$(tc -n "$TOPO_QR" -s filter show dev r1 "$1" 2>/dev/null |
		awk '/Sent/ { print $4; exit }')
	echo "${n:-0}"
}

# now VAR: microseconds since the epoch in VAR, with no fork.
now() {
	printf -v "$1" %s "${EPOCHREALTIME//[.,]/}"
}

# The router's rewrites need clsact and the nat, pedit and csum actions,
# the lost PATH_CHALLENGE the police action; a kernel without them (the
# debug kernel's config has no police) skips those cases.
tc_rewrites=1 tc_police=1
{ topo_router tc qdisc replace dev r1 clsact &&
  topo_router tc filter add dev r1 egress matchall \
	action nat egress 10.9.1.200/32 10.9.1.201 &&
  topo_router tc filter add dev r1 ingress protocol ip flower ip_proto udp \
	dst_port 40001 action pedit ex munge udp dport set 40002 \
	pipe action csum udp; } >>"$log" 2>&1 || tc_rewrites=0
topo_router tc filter add dev r1 ingress protocol ip flower ip_proto udp \
	dst_port 40003 action police rate 100bit burst 1600 mtu 64k \
	conform-exceed pipe/drop >>"$log" 2>&1 || tc_police=0
topo_router tc qdisc del dev r1 clsact 2>/dev/null

# In the port case, the client's QUIC socket takes the one port of its
# namespace's ephemeral range, out of the default one (no earlier socket
# holds it): known before the client starts, not looked for with ss
# under the transfer.
cport=20000
range=$(topo_client sysctl -n net.ipv4.ip_local_port_range)

# move FILE PID T0 RULES: the router starts rewriting (RULES, from
# nat_rules) once the body has begun to come to FILE, the transfer of PID
# (started at T0, in microseconds) under way; without FILE, 0.5 s in.
# The rules go to a tc that was started before the client and waits for
# them on fd 9 (tc -batch -): under TCG a download lasts some 2 s, and
# starting a program there takes a good part of a second, seconds when
# the machine is busy or the program not yet read (over 9p). Says in the
# log when the rules went in; fails (1) when they did not, (2) when the
# transfer had ended by then.
move() {
	local file=$1 pid=$2 t0=$3 rules=$4 i t1 t2

	for ((i = 0; i < 300; i++)); do
		if [ -z "$file" ]; then
			sleep 0.5
			break
		fi
		[ -s "$file" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	now t1
	# A subshell: a tc that died would kill the writer with SIGPIPE.
	(echo "$rules" >&9) 2>/dev/null
	exec 9>&-
	wait "$nat_pid" || return 1
	now t2
	echo "   router rewriting $(((t2 - t0) / 1000)) ms after the client" \
		"started, the body there from $(((t1 - t0) / 1000)) ms"
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "   the transfer had ended before the router's rules were in"
		return 2
	fi
}

# transfer NAME CHECKFILE MOVE CMD...: one transfer; MOVE (nat_rules'
# arguments, or "") happens once the body has begun (move); the body
# (downloads) is checked, and the server must have followed the client
# at least once (the client must have moved, with WHO=client in the
# environment; with WHO=router, the router must have rewritten packets
# both ways, for a server without our counters). A rewrite that no packet
# went through is told as such, and so is a police action that dropped
# nothing.
transfer() {
	local name=$1 file=$2 move=$3 rc moved pid ns=$TOPO_QS why='' out back
	local t0 rules nat_pid dropped
	shift 3
	# shellcheck disable=SC2053
	[[ $name == ${QUIC_MIGRATE_ONLY:-*} ]] || return 0
	if [ -n "$move" ] && [ $tc_rewrites = 0 ]; then
		result skip $suite "$name (no tc clsact, nat or pedit)"
		return
	fi
	if [ "${move% *}" = port-lossy ] && [ $tc_police = 0 ]; then
		result skip $suite "$name (no tc police)"
		return
	fi
	[ "${WHO:-server}" = client ] && ns=$TOPO_QC
	echo "-- $name" >>"$log"
	rm -f "$tmp/got/f.bin"
	snap "$ns" >"$tmp/before"
	if [ -n "$move" ]; then
		# shellcheck disable=SC2086
		rules=$(nat_rules $move)
		[[ ${move% *} == port* ]] && topo_client sysctl -qw \
			net.ipv4.ip_local_port_range="$cport $cport"
		exec 9> >(tc -n "$TOPO_QR" -batch - >>"$log" 2>&1)
		nat_pid=$!
	fi
	now t0
	"$@" >>"$log" 2>&1 9>&- &
	pid=$!
	if [ -n "$move" ]; then
		move "$file" $pid "$t0" "$rules" >>"$log" 2>&1
		case $? in
		1) why=", the router's rules did not go in" ;;
		2) why=", the transfer ended before the router's rules went in" ;;
		esac
	fi
	wait $pid
	rc=$?
	if [ -n "$move" ]; then
		[[ ${move% *} == port* ]] && topo_client sysctl -qw \
			net.ipv4.ip_local_port_range="$range"
		out=$(rewritten egress)
		back=$(rewritten ingress)
		echo "   router: $out packets rewritten towards the server," \
			"$back back" >>"$log"
		if [ "$out" = 0 ]; then
			echo "   the router's rewrite never took effect:" \
				"no packet went through it" >>"$log"
			[ -n "$why" ] ||
				why=", the router's rewrite never took effect"
		fi
		if [ "${move% *}" = port-lossy ]; then
			dropped=$(policed)
			echo "   router: $dropped packets back dropped" >>"$log"
			[ "$dropped" -ge 1 ] || [ -n "$why" ] ||
				why=", the router dropped nothing back"
		fi
	fi
	nat_off
	snap "$ns" >"$tmp/after"
	echo "   ${WHO:-server}:$(topo_delta "$tmp/before" "$tmp/after")" >>"$log"
	if [ "${WHO:-server}" = router ]; then
		moved=0
		[ "$out" -gt 0 ] && [ "$back" -gt 0 ] && moved=1
	else
		moved=$(topo_grew QuicPathMigrations "$tmp/before" "$tmp/after")
	fi
	[ -z "$why" ] || moved=0
	if [ "$rc" = 0 ] && [ "$moved" -ge 1 ] &&
	   { [ -z "$file" ] ||
	     [ "$(sha256sum <"$file" 2>/dev/null | cut -d' ' -f1)" = "$sum" ]; }; then
		result ok $suite "$name"
	else
		echo "   FAIL $name: status $rc, $moved validated moves," \
			"$(stat -c %s "$file" 2>/dev/null || echo 0) bytes$why"
		result "not ok" $suite "$name"
	fi
}

start_server() {
	port=$((port + 1))
	ip netns exec "$TOPO_QS" "$h3/h3server" -d "$tmp/www" "$1" $port \
		"$tmp/key.pem" "$tmp/cert.pem" >>"$log" 2>&1 &
	srv_pid=$!
	sleep 1
}

gtls() {
	timeout 120 ip netns exec "$TOPO_QC" gtlsclient -q \
		--exit-on-all-streams-close "$@"
}

for fam in ${QUIC_MIGRATE_FAMS:-4 6}; do
	if [ $fam = 4 ]; then addr=$TOPO_S4 host=$TOPO_S4; else addr=$TOPO_S6 host="[$TOPO_S6]"; fi
	start_server "$addr"
	url="https://$host:$port/f.bin"
	transfer "gtlsclient NAT rebinding (new port) upload IPv$fam" \
		"" "" gtls --change-local-addr=500ms --nat-rebinding \
		-d "$tmp/www/f.bin" "$addr" $port "$url"
	transfer "gtlsclient migration (new port, validated by the client) IPv$fam" \
		"$tmp/got/f.bin" "" gtls --change-local-addr=500ms \
		--download "$tmp/got" "$addr" $port "$url"
	transfer "h3client behind a NAT that changes its port IPv$fam" \
		"$tmp/got/f.bin" "port $fam" timeout 120 \
		ip netns exec "$TOPO_QC" "$h3/h3client" -t 100 \
		--ca "$tmp/cert.pem" -o "$tmp/got/f.bin" "$url"
	nat="gtlsclient behind a NAT that changes its port"
	transfer "$nat, its first datagrams back lost IPv$fam" \
		"$tmp/got/f.bin" "port-lossy $fam" gtls \
		--download "$tmp/got" "$addr" $port "$url"
	if [ $fam = 4 ]; then to=10.9.1.2:45000; else to="[fd09:1::2]:45000"; fi
	WHO=client transfer \
		"h3client moves to a second address, from h3server IPv$fam" \
		"$tmp/got/f.bin" "" timeout 120 \
		ip netns exec "$TOPO_QC" "$h3/h3client" -t 100 --migrate "$to" \
		--ca "$tmp/cert.pem" -o "$tmp/got/f.bin" "$url"
	quic_stop_server
	port=$((port + 1))
	ip netns exec "$TOPO_QS" gtlsserver -q -d "$tmp/www" "$addr" $port \
		"$tmp/key.pem" "$tmp/cert.pem" >>"$log" 2>&1 &
	srv_pid=$!
	sleep 1
	url="https://$host:$port/f.bin"
	WHO=client transfer \
		"h3client moves to a second address, from gtlsserver IPv$fam" \
		"$tmp/got/f.bin" "" timeout 120 \
		ip netns exec "$TOPO_QC" "$h3/h3client" -t 100 --migrate "$to" \
		--ca "$tmp/cert.pem" -o "$tmp/got/f.bin" "$url"
	WHO=router transfer \
		"h3client behind a NAT that changes its port, from gtlsserver IPv$fam" \
		"$tmp/got/f.bin" "port $fam" timeout 120 \
		ip netns exec "$TOPO_QC" "$h3/h3client" -t 100 \
		--ca "$tmp/cert.pem" -o "$tmp/got/f.bin" "$url"
	quic_stop_server
done

start_server "$TOPO_S4"
url="https://$TOPO_S4:$port/f.bin"
transfer "h3client behind a NAT that changes its address IPv4" \
	"$tmp/got/f.bin" addr timeout 120 ip netns exec "$TOPO_QC" \
	"$h3/h3client" -t 100 --ca "$tmp/cert.pem" -o "$tmp/got/f.bin" "$url"
quic_stop_server
start_server "$TOPO_S4"
url="https://$TOPO_S4:$port/f.bin"
transfer "gtlsclient behind a NAT that changes its address IPv4" \
	"$tmp/got/f.bin" addr gtls --download "$tmp/got" "$TOPO_S4" $port "$url"
quic_stop_server
quic_exit
