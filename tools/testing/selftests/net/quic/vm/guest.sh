#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the test VM, in a chroot of the host root: loads our modules
# and their dependencies, runs the job, then checks that every module of
# ours unloads. Results go to $OUT (rc, modules, kernel.log).

set -u
. "$(dirname "$0")/job.env"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp TERM=dumb QUIC_VM=1 REPO OUT
cd "$REPO"

echo "vm: kernel $(uname -r), $(nproc) CPUs" >"$OUT/guest.log"
rm -f "$OUT/rc" "$OUT/done" "$OUT/modules"

for m in $LOAD_MODULES; do
	if ! modprobe "$m" 2>>"$OUT/guest.log"; then
		echo "vm: modprobe $m failed" | tee -a "$OUT/guest.log"
		echo "load-failed $m" >>"$OUT/modules"
	fi
done

# QEMU's TCG (Debian 12's 7.2) can trip over kernel text that one vCPU
# patches while another runs it: a static key flipped during the tests
# has ended guests with "int3: 0000 [#1]" in __dev_queue_xmit() (the tc
# egress key) and soft lockups in udp_destroy_sock() (the UDP encap key,
# which quic.ko now holds itself). migrate.sh and ecn.sh add and remove
# clsact qdiscs, which flip the tc ingress and egress keys: a clsact
# qdisc on lo holds them on for the whole run instead.
if tc qdisc add dev lo clsact 2>>"$OUT/guest.log"; then
	echo "vm: tc ingress/egress keys held (clsact on lo)" >>"$OUT/guest.log"
fi

"${CMD[@]}"
echo "$?" >"$OUT/rc"

# A debug kernel with kmemleak: a forced scan after the job, while our
# modules are loaded so that backtraces name them (kmemleak wants two
# scans to settle). Objects that our code allocated are
# reported in the kernel log, where vm/run.sh fails the run on them; the
# kernel's own boot-time reports are kept apart in kmemleak.log.
kml=/sys/kernel/debug/kmemleak
if [ -w "$kml" ]; then
	sleep 5
	echo scan >"$kml"
	sleep 5
	echo scan >"$kml"
	cat "$kml" >"$OUT/kmemleak.log"
	if grep -qE '\[(quic|prandom_siphash|quic_test|test_prandom_siphash)\]' \
		"$OUT/kmemleak.log"; then
		echo "quic: kmemleak: objects of our modules leaked (kmemleak.log)" \
			>/dev/kmsg
	fi
fi
# Every module of ours must unload: a leaked socket or reference keeps
# its count above zero and makes rmmod fail.
for m in $OUR_MODULES; do
	[ -d "/sys/module/$m" ] || continue
	if rmmod "$m" 2>>"$OUT/guest.log"; then
		echo "unloaded $m" >>"$OUT/modules"
	else
		echo "rmmod-failed $m refcnt=$(cat "/sys/module/$m/refcnt" 2>/dev/null)" \
			>>"$OUT/modules"
	fi
done
dmesg >"$OUT/kernel.log"
# Written last: a guest that hangs or dies while unloading has no marker.
echo done >"$OUT/done"
sync
