#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make run": the main demo, run inside the test VM. Starts our HTTP/3
# server on a kernel QUIC socket and downloads one file from it with our
# HTTP/3 client (kernel QUIC at both ends) and with ngtcp2's gtlsclient
# (a user-space QUIC stack), then ngtcp2 at both ends for comparison.
# Prints sizes, ciphers and throughput; checks the contents (SHA-256).
# The kernel-to-kernel download is traced (the quic tracepoints, through
# tracefs) and turned into qlog by tools/quic/qlog: one file per
# connection in $OUT/qlog (.vm/qlog on the host), for qvis.
#
#   QUIC_DEMO_SIZE	bytes to transfer (default 4194304)

set -u
dir=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$dir/../../../../.." && pwd)
# quic_wait_udp; not quic_lib.sh, whose exit trap and codes are a suite's.
. "$dir/quic_helpers.sh"
h3=$repo/tools/quic/http3
size=${QUIC_DEMO_SIZE:-4194304}
addr=127.0.0.1
port=4433
status=0

echo "== kernel $(uname -r), $(nproc) CPUs; modules:"
grep -E '^(quic|prandom_siphash|udp_tunnel|ip6_udp_tunnel) ' /proc/modules |
	awk '{ printf "   %-16s %8d bytes, used by %s\n", $1, $2, $3 }'
echo "== IPPROTO_QUIC sockets:"
"$dir/quic_probe" | sed 's/^/   /'

for p in "$h3/h3server" "$h3/h3client"; do
	[ -x "$p" ] || { echo "demo: $p not built (make)"; exit 1; }
done
# GnuTLS blocks in getrandom() until the CRNG is seeded: feed it.
modprobe -q virtio_rng 2>/dev/null

tmp=$(mktemp -d)
srv=
cleanup() {
	[ -n "$srv" ] && kill "$srv" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

mkdir -p "$tmp/www" "$tmp/got"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 1 -subj /CN=localhost \
	-addext "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1" 2>/dev/null ||
	{ echo "demo: openssl cannot make a certificate"; exit 1; }
file=demo.bin
head -c "$size" /dev/urandom >"$tmp/www/$file"
sum=$(sha256sum <"$tmp/www/$file" | cut -d' ' -f1)
echo "== serving $file: $size bytes, sha256 ${sum:0:16}..."

# report WHO SECONDS: check the download and print one line.
report() {
	local who=$1 secs=$2 got
	got=$(stat -c %s "$tmp/got/$file" 2>/dev/null || echo 0)
	if [ "$(sha256sum <"$tmp/got/$file" 2>/dev/null | cut -d' ' -f1)" = "$sum" ]; then
		awk -v w="$who" -v b="$got" -v s="$secs" 'BEGIN {
			printf "   %-44s %9d bytes  %6.2f s  %6.2f MB/s  sha256 ok\n",
			       w, b, s, (s > 0 ? b / s / 1e6 : 0) }'
	else
		echo "   $who: FAILED ($got bytes)"
		status=1
	fi
	rm -f "$tmp/got/$file"
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

echo "== h3server (HTTP/3 on kernel QUIC, libquic handshake) on $addr:$port"
"$h3/h3server" -d "$tmp/www" "$addr" $port "$tmp/key.pem" "$tmp/cert.pem" \
	2>"$tmp/server.log" &
srv=$!
quic_wait_udp $port || echo "   (server slow to start)"

echo "== downloads of https://$addr:$port/$file"
# The quic events of this download, into the ring buffer.
tr=/sys/kernel/tracing
[ -d "$tr/events/quic" ] || mount -t tracefs nodev "$tr" 2>/dev/null
traced=
if [ -w "$tr/events/quic/enable" ]; then
	echo 16384 >"$tr/buffer_size_kb"
	echo >"$tr/trace"
	echo 1 >"$tr/events/quic/enable" && traced=1
fi
t0=$(now)
if timeout 300 "$h3/h3client" --ca "$tmp/cert.pem" -o "$tmp/got/$file" \
	"https://$addr:$port/$file" 2>"$tmp/client.log"; then
	report "h3client (kernel) <- h3server (kernel)" "$(elapsed "$t0")"
	sed 's/^h3client: /      h3client: /' "$tmp/client.log"
else
	echo "   h3client: FAILED"; cat "$tmp/client.log"; status=1
fi
if [ -n "$traced" ]; then
	echo 0 >"$tr/events/quic/enable"
	cp "$tr/trace" "$tmp/trace.txt"
	echo 1408 >"$tr/buffer_size_kb"
	qdir=${OUT:-$repo/.vm}/qlog
	rm -rf "$qdir"
	n=$(grep -c ': quic_' "$tmp/trace.txt")
	echo "== qlog of that download (tools/quic/qlog, from $n trace events):"
	if "$repo/tools/quic/qlog" -o "$qdir" "$tmp/trace.txt" \
		>"$tmp/qlog.out" 2>"$tmp/qlog.err"; then
		sed 's/^/   /' "$tmp/qlog.out"
		echo "   written to $qdir (open a .sqlog in qvis)"
	else
		echo "   qlog: FAILED"; cat "$tmp/qlog.err"; status=1
	fi
else
	echo "== no tracefs quic events: no qlog written"
fi

cipher=CHACHA20-POLY1305
t0=$(now)
if timeout 300 gtlsclient -q --exit-on-all-streams-close \
	--ciphers="NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+$cipher" \
	--download "$tmp/got" $addr $port "https://$addr:$port/$file" \
	>"$tmp/gtls.log" 2>&1; then
	report "gtlsclient (ngtcp2) <- h3server (kernel)" "$(elapsed "$t0")"
	echo "      gtlsclient: cipher $cipher (--ciphers)"
else
	echo "   gtlsclient: FAILED"; tail -5 "$tmp/gtls.log"; status=1
fi
kill "$srv" 2>/dev/null
wait "$srv" 2>/dev/null
srv=
sed 's/^/      /' "$tmp/server.log"

port=$((port + 1))
gtlsserver -q -d "$tmp/www" $addr $port "$tmp/key.pem" "$tmp/cert.pem" \
	>/dev/null 2>&1 &
srv=$!
quic_wait_udp $port
t0=$(now)
if timeout 300 "$h3/h3client" -c AES-256-GCM --ca "$tmp/cert.pem" \
	-o "$tmp/got/$file" "https://$addr:$port/$file" 2>"$tmp/client.log"; then
	report "h3client (kernel) <- gtlsserver (ngtcp2)" "$(elapsed "$t0")"
	sed 's/^h3client: /      h3client: /' "$tmp/client.log"
else
	echo "   h3client from gtlsserver: FAILED"; cat "$tmp/client.log"; status=1
fi
t0=$(now)
if timeout 300 gtlsclient -q --exit-on-all-streams-close \
	--download "$tmp/got" $addr $port "https://$addr:$port/$file" \
	>/dev/null 2>&1; then
	report "gtlsclient (ngtcp2) <- gtlsserver (ngtcp2)" "$(elapsed "$t0")"
else
	echo "   gtlsclient from gtlsserver: FAILED"; status=1
fi
echo "== /proc/net/quic/snmp"
sed 's/^/   /' /proc/net/quic/snmp 2>/dev/null
exit $status
