#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot Debian's kernel (the one linux-image-amd64 points to) under qemu,
# load our modules and run CMD in the guest, with the host root shared
# read-only and the repository read-write at the same paths as on the host.
#
#   run.sh [--shell] [--timeout SEC] [--mem MB] [--cpus N] [--] CMD [ARG...]
#
# Exit status: CMD's, or 1 when CMD succeeded but the kernel log shows a
# WARNING, BUG, Oops, call trace, KASAN/UBSAN report or hung task (the
# patterns are vm/kreport.sh's), when a module of ours failed to load or
# unload, or when the guest died.
# Logs of the last run: .vm/console.log, .vm/kernel.log, .vm/guest.log.
# QUIC_VM_LOAD lists the modules loaded before CMD (default below).
# QUIC_VM_ACCEL=kvm|tcg|auto and QUIC_VM_QEMU: see vm/accel.sh (KVM is used
# only where a probe boot shows that it works). QUIC_VM_KVER picks the
# kernel (vm/debug-kernel.sh builds one); QUIC_VM_BUILD is where our modules
# were built for it (default: the repository). QUIC_VM_APPEND adds to the
# guest kernel's command line (slub_debug=U, to see who holds memory).

set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kreport.sh"

shell=0
tmo=${QUIC_VM_TIMEOUT:-3000}
mem=${QUIC_VM_MEM:-2048}
cpus=${QUIC_VM_CPUS:-2}
load=${QUIC_VM_LOAD-udp_tunnel ip6_udp_tunnel prandom_siphash quic}

while [ $# -gt 0 ]; do
	case "$1" in
	--shell) shell=1 ;;
	--timeout) tmo=$2; shift ;;
	--mem) mem=$2; shift ;;
	--cpus) cpus=$2; shift ;;
	--) shift; break ;;
	-h|--help) sed -n '3,23p' "$0"; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
	shift
done
[ $# -gt 0 ] || [ "$shell" = 1 ] || die "usage: run.sh [--shell] [--] CMD [ARG...]"

case "$OUT/" in
"$REPO"/*) ;;
*) die "QUIC_VM_OUT must be inside $REPO, the guest's only writable share" ;;
esac
case "$REPO$OUT" in
*[[:space:],]*) die "paths with spaces or commas are not supported: $REPO" ;;
esac

"$VM_DIR/provision.sh"
kver=$(vm_kver)
kroot=$(vm_kroot "$kver")
moddir=$kroot/lib/modules/$kver

# The VM's module tree for this run: Debian's modules (a symlink into the
# cache, which depmod follows) plus ours, so that modprobe and the
# kernel's autoloader (socket() asking for net-pf-2-proto-261) find them.
# Per run, so that several checkouts can use one cache at once.
mkdir -p "$OUT"
modroot=$OUT/modroot
moddir=$modroot/lib/modules/$kver
rm -rf "$modroot"
mkdir -p "$moddir/updates/quic"
ln -s "$kroot/lib/modules/$kver/kernel" "$moddir/kernel"
cp "$kroot/lib/modules/$kver"/modules.{order,builtin,builtin.modinfo} "$moddir/"
ours=()
build=${QUIC_VM_BUILD:-$REPO}
while IFS= read -r ko; do
	cp "$ko" "$moddir/updates/quic/"
	m=$(basename "$ko" .ko)
	ours+=("${m//-/_}")
done < <(sed -e 's/\.o$/.ko/' -e "s|^\([^/]\)|$build/\1|" "$build/modules.order" 2>/dev/null)
[ ${#ours[@]} -gt 0 ] || log "warning: no modules built (run make first)"
depmod -b "$modroot" "$kver"

# Unload order: the reverse of what depends on what; test modules,
# quic_diag and quic_sample (which use quic) first.
unload=()
for m in $(printf '%s\n' "${ours[@]}" | grep -E 'test|diag|sample' || true) \
	 $(printf '%s\n' "${ours[@]}" | grep -vE 'test|diag|sample|prandom_siphash' || true) \
	 $(printf '%s\n' "${ours[@]}" | grep -x prandom_siphash || true); do
	unload+=("$m")
done

rm -f "$OUT/rc" "$OUT/modules" "$OUT/kernel.log" "$OUT/guest.log"

# initramfs: busybox, /init, the modprobe relay, and the 9p module chain.
ird=$OUT/initramfs
rm -rf "$ird"
mkdir -p "$ird"/{bin,dev,proc,sys,modules}
: >"$ird/modules/order"	# empty when the kernel has 9p built in
cp /bin/busybox "$ird/bin/busybox"
cp "$VM_DIR/init.sh" "$ird/init"
cp "$VM_DIR/modprobe.sh" "$ird/modprobe"
chmod 755 "$ird/init" "$ird/modprobe"
modprobe -d "$kroot" -S "$kver" -a --show-depends virtio_pci 9pnet_virtio 9p |
	awk '$1 == "insmod" { print $2 }' | awk '!seen[$0]++' |
	while IFS= read -r ko; do
		cp "$ko" "$ird/modules/"
		basename "$ko" >>"$ird/modules/order"
	done
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$OUT/initramfs.gz"

{
	printf 'REPO=%q\nOUT=%q\nKROOT=%q\n' "$REPO" "$OUT" "$modroot"
	printf 'LOAD_MODULES=%q\nOUR_MODULES=%q\n' "$load" "${unload[*]}"
	printf 'CMD=('
	printf '%q ' "$@"
	printf ')\n'
} >"$OUT/job.env"
cp "$VM_DIR/guest.sh" "$OUT/guest.sh"

if [ "$("$VM_DIR/accel.sh" "$kroot/boot/vmlinuz-$kver")" = kvm ]; then
	accel=(-enable-kvm -cpu host)
else
	# No 5-level paging: 6.1's identify_cpu() clears the boot CPU's
	# feature words for a moment, during which pgtable_l5_enabled() is
	# false, and KASAN takes an interrupt's access to a 5-level direct
	# map address for a wild one (a false report in the debug boot).
	accel=(-accel tcg,thread=multi -cpu max,la57=off)
fi
if [ "$shell" = 1 ]; then
	io=(-nographic)
	input=/dev/stdin
else
	io=(-display none -monitor none -serial stdio)
	input=/dev/null
fi

# A soft lockup panics, so that the guest dies with its trace at once
# rather than spinning until the timeout; every CPU's backtrace comes
# first (by NMI), since the CPU that spins is often waiting for another.
append="console=ttyS0 loglevel=3 panic=-1 softlockup_panic=1"
append+=" softlockup_all_cpu_backtrace=1"
# Under TCG a guest runs some hundred times slower than on hardware, and a
# host that stops qemu's threads for a while stops the guest's CPUs one
# at a time: the detector's 20 s (watchdog_thresh=10) are then a few
# hundred milliseconds of native work, and a stalled vCPU reads as a
# lockup of the one waiting for it. Two minutes still catch a CPU that
# never comes back.
[ "${accel[0]}" = -enable-kvm ] || append+=" watchdog_thresh=60"
append+=" quicvm.repo=$REPO quicvm.out=$OUT"
append+=" quicvm.kroot=$modroot quicvm.shell=$shell ${QUIC_VM_APPEND:-}"

set +e
timeout --foreground "$tmo" "${QUIC_VM_QEMU:-qemu-system-x86_64}" "${accel[@]}" \
	-smp "$cpus" -m "$mem" "${io[@]}" -no-reboot \
	-kernel "$kroot/boot/vmlinuz-$kver" -initrd "$OUT/initramfs.gz" \
	-append "$append" \
	-device virtio-rng-pci \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs local,path="$REPO",mount_tag=repo,security_model=none,multidevs=remap \
	-nic none <"$input" 2>&1 | tr -d '\r' | tee "$OUT/console.log"
qrc=${PIPESTATUS[0]}
set -e

[ "$shell" = 1 ] && exit 0

status=0
if [ "$qrc" = 124 ] || [ ! -f "$OUT/rc" ] || [ ! -f "$OUT/done" ] ||
   [ ! -s "$OUT/kernel.log" ]; then
	if [ -f "$OUT/rc" ]; then
		log "FAIL: the guest hung or died after CMD (qemu status $qrc)"
	else
		log "FAIL: the guest died before CMD finished (qemu status $qrc)"
	fi
	echo "guest died" >"$OUT/verdict"
	grep -E "$KREPORT_OPEN|panic" "$OUT/console.log" >&2
	# The report itself (the trace names the functions), for check.sh
	# to print at the end, where a truncated log still shows it.
	# After it, the other CPUs' backtraces, if the kernel gave them.
	awk -v re="$KREPORT_OPEN" '$0 ~ re && !n { n = 1 }
	     n && /NMI backtrace for cpu/ { m = 1 }
	     (n && n++ <= 80) + (m && m++ <= 40)' "$OUT/console.log" \
		>"$OUT/oops.log"
	# No report: the console's last lines say what the guest was doing.
	[ -s "$OUT/oops.log" ] || tail -n 30 "$OUT/console.log" >"$OUT/oops.log"
	exit 1
fi
rc=$(cat "$OUT/rc")
: >"$OUT/verdict"

log_file=$OUT/kernel.log
if grep -E "$KREPORT_DIRTY" "$log_file" >"$OUT/kernel-bad.log"; then
	log "FAIL: kernel log shows:"
	head -n 20 "$OUT/kernel-bad.log" >&2
	echo "kernel-log dirty" >>"$OUT/verdict"
	status=1
else
	echo "kernel-log clean" >>"$OUT/verdict"
fi

if grep -qE '^(rmmod|load)-failed' "$OUT/modules" 2>/dev/null; then
	log "FAIL: module load/unload:"
	grep -E '^(rmmod|load)-failed' "$OUT/modules" >&2
	echo "modules failed" >>"$OUT/verdict"
	status=1
else
	echo "modules ok" >>"$OUT/verdict"
fi

[ "$rc" = 0 ] || exit "$rc"
exit "$status"
