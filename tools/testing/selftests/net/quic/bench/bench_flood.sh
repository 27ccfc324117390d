#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make bench", floods (run by bench.sh): the same rate of quic_flood
# packets from spoofed 127/8 sources at a QUIC listener that sends every
# client without a token a Retry (net.quic.retry_threshold 0; h3server on
# 127.0.0.1:4500), then at a TCP listener that answers every SYN with a
# SYN cookie (net.ipv4.tcp_syncookies 2; iperf3 -s on 127.0.0.1:4501).
# Prints the rate quic_flood achieved, QUIC Initials processed and Retry
# packets sent per second (snmp), the handshakes per second of h3client
# fetching 1 KiB in a loop during the QUIC flood, SYN cookies per second
# (TcpExtSyncookiesSent), their ratio, and for each flood the shares of
# CPU samples (perf record -a -g, cpu-clock, reports in
# $OUT/flood-{quic,tcp}.report.txt) of the noise stirring and output of
# prandom_siphash, keyed SipHash, AEAD and header protection, the QUIC
# lookup tables, and the top 10 symbols.
#
# perf records to a directory of mktemp (tmpfs in the test VM): perf
# mmaps its output shared and writable, which the VM's 9p share of the
# repository ($OUT) refuses ("failed to mmap file"). Only the text
# report is written to $OUT.
#
# Exit status 1, with a "FAIL:" line for each, when a figure this exists
# for could not be measured: a flood that did not run or sent nothing, a
# listener that did not start, counters that did not move (no Initial
# processed, no Retry, no SYN cookie), no legitimate handshake during the
# QUIC flood, or no CPU profile (perf missing, failed, or no samples).
#
# BENCH_FLOOD_SECS (default 10) and BENCH_FLOOD_RATE (default 8000 pps)
# set both floods. The default rate is one the sender reaches for both
# kinds in the VM, so that both listeners get the same offered load.

set -u
dir=$(cd "$(dirname "$0")" && pwd)
# The tests' directory: quic_flood and quic_helpers.sh (quic_wait_port).
sel=$(cd "$dir/.." && pwd)
repo=$(cd "$sel/../../../../.." && pwd)
. "$sel/quic_helpers.sh"
OUT=${OUT:-$repo/.vm}

h3=$repo/tools/quic/http3
secs=${BENCH_FLOOD_SECS:-10}
rate=${BENCH_FLOOD_RATE:-8000}
qport=4500
tport=4501
sysctl=/proc/sys/net/quic/retry_threshold
snmp=/proc/net/quic/snmp
log=$OUT/bench_flood.log
{ mkdir -p "$OUT" && : >"$log"; } 2>/dev/null || log=/dev/null
tmp=$(mktemp -d) || { echo "FAIL: flood: no temporary directory"; exit 1; }
failed=0
srv_pid='' lis_pid='' fl_pid='' perf_pid='' old_thr='' old_cookies=''

cleanup() {
	local p
	for p in $fl_pid $perf_pid $srv_pid $lis_pid; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	[ -n "$old_thr" ] && echo "$old_thr" >"$sysctl"
	[ -n "$old_cookies" ] && sysctl -qw net.ipv4.tcp_syncookies="$old_cookies"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# fail WHAT: a figure could not be measured; the bench fails at the end.
fail() {
	echo "  FAIL: $*"
	failed=$((failed + 1))
}

# finish: the verdict, and the exit status.
finish() {
	if [ "$failed" -gt 0 ]; then
		echo "  FAIL: flood: $failed figure(s) not measured (log: $log)"
		exit 1
	fi
	exit 0
}

# skip WHY: nothing can be measured at all.
skip() {
	fail "flood: cannot run, $1"
	finish
}

echo "== floods, $rate pps offered for $secs s from spoofed sources:" \
	"QUIC Initials at a Retry-only listener," \
	"TCP SYNs at a SYN-cookie listener (per second)"
for p in timeout ss cmp; do
	command -v $p >/dev/null || skip "no $p"
done
[ -x "$sel/quic_flood" ] || skip "quic_flood not built"

# The perf binary: Debian's /usr/bin/perf may be a wrapper that wants a
# perf_<version> matching the running kernel.
perf=
for p in perf /usr/bin/perf_* /usr/lib/linux-tools*/perf; do
	"$p" version >/dev/null 2>&1 && { perf=$p; break; }
done
[ -n "$perf" ] || fail "flood: no working perf binary: no CPU profiles"

# flood_run NAME ARGS...: quic_flood ARGS at $rate pps for $secs s, in
# the background ($fl_pid), its line in $tmp/NAME.flood; perf record -a
# to $tmp/NAME.perf ($perf_pid) from before it starts until it ends.
# perf is not the flood's parent: run so, it has hung in its setup
# (quic_flood never started, in 2 of 4 runs in the VM) and the flood
# figures were lost with the profile. perf starts with its events off
# and turns them on when told on its control FIFO; the flood starts
# once perf acknowledged that, and runs even if perf has not in 150 s
# (its setup, reading every process's maps and the kernel's symbols
# from the host's share, has taken more than 30 s in the VM).
flood_run() {
	local name=$1
	shift
	perf_pid=
	if [ -n "$perf" ]; then
		rm -f "$tmp/$name.perf" "$tmp/ctl" "$tmp/ack"
		mkfifo "$tmp/ctl" "$tmp/ack"
		timeout $((secs + 300)) "$perf" record -a -g -F 999 \
			-e cpu-clock -D -1 --control "fifo:$tmp/ctl,$tmp/ack" \
			--no-buildid-cache -o "$tmp/$name.perf" >>"$log" 2>&1 &
		perf_pid=$!
		timeout 150 bash -c 'echo enable >"$1" && read -r a <"$2" &&
			[ "$a" = ack ]' - "$tmp/ctl" "$tmp/ack" ||
			echo "perf record: no ack of enable" >>"$log"
	fi
	timeout $((secs + 30)) "$sel/quic_flood" "$@" -r "$rate" \
		-d "$secs" >"$tmp/$name.flood" 2>>"$log" &
	fl_pid=$!
}

# flood_wait NAME: wait for both; print quic_flood's line; set $fl_secs
# and $fl_pps, the time it took and the rate it achieved (a failure when
# it did not run or sent nothing).
flood_wait() {
	local line rc=0
	wait "$fl_pid" || rc=$?
	fl_pid=
	# perf writes its file and exits on SIGINT; a failure, or too
	# few samples, shows in profile().
	if [ -n "$perf_pid" ]; then
		kill -INT "$perf_pid" 2>/dev/null
		wait "$perf_pid"
	fi
	perf_pid=
	fl_secs=$(awk '/^sent / { print $5 }' "$tmp/$1.flood")
	fl_pps=$(awk '/^sent / { print $7 }' "$tmp/$1.flood")
	line=$(head -n 1 "$tmp/$1.flood")
	echo "  $1 flood: ${line:-quic_flood failed (see $log)}"
	[ "$rc" = 0 ] || fail "$1 flood: quic_flood exited with $rc (see $log)"
	[ -n "$fl_secs" ] || { fl_secs=$secs; fl_pps=0; }
	awk -v p="$fl_pps" 'BEGIN { exit !(p > 0) }' ||
		fail "$1 flood: nothing sent"
}

# nonzero NAME VALUE: a failure unless VALUE, a measured rate, is above 0.
nonzero() {
	awk -v v="$2" 'BEGIN { exit !(v > 0) }' || fail "$1 is $2"
}

# per_sec DELTA: DELTA over the flood's elapsed time.
per_sec() {
	awk -v d="$1" -v t="$fl_secs" 'BEGIN { printf "%.0f", (t > 0 ? d / t : 0) }'
}

# profile NAME: perf report of $tmp/NAME.perf to $tmp/NAME.report and
# a copy in $OUT/flood-NAME.report.txt, and the shares of the symbol
# groups (sums of the Overhead column) and the top 10 symbols; a failure
# when there is no report or it has no samples.
profile() {
	local data=$tmp/$1.perf rep=$OUT/flood-$1.report.txt n
	[ -n "$perf" ] || return 0
	if ! [ -s "$data" ] || ! timeout 600 "$perf" report -i "$data" --stdio \
		--no-children --sort symbol --kallsyms /proc/kallsyms \
		>"$tmp/$1.report" 2>>"$log"; then
		fail "$1 profile: perf record or report failed (see $log)"
		return 0
	fi
	# At least 100 samples per second of the flood (it gets some
	# 1000 per second and CPU in the VM): fewer, and perf did not
	# record the flood.
	n=$(awk '/^# Samples: / { v = $3; m = 1
		if (v ~ /K$/) m = 1000; else if (v ~ /M$/) m = 1000000
		sub(/[KM]$/, "", v); print int(v * m); exit }' "$tmp/$1.report")
	if ! grep -qE '^ +[0-9.]+% +\[[^]]*\] ' "$tmp/$1.report" ||
	   [ "${n:-0}" -lt $((secs * 100)) ]; then
		fail "$1 profile: ${n:-no} samples, fewer than $((secs * 100)) (see $log)"
		return 0
	fi
	cp "$tmp/$1.report" "$rep" 2>>"$log" || rep=$tmp/$1.report
	echo "  $1 profile, share of all CPU samples ($rep):"
	# prandom_siphash_add_noise() is inline: its cost shows in its
	# callers unless the compiler kept a copy of it.
	awk '/^ +[0-9.]+% +\[[^]]*\] / {
		p = $1; sub(/%/, "", p); s = $3; l = tolower(s)
		if (s ~ /^prandom_siphash_add_noise/) g["noise"] += p
		else if (s ~ /^prandom_siphash_(u32|u64|bytes|u32_below|state_next_u32)$/)
			g["prng"] += p
		else if (s ~ /^(__)?h?siphash/) g["sip"] += p
		else if (l ~ /aes|gcm|gf128|ghash|chacha|poly1305|crypto_/) g["aead"] += p
		else if (s ~ /quic_lookup|quic_cidtable/) g["lookup"] += p
		if (n < 10) top[n++] = sprintf("      %6.2f%%  %s", p, s)
	}
	END {
		printf "    noise stirring (prandom_siphash_add_noise, inline): %.2f%%\n",
			g["noise"]
		printf "    prandom_siphash output (prandom_siphash_u32/u64/bytes/" \
			"u32_below/state_next_u32): %.2f%%\n", g["prng"]
		printf "    keyed SipHash (siphash_*, __siphash_*, hsiphash): %.2f%%\n", g["sip"]
		printf "    AEAD and header protection (aes, gcm, gf128, ghash, chacha," \
			" poly1305, crypto_): %.2f%%\n", g["aead"]
		printf "    table lookups (quic_lookup*, quic_cidtable*): %.2f%%\n", g["lookup"]
		print "    top 10 symbols:"
		for (i = 0; i < n; i++)
			print top[i]
	}' "$tmp/$1.report"
}

# delta NAME: the snmp counter NAME over the QUIC flood.
delta() {
	awk -v n="$1" '$1 == n { v[FILENAME] = $2 }
		END { print v[ARGV[2]] - v[ARGV[1]] }' "$tmp/snmp.before" "$tmp/snmp.after"
}

syncookies() {
	awk '$1 == "TcpExt:" {
		if (!h) { for (i = 2; i <= NF; i++) k[i] = $i; h = 1; next }
		for (i = 2; i <= NF; i++) if (k[i] == "SyncookiesSent") print $i
	}' /proc/net/netstat
}

q_pps=- q_in=- q_retry=- q_hs=- t_pps=- t_cookies=-

# a. QUIC: every Initial without a token gets a Retry.
[ -e "$sysctl" ] || modprobe -q quic 2>/dev/null
if ! [ -x "$h3/h3client" ] || ! [ -x "$h3/h3server" ]; then
	fail "quic: h3client/h3server not built"
elif ! [ -w "$sysctl" ] || ! [ -r "$snmp" ]; then
	fail "quic: no $sysctl or $snmp"
elif ! openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 1 -subj /CN=localhost \
	-addext "subjectAltName=DNS:localhost,IP:127.0.0.1" >>"$log" 2>&1; then
	fail "quic: no certificate (see $log)"
else
	modprobe -q virtio_rng 2>/dev/null
	old_thr=$(cat "$sysctl")
	echo 0 >"$sysctl"
	mkdir -p "$tmp/www"
	head -c 1024 /dev/urandom >"$tmp/www/small.bin"
	"$h3/h3server" -q -d "$tmp/www" 127.0.0.1 $qport "$tmp/key.pem" \
		"$tmp/cert.pem" >>"$log" 2>&1 &
	srv_pid=$!
	quic_wait_port u $qport || fail "quic: h3server did not bind port $qport"
	cp "$snmp" "$tmp/snmp.before"
	flood_run quic -m initial -s -a 127.0.0.1 -p $qport
	# Real clients, one after another, for as long as the flood lasts.
	ok=0 tries=0 end=$((SECONDS + secs))
	t0=$(date +%s.%N)
	while [ $SECONDS -lt $end ] && kill -0 "$fl_pid" 2>/dev/null; do
		tries=$((tries + 1))
		rm -f "$tmp/small.got"
		timeout 30 "$h3/h3client" -q -t 25 --ca "$tmp/cert.pem" \
			-o "$tmp/small.got" "https://127.0.0.1:$qport/small.bin" \
			>>"$log" 2>&1 &&
			cmp -s "$tmp/small.got" "$tmp/www/small.bin" &&
			ok=$((ok + 1))
	done
	t1=$(date +%s.%N)
	flood_wait quic
	cp "$snmp" "$tmp/snmp.after"
	kill "$srv_pid" 2>/dev/null
	wait "$srv_pid" 2>/dev/null
	srv_pid=
	echo "$old_thr" >"$sysctl" && old_thr=
	awk 'NR == FNR { b[$1] = $2; next } $2 != b[$1] { printf " %s +%d", $1, $2 - b[$1] }
	     END { print "" }' "$tmp/snmp.before" "$tmp/snmp.after" >>"$log"
	q_pps=$fl_pps
	q_in=$(per_sec "$(delta QuicInPackets)")
	q_retry=$(per_sec "$(delta QuicOutRetry)")
	q_hs=$(awk -v n=$ok -v a="$t0" -v b="$t1" \
		'BEGIN { printf "%.2f", (b > a ? n / (b - a) : 0) }')
	echo "  quic Initials processed per second: $q_in"
	echo "  quic Retry packets per second: $q_retry"
	echo "  quic legitimate handshakes per second during the flood:" \
		"$q_hs ($ok of $tries h3client runs)"
	nonzero "quic Initials processed per second" "$q_in"
	nonzero "quic Retry packets per second" "$q_retry"
	[ "$ok" -gt 0 ] ||
		fail "quic: no legitimate handshake during the flood" \
			"($ok of $tries h3client runs, see $log)"
	profile quic
fi

# b. TCP: every SYN gets a SYN cookie.
if ! command -v sysctl >/dev/null; then
	fail "tcp: no sysctl"
else
	old_cookies=$(sysctl -n net.ipv4.tcp_syncookies)
	sysctl -qw net.ipv4.tcp_syncookies=2
	if command -v iperf3 >/dev/null; then
		iperf3 -s -B 127.0.0.1 -p $tport >>"$log" 2>&1 &
	else
		python3 -c 'import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", '$tport')); s.listen(128); time.sleep(3600)' >>"$log" 2>&1 &
	fi
	lis_pid=$!
	if quic_wait_port t $tport; then
		c0=$(syncookies)
		flood_run tcp -m syn -a 127.0.0.1 -p $tport
		flood_wait tcp
		c1=$(syncookies)
		t_pps=$fl_pps
		t_cookies=$(per_sec $((${c1:-0} - ${c0:-0})))
		echo "  tcp SYN cookies per second: $t_cookies"
		nonzero "tcp SYN cookies per second" "$t_cookies"
		profile tcp
	else
		fail "tcp: no listener on port $tport (iperf3 or python3)"
	fi
	kill "$lis_pid" 2>/dev/null
	wait "$lis_pid" 2>/dev/null
	lis_pid=
	sysctl -qw net.ipv4.tcp_syncookies="$old_cookies" && old_cookies=
fi

ratio=$(awk -v q="$q_retry" -v t="$t_cookies" \
	'BEGIN { if (q != "-" && t != "-" && t > 0) printf "%.2f", q / t; else print "-" }')
echo "  ratio QUIC Retry/s ÷ TCP SYN cookies/s: $ratio"
echo "  summary ($rate pps offered, $secs s):"
printf "    %-22s %10s %12s %14s %12s\n" flood "sent pps" "processed/s" "answered/s" "legit hs/s"
printf "    %-22s %10s %12s %14s %12s\n" "quic initial -s" "$q_pps" "$q_in" "$q_retry Retry" "$q_hs"
printf "    %-22s %10s %12s %14s %12s\n" "tcp syn" "$t_pps" - "$t_cookies cookies" -
finish
