#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Floods at a listener, run inside the test VM by run_tests.sh: our
# h3server (--idle 5) on 127.0.0.1, net.quic.retry_threshold at 16, takes
# quic_flood's junk, valid Initials, valid Initials from spoofed sources
# (-s) and one Initial replayed, each for 20 s at 3000 pps; meanwhile
# h3client downloads 1 MiB from it, compared by SHA-256. The QUIC and
# QUICv6 slab objects and the Slab of /proc/meminfo are printed before,
# during (after the download) and 8 s after each flood, with the snmp
# counters the flood moved. Result lines (quic_lib.sh), per flood: the
# download succeeds; the QUIC socket objects come back within 4 of what
# they were before. At the end, at most 2 h3server children are left
# (the half-open connections of the floods timed out). Nothing asserts a
# time or a rate. Exits 1 if a result failed.
#
# QUIC_FLOOD_SECS (20) and QUIC_FLOOD_RATE (3000 pps) set each flood.

set -u
# shellcheck source=quic_lib.sh
. "$(dirname "$0")/quic_lib.sh"

h3=$repo/tools/quic/http3
suite=flood
secs=${QUIC_FLOOD_SECS:-20}
rate=${QUIC_FLOOD_RATE:-3000}
modes=("junk" "initial" "initial -s" "replay")
port=4481
sysctl=/proc/sys/net/quic/retry_threshold
snmp=/proc/net/quic/snmp
quic_init

fl_pid=
old_thr=
flood_cleanup() {
	[ -n "$fl_pid" ] && kill "$fl_pid" 2>/dev/null
	wait 2>/dev/null
	[ -n "$old_thr" ] && echo "$old_thr" >"$sysctl"
}
quic_at_exit flood_cleanup

fail_all() {
	local m
	for m in "${modes[@]}"; do
		result "not ok" $suite "download during $m flood ($1)"
		result "not ok" $suite "QUIC sockets return to baseline after $m flood ($1)"
	done
	result "not ok" $suite "no half-open connection left behind ($1)"
	quic_exit
}

echo "== floods at h3server: ${modes[*]} (${secs} s at $rate pps each)"
for p in openssl sha256sum timeout pgrep ps ss; do
	command -v $p >/dev/null || fail_all "no $p"
done
[ -x "$h3/h3client" ] && [ -x "$h3/h3server" ] || fail_all "no h3client/h3server"
[ -x "$dir/quic_flood" ] || fail_all "no quic_flood"
[ -e "$sysctl" ] || modprobe -q quic 2>/dev/null
[ -w "$sysctl" ] || fail_all "no $sysctl"
[ -r "$snmp" ] || fail_all "no $snmp"
[ -r /proc/slabinfo ] || fail_all "no /proc/slabinfo"
modprobe -q virtio_rng 2>/dev/null

if ! openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 2 -subj /CN=localhost \
	-addext "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1" 2>>"$log"; then
	fail_all "no certificate"
fi
mkdir -p "$tmp/www"
head -c 1048576 /dev/urandom >"$tmp/www/f.bin"
sum=$(sha256sum <"$tmp/www/f.bin" | cut -d' ' -f1)

old_thr=$(cat "$sysctl")
echo 16 >"$sysctl" || fail_all "retry_threshold not settable"

"$h3/h3server" --idle 5 -d "$tmp/www" 127.0.0.1 $port \
	"$tmp/key.pem" "$tmp/cert.pem" >>"$log" 2>&1 &
srv_pid=$!
quic_wait_udp $port || fail_all "h3server did not start"

# quic_objs: the active QUIC and QUICv6 slab objects, "none" without
# such caches. The caches are shrunk first, so that objects freed to a
# CPU's slab are not counted as active.
quic_objs() {
	local c n
	for c in QUIC QUICv6; do
		[ -w /sys/kernel/slab/$c/shrink ] &&
			echo 1 >/sys/kernel/slab/$c/shrink 2>/dev/null
	done
	n=$(grep -E '^(QUIC|QUICv6) ' /proc/slabinfo |
		awk '{ n += $2 } END { if (NR) print n }')
	echo "${n:-none}"
}

slab_kb() {
	awk '$1 == "Slab:" { print $2 }' /proc/meminfo
}

# counter NAME FILE: one counter of an snmp copy (0 if absent).
counter() {
	awk -v n="$1" '$1 == n { v = $2 } END { print v + 0 }' "$2"
}

# children: "LIVE ZOMBIES" of h3server (zombies are reaped at its next
# accept only).
children() {
	local p live=0 dead=0
	for p in $(pgrep -P "$srv_pid"); do
		case $(ps -o stat= -p "$p" 2>/dev/null | tr -d ' ') in
		Z*) dead=$((dead + 1)) ;;
		"") ;;
		*) live=$((live + 1)) ;;
		esac
	done
	echo "$live $dead"
}

for mode in "${modes[@]}"; do
	echo "-- $mode flood" | tee -a "$log"
	cp "$snmp" "$tmp/snmp.before"
	objs0=$(quic_objs) slab0=$(slab_kb)
	# shellcheck disable=SC2086
	timeout $((secs + 30)) "$dir/quic_flood" -m $mode -a 127.0.0.1 \
		-p $port -r "$rate" -d "$secs" >"$tmp/flood.out" 2>>"$log" &
	fl_pid=$!
	sleep 2

	rm -f "$tmp/got.bin"
	t0=$(date +%s.%N)
	timeout 120 "$h3/h3client" -t 110 --ca "$tmp/cert.pem" \
		-o "$tmp/got.bin" "https://127.0.0.1:$port/f.bin" >>"$log" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	dl=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	objs1=$(quic_objs) slab1=$(slab_kb)
	running=no
	kill -0 "$fl_pid" 2>/dev/null && running=yes

	wait "$fl_pid"
	frc=$?
	fl_pid=
	fl_out=$(head -n 1 "$tmp/flood.out")
	# Half-open connections time out after 5 s; 8 s, and up to 16 s
	# more if the objects are not back yet (TCG is slow).
	sleep 8
	waited=8
	objs2=$(quic_objs)
	while [ "$objs0" != none ] && [ "$objs2" != none ] &&
		[ "$objs2" -gt $((objs0 + 4)) ] && [ $waited -lt 24 ]; do
		sleep 2
		waited=$((waited + 2))
		objs2=$(quic_objs)
	done
	slab2=$(slab_kb)
	cp "$snmp" "$tmp/snmp.after"

	echo "   flood: ${fl_out:-no output (status $frc)}"
	echo "   QUIC+QUICv6 objects: before $objs0, during $objs1," \
		"after $objs2 (${waited} s after the flood)"
	echo "   Slab: before $slab0 kB, during $slab1 kB, after $slab2 kB"
	d=""
	for c in QuicInPackets QuicOutRetry QuicInTokenInvalid \
		QuicInDropDecrypt QuicConnOpened; do
		n1=$(counter $c "$tmp/snmp.after")
		n0=$(counter $c "$tmp/snmp.before")
		d="$d ${c#Quic} +$((n1 - n0))"
	done
	echo "   counters:$d"
	{
		echo "flood: $fl_out (status $frc); download ${dl} s, status $rc," \
			"flood still running: $running"
		echo "objects $objs0 $objs1 $objs2; slab $slab0 $slab1 $slab2 kB"
		awk 'NR == FNR { b[$1] = $2; next }
		     $2 != b[$1] { printf " %s +%d", $1, $2 - b[$1] }
		     END { print "" }' "$tmp/snmp.before" "$tmp/snmp.after"
	} >>"$log"

	name="download during $mode flood"
	if [ $rc = 0 ] &&
	   [ "$(sha256sum <"$tmp/got.bin" 2>/dev/null | cut -d' ' -f1)" = "$sum" ]; then
		echo "# $name: ${dl} s (flood still running: $running)"
		result ok $suite "$name"
	else
		echo "   FAIL $name: status $rc," \
			"$(stat -c %s "$tmp/got.bin" 2>/dev/null || echo 0) bytes, ${dl} s"
		result "not ok" $suite "$name"
	fi
	name="QUIC sockets return to baseline after $mode flood"
	if [ "$objs0" = none ] || [ "$objs2" = none ]; then
		result "not ok" $suite "$name (no QUIC slab cache in /proc/slabinfo)"
	elif [ "$objs2" -le $((objs0 + 4)) ]; then
		echo "# $name: $objs2 <= $objs0 + 4"
		result ok $suite "$name"
	else
		echo "   FAIL $name: $objs2 > $objs0 + 4"
		result "not ok" $suite "$name ($objs2 > $objs0 + 4)"
	fi
done

read -r live dead < <(children)
name="no half-open connection left behind"
echo "   h3server children: $live running, $dead exited and not yet reaped" |
	tee -a "$log"
if [ "$live" -le 2 ]; then
	result ok $suite "$name"
else
	echo "   FAIL $name: $live h3server children running"
	result "not ok" $suite "$name ($live h3server children)"
fi
quic_exit
