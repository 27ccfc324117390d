#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernel users of QUIC (Documentation/networking/quic.rst, "Kernel users"),
# run inside the test VM by run_tests.sh on a kernel with net/handshake
# (Debian's 6.12; skipped where the "handshake" genetlink family is
# missing, as on 6.1). Everything runs in a network namespace of its own:
#  - samples/quic's module as a client against kuser_peer's server over
#    libquic, kuser_peer's client against the module as a server, and the
#    module as both, each with a PSK (IPv4) and with certificates (IPv6):
#    BYTES (QUIC_KUSERS_BYTES, 16 MiB) each way, checked by SHA-256 on
#    both ends; tools/quic/agent's quic-agent runs every handshake;
#  - client certificates (x509, IPv6, 1 MiB each way): a server that
#    requires one (kuser_peer -r; the module's cert_request=2, whose
#    agent checks it against its trust anchors) gets the kernel client's,
#    and refuses a client without one, kernel or user space, which
#    learns why from the server's CONNECTION_CLOSE: the TLS alert
#    (RFC 9001 4.8: 0x100 + certificate_required, 116: 0x174), read
#    with getsockopt(QUIC_SOCKOPT_CONNECTION_CLOSE). A TLS 1.3 client
#    has finished its handshake by the time the server checks its
#    Certificate: that close is how it learns of the refusal;
#  - the process running a handshake killed (the agent answers EIO for
#    it), then the agent itself killed in the middle of a handshake (the
#    load fails with the handshake's timeout): nothing hangs;
#  - a hostile agent (kuser_badagent): a done message for a socket that
#    is not QUIC, for a QUIC socket with no request, for no socket, a
#    success with no handshake, a status that is not an errno (refused
#    by net/handshake; the request then times out): errors, never a
#    crash; and no agent at all: -ESRCH at once;
#  - quic_sample unloads after every load that succeeded (and quic at
#    the end of run_tests.sh).
# One result line per case (quic_lib.sh). Nothing asserts a time.

set -u
# shellcheck source=quic_lib.sh
. "$(dirname "$0")/quic_lib.sh"

suite=kusers
ns=quic-kusers
bytes=${QUIC_KUSERS_BYTES:-16777216}
agent_bin=$repo/tools/quic/agent/quic-agent
peer=$dir/kuser_peer
bad=$dir/kuser_badagent
quic_init

names=()
for a in "psk IPv4" "x509 IPv6"; do
	names+=("kernel client, user-space server, $a"
		"user-space client, kernel server, $a"
		"kernel client, kernel server, $a")
done
names+=("a user-space server requiring a client certificate gets the kernel client's"
	"a user-space server requiring a client certificate refuses a kernel client without one"
	"a kernel server requiring a client certificate gets the kernel client's"
	"a kernel server requiring a client certificate refuses a user-space client without one"
	"the agent's handshake killed: the agent answers EIO"
	"the agent killed mid-handshake fails the kernel client"
	"done for a socket that is not QUIC is refused"
	"done for a QUIC socket with no request is refused"
	"done for no socket is refused"
	"a success with no handshake is -EPROTO"
	"a status that is not an errno is refused, then times out"
	"an agent's errno reaches the kernel user"
	"no agent is -ESRCH"
	"quic_sample unloads after every load")

skip_all() {
	local n
	for n in "${names[@]}"; do
		result skip $suite "$n ($1)"
	done
	quic_exit
}

in_ns() { ip netns exec "$ns" "$@"; }

# The agent is quic_lib.sh's server ($srv_pid): quic_cleanup stops it.
cleanup() {
	pkill -f "$bad" 2>/dev/null
	pkill -f "$peer" 2>/dev/null
	rmmod quic_sample 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	[ -n "${ring:-}" ] && keyctl unlink "$ring" @u >/dev/null 2>&1
}
quic_at_exit cleanup

echo "== kernel users: samples/quic through net/handshake and quic-agent"
genl ctrl get name handshake >/dev/null 2>&1 ||
	modprobe handshake 2>/dev/null
if ! genl ctrl get name handshake >/dev/null 2>&1; then
	skip_all "this kernel has no net/handshake"
fi
for f in "$agent_bin" "$peer" "$bad"; do
	[ -x "$f" ] || skip_all "$(basename "$f") not built"
done
command -v keyctl >/dev/null || skip_all "keyctl (keyutils) not installed"
modinfo quic_sample >/dev/null 2>&1 || skip_all "quic_sample not built"

if ! ip netns add "$ns" || ! ip -n "$ns" link set lo up; then
	skip_all "no network namespace"
fi

# The keys: a PSK (identity, raw key) and a self-signed certificate for
# "localhost", in a keyring of their own the agent may read.
hex=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
echo "kusers-id:$hex" >"$tmp/psk"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 2 \
	-subj /CN=localhost -addext subjectAltName=DNS:localhost \
	>>"$log" 2>&1 || skip_all "openssl cannot make a certificate"
ring=$(keyctl newring kusers @u)
psk=$(printf "$(sed 's/../\\x&/g' <<<"$hex")" | keyctl padd user kusers-id "$ring")
cert=$(keyctl padd user kusers-cert "$ring" <"$tmp/cert.pem")
pkey=$(keyctl padd user kusers-key "$ring" <"$tmp/key.pem")
for k in "$ring" "$psk" "$cert" "$pkey"; do
	keyctl setperm "$k" 0x3f3f0000
done
echo "# keyring $ring: psk $psk cert $cert key $pkey" >>"$log"

start_agent() {
	# Not through in_ns: $! must be the agent itself.
	ip netns exec "$ns" "$agent_bin" -v --cafile "$tmp/cert.pem" \
		>>"$tmp/agent.log" 2>&1 &
	srv_pid=$!
	wait_for "$tmp/agent.log" "serving handshake requests"
}

# A line of the kernel log to read the next case's lines from.
mark=0
kmark() {
	mark=$((mark + 1))
	echo "kusers: case $mark" >/dev/kmsg
}
klog() {
	dmesg | sed -n "/kusers: case $mark\$/,\$p" | grep quic_sample
}

# sample ARG...: load quic_sample in the namespace, with a bound on it;
# a load that succeeds is undone at once, and whether rmmod could is
# kept for the last case.
sample() {
	local rc
	timeout 120 ip netns exec "$ns" modprobe quic_sample \
		bytes="$bytes" keyring="$ring" timeout_ms=20000 "$@" \
		2>>"$log"
	rc=$?
	if [ "$rc" = 0 ]; then
		if rmmod quic_sample 2>>"$log"; then
			echo ok >>"$tmp/unloads"
		else
			echo fail >>"$tmp/unloads"
		fi
	fi
	return "$rc"
}

# keys AUTH: the module's parameters for AUTH (psk, x509).
keys() {
	if [ "$1" = psk ]; then
		echo "psk=$psk addr=127.0.0.1"
	else
		echo "cert=$cert privkey=$pkey peername=localhost addr=::1"
	fi
}
peer_keys() {
	if [ "$1" = psk ]; then
		echo "-p $tmp/psk 127.0.0.1"
	else
		echo "-C $tmp/cert.pem -K $tmp/key.pem ::1"
	fi
}

# wait_for FILE TEXT: up to 60 s for TEXT in FILE (or the kernel log).
wait_for() {
	local _
	for _ in $(seq 600); do
		if [ "$1" = kernel ]; then
			klog | grep -q "$2" && return 0
		else
			grep -q "$2" "$1" 2>/dev/null && return 0
		fi
		sleep 0.1
	done
	return 1
}

# verdict NAME RC...: ok when every RC is 0 and the log has two digests.
verdict() {
	local name=$1 rc
	shift
	for rc in "$@"; do
		if [ "$rc" != 0 ]; then
			result "not ok" $suite "$name (status $*)"
			klog | tail -n 5 >>"$log"
			return
		fi
	done
	result ok $suite "$name"
}

# The three pairings. Word lists (ARGS) are split on purpose; a peer's
# ends with the address. Each case takes the next port and its own mark
# in the kernel log.
#
# user_server_case NAME BYTES PEER_ARGS SAMPLE_ARGS [CODE]: kuser_peer's
# server, the module as its client. Without CODE both ends must have
# their BYTES (the server's digest); with it both must fail, the client
# having read CODE from the server's CONNECTION_CLOSE.
user_server_case() {
	local name=$1 b=$2 want=${5:-} src prc
	port=$((port + 1))
	kmark
	: >"$tmp/peer.out"
	# shellcheck disable=SC2086	# word lists
	in_ns "$peer" -s -b "$b" $3 $port >"$tmp/peer.out" 2>>"$log" &
	peer_pid=$!
	wait_for "$tmp/peer.out" listening
	# shellcheck disable=SC2086
	sample role=client port=$port bytes="$b" $4
	src=$?
	wait "$peer_pid"
	prc=$?
	cat "$tmp/peer.out" >>"$log"
	klog >>"$log"
	if [ -z "$want" ]; then
		grep -q "server: received $b bytes" "$tmp/peer.out" ||
			prc="$prc(no digest)"
		verdict "$name" $src $prc
	elif [ "$src" != 0 ] && [ "$prc" != 0 ] &&
	     klog | grep -q "client: connection closed with error $want,"; then
		result ok $suite "$name"
	else
		result "not ok" $suite "$name (status $src $prc)"
	fi
}

# kernel_server_case NAME BYTES SAMPLE_ARGS PEER_ARGS [ERRNO CODE]: the
# module as a server, kuser_peer as its client. Without ERRNO both ends
# must have their BYTES (the module's ok line); with it the module's
# handshake must fail with -ERRNO and the client read CODE from its
# CONNECTION_CLOSE.
kernel_server_case() {
	local name=$1 b=$2 errno=${5:-} src prc spid
	port=$((port + 1))
	kmark
	# shellcheck disable=SC2086	# word lists
	sample role=server port=$port bytes="$b" $3 &
	spid=$!
	wait_for kernel "server: listening"
	# shellcheck disable=SC2086
	in_ns "$peer" -c -b "$b" $4 $port >"$tmp/peer.out" 2>>"$log"
	prc=$?
	wait "$spid"
	src=$?
	cat "$tmp/peer.out" >>"$log"
	klog >>"$log"
	if [ -z "$errno" ]; then
		klog | grep -q "server: got $b bytes and sent $b back: ok" ||
			src="$src(no ok line)"
		verdict "$name" $src $prc
	elif [ "$src" != 0 ] && [ "$prc" != 0 ] &&
	     klog | grep -q "server: handshake: -$errno\$" &&
	     grep -q "client: close code $6\$" "$tmp/peer.out"; then
		result ok $suite "$name"
	else
		result "not ok" $suite "$name (status $src $prc)"
	fi
}

# both_case NAME BYTES SAMPLE_ARGS: the module as both; two digests.
both_case() {
	local src
	port=$((port + 1))
	kmark
	# shellcheck disable=SC2086	# a word list
	sample role=both port=$port bytes="$2" $3
	src=$?
	klog >>"$log"
	[ "$(klog | grep -c "received $2 bytes, sha256")" = 2 ] ||
		src="$src(digests)"
	verdict "$1" $src
}

start_agent
port=4800
for a in "psk IPv4" "x509 IPv6"; do
	auth=${a% *}
	user_server_case "kernel client, user-space server, $a" "$bytes" \
		"$(peer_keys "$auth")" "$(keys "$auth")"
	kernel_server_case "user-space client, kernel server, $a" "$bytes" \
		"$(keys "$auth")" "$(peer_keys "$auth")"
	both_case "kernel client, kernel server, $a" "$bytes" "$(keys "$auth")"
done

# Client certificates, x509 over IPv6, 1 MiB each way.
cb=1048576
req="-r -C $tmp/cert.pem -K $tmp/key.pem ::1"
user_server_case "a user-space server requiring a client certificate gets the kernel client's" \
	$cb "$req" "$(keys x509)"
user_server_case "a user-space server requiring a client certificate refuses a kernel client without one" \
	$cb "$req" "peername=localhost addr=::1" 0x174
both_case "a kernel server requiring a client certificate gets the kernel client's" \
	$cb "cert_request=2 $(keys x509)"
kernel_server_case "a kernel server requiring a client certificate refuses a user-space client without one" \
	$cb "cert_request=2 $(keys x509)" "$(peer_keys x509)" 13 0x174

# killed NAME WHO ERRNO: the agent's handshake waits on a server that
# never answers; then WHO is killed: "child", the process running the
# handshake (the agent answers for it: EIO), or "agent", the agent and
# then its child (nobody answers: the request times out). The load must
# fail with -ERRNO, and the agent must have had the request (an idle
# agent times out alike).
killed() {
	local name=$1 who=$2 n0 spid src kids= sink _
	port=$((port + 1))
	kmark
	ip netns exec "$ns" "$peer" -u -t 60 127.0.0.1 $port \
		>"$tmp/sink.out" 2>>"$log" &
	sink=$!
	wait_for "$tmp/sink.out" listening
	n0=$(grep -c accepted "$tmp/agent.log")
	sample role=client port=$port psk="$psk" addr=127.0.0.1 \
		timeout_ms=5000 &
	spid=$!
	for _ in $(seq 600); do
		if [ "$(grep -c accepted "$tmp/agent.log")" -gt "$n0" ]; then
			kids=$(pgrep -P "$srv_pid")
			[ -n "$kids" ] && break
		fi
		sleep 0.1
	done
	if [ "$who" = agent ]; then
		kill -KILL "$srv_pid" 2>/dev/null
		quic_stop_server
	fi
	[ -n "$kids" ] && kill -KILL $kids 2>/dev/null
	wait "$spid"
	src=$?
	kill "$sink" 2>/dev/null
	wait "$sink" 2>/dev/null
	klog >>"$log"
	if [ -n "$kids" ] && [ "$src" != 0 ] && [ "$src" != 124 ] &&
	   klog | grep -q "client: handshake: -$3\$"; then
		result ok $suite "$name"
	else
		result "not ok" $suite "$name (status $src)"
	fi
}
killed "the agent's handshake killed: the agent answers EIO" child 5
killed "the agent killed mid-handshake fails the kernel client" agent 110

# The hostile agent. Each mode prints "ok ..." when the kernel answered
# as expected.
bad_case() {
	local name=$1 out rc
	shift
	out=$(in_ns timeout 60 "$bad" "$@" 2>&1)
	rc=$?
	echo "$out" >>"$log"
	if [ $rc = 0 ] && grep -q '^ok' <<<"$out"; then
		result ok $suite "$name"
	else
		result "not ok" $suite "$name"
	fi
}
bad_case "done for a socket that is not QUIC is refused" done-notquic
bad_case "done for a QUIC socket with no request is refused" done-unknown
bad_case "done for no socket is refused" done-nofd

# bad_status NAME STATUS ERRNO [ANSWER [TIMEOUT_MS]]: the hostile agent
# accepts the module's request and answers STATUS: the kernel's answer
# to it must match ANSWER (default: taken, "ok ..."), and the module's
# load fail with -ERRNO.
bad_status() {
	local name=$1 bpid src
	kmark
	in_ns timeout 60 "$bad" accept-status "$2" >"$tmp/bad.out" 2>&1 &
	bpid=$!
	wait_for "$tmp/bad.out" joined
	sample role=client port=4899 psk="$psk" addr=127.0.0.1 \
		timeout_ms="${5:-10000}"
	src=$?
	wait "$bpid"
	cat "$tmp/bad.out" >>"$log"
	klog >>"$log"
	if [ "$src" != 0 ] && grep -q "${4:-^ok}" "$tmp/bad.out" &&
	   klog | grep -q "client: handshake: -$3\$"; then
		result ok $suite "$name"
	else
		result "not ok" $suite "$name (status $src)"
	fi
}
bad_status "a success with no handshake is -EPROTO" 0 71
# net/handshake refuses a status above MAX_ERRNO (ERANGE): the request
# stays with the agent until the module's timeout.
bad_status "a status that is not an errno is refused, then times out" \
	99999 110 "Numerical result out of range" 3000
bad_status "an agent's errno reaches the kernel user" 13 13

kmark
sample role=client port=4899 psk="$psk" addr=127.0.0.1
src=$?
klog >>"$log"
if [ "$src" != 0 ] && klog | grep -q "client: handshake: -3\$"; then
	result ok $suite "no agent is -ESRCH"
else
	result "not ok" $suite "no agent is -ESRCH (status $src)"
fi

# quic itself unloads at the end of run_tests.sh, if no socket is left.
ip netns del "$ns"
if [ ! -d /sys/module/quic_sample ] && grep -q ok "$tmp/unloads" &&
   ! grep -q fail "$tmp/unloads"; then
	result ok $suite "quic_sample unloads after every load"
else
	result "not ok" $suite "quic_sample unloads after every load"
fi
cat "$tmp/agent.log" >>"$log"
quic_exit
