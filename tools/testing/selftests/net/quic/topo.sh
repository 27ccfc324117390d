# SPDX-License-Identifier: GPL-2.0
#
# Network-namespace topologies for the QUIC selftests (sourced), in the
# spirit of WireGuard's netns.sh: a client, a router and a server, each in
# a namespace of its own, joined by veth pairs, so that a test can delay,
# drop, reorder or shrink the MTU on one link, or move the client, without
# touching lo or any interface of the host or the guest.
#
#     client (qc)              router (qr)              server (qs)
#     c0 10.9.1.1  ---- r0 10.9.1.254 | r1 10.9.2.254 ---- s0 10.9.2.1
#        fd09:1::1          fd09:1::fe | fd09:2::fe          fd09:2::1
#
#   topo_up			create it (names get a per-run suffix)
#   topo_down			remove it
#   topo_client|topo_router|topo_server CMD...	run CMD in that namespace
#   topo_link c|s [mtu N] [netem ARGS...]	set the client-side (c0/r0)
#				or server-side (r1/s0) link, both directions
#   topo_client_addr ADDR/LEN [ADDR6/LEN]	add an address to the client
#   topo_cert DIR		a key and self-signed certificate for the server
#				(DIR/key.pem, DIR/cert.pem)
#   topo_delta BEFORE AFTER	the counters (/proc/net/quic/snmp copies) that
#				moved, as " Name +N" (QUIC prefix dropped)
#   topo_grew NAME BEFORE AFTER	how much counter NAME grew
#
# TOPO_C4, TOPO_S4, TOPO_C6 and TOPO_S6 hold the end addresses.

TOPO_SUFFIX=${TOPO_SUFFIX:-$$}
TOPO_QC=qc$TOPO_SUFFIX
TOPO_QR=qr$TOPO_SUFFIX
TOPO_QS=qs$TOPO_SUFFIX
TOPO_C4=10.9.1.1
TOPO_S4=10.9.2.1
TOPO_C6=fd09:1::1
TOPO_S6=fd09:2::1

topo_client() { ip netns exec "$TOPO_QC" "$@"; }
topo_router() { ip netns exec "$TOPO_QR" "$@"; }
topo_server() { ip netns exec "$TOPO_QS" "$@"; }

topo_down() {
	local ns
	for ns in "$TOPO_QC" "$TOPO_QR" "$TOPO_QS"; do
		ip netns del "$ns" 2>/dev/null
	done
	return 0
}

topo_up() {
	topo_down
	ip netns add "$TOPO_QC" && ip netns add "$TOPO_QR" &&
		ip netns add "$TOPO_QS" || return 1
	ip -n "$TOPO_QC" link add c0 type veth peer name r0 netns "$TOPO_QR" &&
		ip -n "$TOPO_QR" link add r1 type veth peer name s0 \
			netns "$TOPO_QS" || return 1
	topo_client sysctl -qw net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0
	topo_server sysctl -qw net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0
	topo_router sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv6.conf.all.forwarding=1 net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0
	ip -n "$TOPO_QC" addr add $TOPO_C4/24 dev c0
	ip -n "$TOPO_QC" addr add $TOPO_C6/64 dev c0 nodad
	ip -n "$TOPO_QR" addr add 10.9.1.254/24 dev r0
	ip -n "$TOPO_QR" addr add fd09:1::fe/64 dev r0 nodad
	ip -n "$TOPO_QR" addr add 10.9.2.254/24 dev r1
	ip -n "$TOPO_QR" addr add fd09:2::fe/64 dev r1 nodad
	ip -n "$TOPO_QS" addr add $TOPO_S4/24 dev s0
	ip -n "$TOPO_QS" addr add $TOPO_S6/64 dev s0 nodad
	local ns
	for ns in "$TOPO_QC" "$TOPO_QR" "$TOPO_QS"; do
		ip -n "$ns" link set lo up
	done
	ip -n "$TOPO_QC" link set c0 up
	ip -n "$TOPO_QR" link set r0 up
	ip -n "$TOPO_QR" link set r1 up
	ip -n "$TOPO_QS" link set s0 up
	ip -n "$TOPO_QC" route add default via 10.9.1.254
	ip -n "$TOPO_QC" -6 route add default via fd09:1::fe
	ip -n "$TOPO_QS" route add default via 10.9.2.254
	ip -n "$TOPO_QS" -6 route add default via fd09:2::fe
}

# topo_link c|s [mtu N] [netem ARGS...]
topo_link() {
	local side=$1 a b na nb
	shift
	if [ "$side" = c ]; then
		na=$TOPO_QC a=c0 nb=$TOPO_QR b=r0
	else
		na=$TOPO_QR a=r1 nb=$TOPO_QS b=s0
	fi
	if [ "${1:-}" = mtu ]; then
		ip -n "$na" link set "$a" mtu "$2" &&
			ip -n "$nb" link set "$b" mtu "$2" || return 1
		shift 2
	fi
	if [ "${1:-}" = netem ]; then
		shift
		tc -n "$na" qdisc replace dev "$a" root netem "$@" &&
			tc -n "$nb" qdisc replace dev "$b" root netem "$@" ||
			return 1
	fi
}

# topo_client_addr ADDR/LEN [ADDR6/LEN]: a further client address.
topo_client_addr() {
	ip -n "$TOPO_QC" addr add "$1" dev c0 || return 1
	[ -z "${2:-}" ] || ip -n "$TOPO_QC" addr add "$2" dev c0 nodad
}

topo_delta() {
	awk 'NR == FNR { b[$1] = $2; next }
	     $2 != b[$1] { printf " %s +%d", substr($1, 5), $2 - b[$1] }' "$1" "$2"
}

topo_grew() {
	echo $(($(awk -v n="$1" '$1 == n { print $2 }' "$3") -
		$(awk -v n="$1" '$1 == n { print $2 }' "$2")))
}

# topo_cert DIR: DIR/key.pem and DIR/cert.pem, a self-signed P-256
# certificate for localhost and the server's addresses.
topo_cert() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$1/key.pem" -out "$1/cert.pem" -days 2 \
		-subj /CN=localhost \
		-addext "subjectAltName=DNS:localhost,IP:$TOPO_S4,IP:$TOPO_S6"
}
