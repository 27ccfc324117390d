#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make bench": micro-benchmarks measured side by side in one VM boot.
# Prints figures and ratios. Exit status 1 when the floods' figures
# could not be measured (bench_flood.sh says which); the other sections
# assert nothing.

set -u
dir=$(cd "$(dirname "$0")" && pwd)

# bench_module MODULE: load MODULE with bench=1 and print its figures.
bench_module() {
	local mod=$1 before
	before=$(dmesg | wc -l)
	modprobe "$mod" bench=1 || { echo "$mod: cannot load"; return; }
	dmesg -t | tail -n +"$((before + 1))" | grep '^# bench:' | sed 's/^# bench: /  /'
	rmmod "$mod"
}

echo "== kernel $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
echo "== prandom_siphash (ns per call; lower is faster)"
bench_module test_prandom_siphash | tee /tmp/bench-prandom
# Ratios against prandom_siphash_u32, measured in the same boot.
awk '$1 == "prandom_siphash_u32" { base = $2 }
     { ns[$1] = $2 }
     END {
	if (!base)
		exit
	for (f in ns)
		if (f != "prandom_siphash_u32")
			printf "  ratio %s/prandom_siphash_u32 %.2f\n", f, ns[f] / base
     }' /tmp/bench-prandom | sort
# quic_test bench=1: the micro-benchmarks of net/quic/test, ns per operation
# and ratios: hashing (per lookup hash), packet protection (per 1200-byte
# packet), and ACK processing (per ACK of three ranges of 20: against a naive
# store that walks every packet in flight, and as the flight grows from
# 1,000 to 100,000 packets, where flat is ratio 1.0).
echo "== QUIC micro-benchmarks: hashing, packet protection, ACK processing" \
	"(ns per op; lower is faster)"
bench_module quic_test

# Throughput over loopback, measured side by side in this boot: kernel TCP
# (iperf3, and ktls_perf -c none), kTLS (ktls_perf: fixed keys, TLS 1.3
# records in the kernel) and kernel QUIC (quic_perf: a libquic handshake,
# then one stream). BENCH_MIB sets the size of each transfer (default
# 100 MiB), BENCH_REPS how many times each runs (default 1; the best run
# counts).
# Beside the MB/s of ktls_perf and quic_perf, the CPU time per GiB moved
# (ms/GiB; lower is cheaper): of the sending thread, of the receiving
# thread, and of the whole guest (its CPUs' time not idle: "system"), of
# which softirq; cpu_cost.h says what each includes. Under TCG these hold
# better than MB/s, which moves with when the two vCPUs run. With
# BENCH_REPS > 1 the lowest of each counts.
mib=${BENCH_MIB:-100}
reps=${BENCH_REPS:-1}
tput=/tmp/bench-tput
cpu=/tmp/bench-cpu
: >"$tput"
: >"$cpu"

# best NAME CMD...: run CMD $reps times; it prints a line ending in
# "X MB/s"; record the best X as "NAME X".
best() {
	best_of "$tput" MB/s "$@"
}

# best_of FILE UNIT NAME CMD...: the same for a line ending in "X UNIT",
# recorded in FILE. A line "cpu sender S ms/GiB receiver R ms/GiB ..."
# is printed beside it and recorded in $cpu as "NAME sender S receiver R
# ...", each run's.
best_of() {
	local file=$1 unit=$2 name=$3 out x c top=0 i
	shift 3
	for ((i = 0; i < reps; i++)); do
		if ! out=$("$@" 2>&1); then
			echo "  $name: failed: $(echo "$out" | tail -1)"
			continue
		fi
		x=$(echo "$out" | awk -v u="$unit" '$NF == u { print $(NF - 1) }' |
			tail -1)
		[ -n "$x" ] || continue
		c=$(echo "$out" | awk '$1 == "cpu" {
			for (i = 2; i + 2 <= NF; i += 3)
				if ($(i + 2) == "ms/GiB")
					printf " %s %s", $i, $(i + 1)
		}' | tail -1)
		echo "  $name: $x $unit${c:+; cpu ms/GiB$c}"
		[ -n "$c" ] && echo "$name$c" >>"$cpu"
		top=$(awk -v a="$top" -v b="$x" 'BEGIN { print (b > a) ? b : a }')
	done
	[ "$top" != 0 ] && echo "$name $top" >>"$file"
}

iperf_tcp() {
	local js
	iperf3 -s -1 -p 5301 >/dev/null 2>&1 &
	sleep 0.5
	js=$(iperf3 -c 127.0.0.1 -p 5301 -n "${mib}M" -J 2>/dev/null)
	wait
	echo "$js" | jq -r '.end.sum_received.bits_per_second / 8e6 |
		"\(. * 100 | floor / 100) MB/s"'
}

# ngtcp2 (user-space QUIC over GnuTLS, Debian's ngtcp2-server/-client):
# its default cipher list puts AES-128-GCM first.
# h3_get SERVER CLIENT [QLOG_DIR]: CLIENT downloads one file of $mib MiB
# from SERVER over HTTP/3 on loopback. SERVER is gtlsserver or our
# h3server (kernel QUIC, AES-128-GCM), CLIENT gtlsclient (writing its
# qlog into QLOG_DIR if given) or our h3client (kernel QUIC).
h3_get() {
	local srv=$1 cli=$2 w=/tmp/bench-h3 t0 t1 rc port=4499
	local qlog=${3:+--qlog-dir=$3} h3=$dir/../../../../../quic/http3
	rm -rf "$w" && mkdir -p "$w/www" "$w/dl" || return 1
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
		-nodes -keyout "$w/key.pem" -out "$w/cert.pem" -days 1 \
		-subj /CN=localhost -addext "subjectAltName=IP:127.0.0.1" \
		>/dev/null 2>&1 || return 1
	head -c "$((mib << 20))" /dev/zero >"$w/www/blob"
	case $srv in
	h3server) "$h3/h3server" -c AES-128-GCM -d "$w/www" 127.0.0.1 \
			"$port" "$w/key.pem" "$w/cert.pem" ;;
	*) gtlsserver -q -d "$w/www" 127.0.0.1 "$port" "$w/key.pem" \
			"$w/cert.pem" ;;
	esac >/dev/null 2>&1 &
	sleep 1
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086 # $qlog: one word or none
	case $cli in
	h3client) timeout 600 "$h3/h3client" -c AES-128-GCM \
			--ca "$w/cert.pem" -o "$w/dl/blob" \
			"https://127.0.0.1:$port/blob" ;;
	*) timeout 600 gtlsclient -q --exit-on-all-streams-close $qlog \
			--max-data=64M --max-stream-data-bidi-local=64M \
			--download "$w/dl" 127.0.0.1 "$port" \
			"https://127.0.0.1:$port/blob" ;;
	esac >/dev/null 2>&1
	rc=$?
	t1=$(date +%s.%N)
	kill %1 2>/dev/null
	wait
	[ $rc = 0 ] && [ "$(stat -c %s "$w/dl/blob" 2>/dev/null)" = "$((mib << 20))" ] ||
		{ echo "$cli from $srv failed ($rc)"; rm -rf "$w"; return 1; }
	rm -rf "$w"
	awk -v b="$((mib << 20))" -v t="$(echo "$t1 - $t0" | bc -l)" \
		-v n="$cli from $srv" 'BEGIN { printf "%s %.2f MB/s\n", n, b / t / 1e6 }'
}

echo "== throughput, ${mib} MiB over loopback (MB/s, 10^6 bytes; higher is faster)"
for m in /sys/module/aesni_intel /sys/module/chacha_x86_64; do
	[ -d "$m" ] || modprobe "$(basename "$m")" 2>/dev/null
done
best tcp iperf_tcp
best ktls-tcp "$dir/ktls_perf" -c none -m "$mib"
async=/sys/module/quic/parameters/crypto_async
for c in aes128 chacha; do
	best "ktls-$c" "$dir/ktls_perf" -c "$c" -m "$mib"
	best "quic-$c" "$dir/quic_perf" -c "$c" -m "$mib"
done
# The same with synchronous AEAD implementations only (quic.crypto_async=0).
if [ -w "$async" ]; then
	echo 0 >"$async"
	best quic-aes128-sync "$dir/quic_perf" -c aes128 -m "$mib"
	echo 1 >"$async"
fi
# ngtcp2 against itself, and against kernel QUIC: our h3client receiving
# from gtlsserver, gtlsclient receiving from our h3server.
if command -v gtlsserver >/dev/null && command -v gtlsclient >/dev/null; then
	best ngtcp2-aes128 h3_get gtlsserver gtlsclient
	best quic-from-ngtcp2 h3_get gtlsserver h3client
	best ngtcp2-from-quic h3_get h3server gtlsclient
fi
# The same at an Ethernet MTU on lo: QUIC datagrams and TCP segments of
# about 1500 bytes instead of 64 KiB (GSO and GRO still batch them).
lo_mtu=$(cat /sys/class/net/lo/mtu)
if ip link set lo mtu 1500 2>/dev/null; then
	best ktls-tcp-mtu1500 "$dir/ktls_perf" -c none -m "$mib"
	best ktls-aes128-mtu1500 "$dir/ktls_perf" -c aes128 -m "$mib"
	best quic-aes128-mtu1500 "$dir/quic_perf" -c aes128 -m "$mib"
	ip link set lo mtu "$lo_mtu"
fi
echo "  AEAD drivers in use (/proc/crypto, highest priority first):"
# In /proc/crypto an AEAD's "async" line comes after its "type" line.
awk -F' *: ' '/^name/ { n = $2 } /^driver/ { d = $2 } /^priority/ { p = $2 }
	/^type/ { t = $2 }
	/^async/ && t == "aead" && (n == "gcm(aes)" ||
				    n == "rfc7539(chacha20,poly1305)") {
		printf "    %s %s priority %s async %s\n", n, d, p, $2 }' \
	/proc/crypto | sort -k1,1 -k4,4nr | uniq
# A ratio of MB/s, then, where both have them, the ratios of CPU per GiB
# (sender, receiver, system: above 1 is costlier than the second).
awk 'FILENAME == ARGV[1] { v[$1] = $2; next }
     {
	for (i = 2; i < NF; i += 2)
		if (!(($1, $i) in c) || $(i + 1) < c[$1, $i])
			c[$1, $i] = $(i + 1)
     }
     function r(a, b,	k, i, s) {
	if (v[a] && v[b])
		printf "  ratio %s/%s %.2f\n", a, b, v[a] / v[b]
	split("sender receiver system", k, " ")
	s = ""
	for (i = 1; i <= 3; i++)
		if (c[a, k[i]] > 0 && c[b, k[i]] > 0)
			s = s sprintf(" %s %.2f", k[i], c[a, k[i]] / c[b, k[i]])
	if (s != "")
		printf "  ratio cpu/GiB %s/%s%s\n", a, b, s
     }
     END {
	r("quic-aes128", "tcp"); r("quic-aes128", "ktls-aes128")
	r("quic-chacha", "tcp"); r("quic-chacha", "ktls-chacha")
	r("ktls-aes128", "tcp"); r("ktls-aes128", "ktls-tcp")
	r("quic-aes128", "quic-aes128-sync")
	r("quic-aes128", "ngtcp2-aes128")
	r("quic-from-ngtcp2", "ngtcp2-aes128")
	r("ngtcp2-from-quic", "ngtcp2-aes128")
	r("quic-aes128-mtu1500", "ktls-aes128-mtu1500")
	r("ktls-aes128-mtu1500", "ktls-tcp-mtu1500")
     }' "$tput" "$cpu"

# The cost of the quic tracepoints: the same bulk transfer with every
# quic:* event enabled through tracefs, each event recorded into the
# ftrace ring buffer (default size, overwriting), next to it with the
# events off, in turn, in this boot. "events" is what the ring buffer took
# during the traced runs (entries kept plus overwritten).
trace_cost() {
	local tr=/tmp/bench-tracefs on=0 n
	mkdir -p "$tr"
	mount -t tracefs nodev "$tr" 2>/dev/null
	if [ ! -d "$tr/events/quic" ]; then
		echo "  no quic events in tracefs: no tracing figure"
		umount "$tr" 2>/dev/null
		return
	fi
	echo "== quic tracing: ${mib} MiB over loopback, quic:* recorded in the" \
		"ring buffer vs off (MB/s)"
	echo 0 >"$tr/events/quic/enable"
	: >"$tr/trace"
	for ((n = 0; n < reps; n++)); do
		reps=1 best quic-aes128-trace-off "$dir/quic_perf" -c aes128 \
			-m "$mib"
		echo 1 >"$tr/events/quic/enable"
		reps=1 best quic-aes128-trace-on "$dir/quic_perf" -c aes128 \
			-m "$mib"
		echo 0 >"$tr/events/quic/enable"
		on=$((on + $(awk '/^(entries|overrun):/ { n += $2 }
				END { print n + 0 }' "$tr"/per_cpu/cpu*/stats)))
		: >"$tr/trace"
	done
	echo "  events recorded while on: $on"
	umount "$tr"
	awk '{ v[$1] < $2 && v[$1] = $2 }
	     END {
		a = v["quic-aes128-trace-on"]; b = v["quic-aes128-trace-off"]
		if (a && b)
			printf "  ratio quic tracing on/off %.2f\n", a / b
	     }' "$tput"
}
trace_cost

# ACK frequency: per end of a bulk transfer, the packets it sent that
# carry an ACK frame per ack-eliciting packet it received (one with a
# frame other than PADDING, ACK and CONNECTION_CLOSE); the receiving end's
# figure is the one that counts. BENCH_ACK_MIB (default 20, at most
# BENCH_MIB) per transfer, outside the timed runs: QUIC between our ends,
# counted from quic:quic_packet_sent and quic_packet_rcvd (their frames
# masks, bit N for frame type N) in the ftrace ring buffer; ngtcp2 from
# gtlsclient's qlog, on the downloading end (the client). ngtcp2 sends
# packets of about 1450 bytes whatever lo's MTU, so the headline compares
# it with ours at lo MTU 1500.
ack_mib=${BENCH_ACK_MIB:-20}
[ "$ack_mib" -le "$mib" ] || ack_mib=$mib
acks=/tmp/bench-acks
: >"$acks"

# ack_quic TRACEFS NAME: a quic_perf transfer with the two events on; a
# line per end, and "NAME RATIO" (the receiver's) into $acks.
ack_quic() {
	local tr=$1 name=$2 kb lost ev=$1/events/quic
	kb=$(sed -e 's/.*expanded: *\([0-9]*\).*/\1/' -e 's/ .*//' \
		"$tr/buffer_size_kb")
	# 16 MiB a CPU: a 20 MiB transfer at MTU 1500 records about 4 MiB.
	echo 16384 >"$tr/buffer_size_kb"
	: >"$tr/trace"
	echo 1 >"$ev/quic_packet_sent/enable"
	echo 1 >"$ev/quic_packet_rcvd/enable"
	"$dir/quic_perf" -c aes128 -m "$ack_mib" >/dev/null 2>&1 ||
		echo "  $name: quic_perf failed"
	echo 0 >"$ev/quic_packet_sent/enable"
	echo 0 >"$ev/quic_packet_rcvd/enable"
	lost=$(awk '/^overrun:/ { n += $2 } END { print n + 0 }' \
		"$tr"/per_cpu/cpu*/stats)
	[ "$lost" = 0 ] || echo "  $name: $lost events lost: figures low"
	awk -v name="$name" -v out="$acks" '
	function hex(s,	i, n) {
		n = 0
		sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++)
			n = n * 16 + index("0123456789abcdef",
					   substr(s, i, 1)) - 1
		return n
	}
	function bit(n, b) {
		return int(n / 2 ^ b) % 2
	}
	/ quic_packet_(sent|rcvd): / {
		k = ""
		f = 0
		for (i = 1; i <= NF; i++)
			if ($i ~ /^cookie=/)
				k = substr($i, 8)
			else if ($i ~ /^frames=/)
				f = hex(substr($i, 8))
		ack = bit(f, 2) || bit(f, 3)
		# Not eliciting: PADDING 0x00, ACK 0x02-0x03,
		# CONNECTION_CLOSE 0x1c-0x1d.
		el = f - bit(f, 0) - 4 * bit(f, 2) - 8 * bit(f, 3)
		el = el - 2 ^ 28 * bit(f, 28) - 2 ^ 29 * bit(f, 29) > 0
		if ($0 ~ / quic_packet_sent: /)
			acked[k] += ack
		else
			elic[k] += el
		seen[k] = 1
	}
	END {
		# The receiver: the socket that received the most
		# ack-eliciting packets; the sender: the next.
		for (k in seen)
			if (rx == "" || elic[k] > elic[rx])
				rx = k
		for (k in seen)
			if (k != rx && (tx == "" || elic[k] > elic[tx]))
				tx = k
		if (!elic[rx]) {
			printf "  %s: no packets traced\n", name
			exit
		}
		printf "  %s: receiver %d ACKs / %d ack-eliciting = %.3f",
		       name, acked[rx], elic[rx], acked[rx] / elic[rx]
		if (elic[tx])
			printf ", sender %d / %d = %.3f", acked[tx], elic[tx],
			       acked[tx] / elic[tx]
		printf "\n"
		printf "%s %.3f\n", name, acked[rx] / elic[rx] >>out
	}' "$tr/trace"
	: >"$tr/trace"
	echo "$kb" >"$tr/buffer_size_kb"
}

# ack_ngtcp2: the same from gtlsclient's qlog (JSON-SEQ, an event a line).
ack_ngtcp2() {
	local q=/tmp/bench-qlog
	rm -rf "$q" && mkdir -p "$q" || return
	if ! mib=$ack_mib h3_get gtlsserver gtlsclient "$q" >/dev/null; then
		echo "  ngtcp2: gtlsclient failed"
		rm -rf "$q"
		return
	fi
	cat "$q"/* | awk -v out="$acks" '
	/"name":"transport:packet_sent"/ && /"frame_type":"ack"/ { acked++ }
	/"name":"transport:packet_received"/ {
		s = $0
		while (match(s, /"frame_type":"[a-z_]+"/)) {
			t = substr(s, RSTART + 14, RLENGTH - 15)
			s = substr(s, RSTART + RLENGTH)
			if (t != "ack" && t != "padding" &&
			    t != "connection_close") {
				elic++
				break
			}
		}
	}
	END {
		if (!elic) {
			print "  ngtcp2: no packets in the qlog"
			exit
		}
		printf "  ngtcp2: client (receiver) %d ACKs / %d ack-eliciting = %.3f\n",
		       acked, elic, acked / elic
		printf "ngtcp2 %.3f\n", acked / elic >>out
	}'
	rm -rf "$q"
}

ack_freq() {
	local tr=/tmp/bench-tracefs lo_mtu
	mkdir -p "$tr"
	mount -t tracefs nodev "$tr" 2>/dev/null
	echo "== ACKs per ack-eliciting packet received, ${ack_mib} MiB bulk" \
		"over loopback (ACK-carrying packets sent; lower is fewer)"
	if [ ! -d "$tr/events/quic/quic_packet_rcvd" ]; then
		echo "  no quic events in tracefs: no quic figure"
	else
		ack_quic "$tr" quic
		lo_mtu=$(cat /sys/class/net/lo/mtu)
		if ip link set lo mtu 1500 2>/dev/null; then
			ack_quic "$tr" quic-mtu1500
			ip link set lo mtu "$lo_mtu"
		fi
	fi
	umount "$tr" 2>/dev/null
	command -v gtlsserver >/dev/null && command -v gtlsclient >/dev/null &&
		ack_ngtcp2
	awk '{ v[$1] = $2 }
	     END {
		if (("quic-mtu1500" in v) && ("ngtcp2" in v))
			printf "  acks per ack-eliciting packet: quic %s, ngtcp2 %s" \
			       " (receiving ends; quic at lo MTU 1500)\n",
			       v["quic-mtu1500"], v["ngtcp2"]
	     }' "$acks"
}
ack_freq

# Request/response and connection setup over loopback, side by side in
# this boot. BENCH_RT round trips (default 2000) of a 1 KiB request and a
# 1 KiB response, one after the other over one connection: quic_perf -r
# gives each round trip a bidirectional stream of its own, as HTTP/3 does
# (request and response each end with FIN, streams come back through
# MAX_STREAMS), and -r -s puts them all on one stream, as over TCP;
# ktls_perf -r is one TCP connection (TCP_NODELAY) with kTLS both ways.
# BENCH_HS connections (default 50) one after the other: quic_perf -H
# runs connect, a full libquic handshake (ECDSA P-256 certificate, no
# resumption) and close; ktls_perf -H only connects, accepts and installs
# fixed kTLS keys both ways on both ends, as there is no TLS handshake in
# it, so quic/ktls for handshakes compares a full QUIC handshake with the
# floor of a TLS-over-TCP setup.
# No ngtcp2 figure: gtlsclient -n N sends its N HTTP/3 requests on
# concurrent streams (as many as gtlsserver's stream limit allows), not
# one after another; with gtlsserver --max-streams-bidi=1 each request
# would wait for a MAX_STREAMS behind the client's delayed ACK (up to
# 25 ms), and each run would count the process start and the handshake.
rt=${BENCH_RT:-2000}
hs=${BENCH_HS:-50}
rr=/tmp/bench-rr
: >"$rr"
echo "== request/response (1 KiB each way, $rt round trips) and handshakes" \
	"($hs connections) over loopback (per second; higher is faster)"
best_of "$rr" rt/s tcp-rr "$dir/ktls_perf" -c none -r "$rt"
best_of "$rr" rt/s ktls-aes128-rr "$dir/ktls_perf" -c aes128 -r "$rt"
best_of "$rr" rt/s quic-aes128-rr "$dir/quic_perf" -c aes128 -r "$rt"
best_of "$rr" rt/s quic-aes128-rr-1stream "$dir/quic_perf" -c aes128 \
	-r "$rt" -s
best_of "$rr" hs/s tcp-setup "$dir/ktls_perf" -c none -H "$hs"
best_of "$rr" hs/s ktls-aes128-setup "$dir/ktls_perf" -c aes128 -H "$hs"
best_of "$rr" hs/s quic-aes128-hs "$dir/quic_perf" -c aes128 -H "$hs"
awk '{ v[$1] = $2 }
     function r(a, b) {
	if (v[a] && v[b])
		printf "  ratio %s/%s %.3f\n", a, b, v[a] / v[b]
     }
     END {
	r("quic-aes128-rr", "ktls-aes128-rr")
	r("quic-aes128-rr-1stream", "ktls-aes128-rr")
	r("quic-aes128-rr", "quic-aes128-rr-1stream")
	r("ktls-aes128-rr", "tcp-rr")
	r("quic-aes128-hs", "ktls-aes128-setup")
	r("ktls-aes128-setup", "tcp-setup")
     }' "$rr"

# Goodput and fairness over an impaired path (10 Mbit/s, 30 ms RTT) across
# a router, QUIC against ngtcp2 and TCP: bench_paths.sh.
"$dir/bench_paths.sh"

# Kernel memory per idle established connection (both ends), slab and
# free-memory deltas, QUIC vs TCP; BENCH_CONNS connections (default 100).
# Last, so that the connections it closes do not share the CPU with the
# throughput runs.
conns=${BENCH_CONNS:-100}
echo "== memory per idle connection, $conns connections over loopback (bytes; lower is better)"
"$dir/quic_mem" -n "$conns" | tee /tmp/bench-mem
"$dir/quic_mem" -t -n "$conns" | tee -a /tmp/bench-mem
awk '{ s[$1] = $5; m[$1] = $10 }
     END {
	if (s["tcp"] > 0 && m["tcp"] > 0)
		printf "  ratio quic/tcp slab %.1f, memory %.1f\n",
		       s["quic"] / s["tcp"], m["quic"] / m["tcp"]
     }' /tmp/bench-mem

# Floods of spoofed QUIC Initials at a listener that answers each with a
# Retry, and of TCP SYNs at one that answers each with a SYN cookie, at
# the same rate; CPU profiles of both: bench_flood.sh, which fails when
# a figure of its table could not be measured.
if ! "$dir/bench_flood.sh"; then
	echo "FAIL: bench: flood figures missing (see above)"
	exit 1
fi
