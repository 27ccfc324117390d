#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Choose qemu's accelerator for the test VM and print it: "kvm" or "tcg".
#
#   accel.sh KERNEL
#
# A writable /dev/kvm is not proof that KVM works: under nested
# virtualisation qemu may abort ("failed to set MSR 0x10a" with -cpu host)
# or the guest may spin without ever booting. So KVM is used only after a
# short probe boot of KERNEL under it printed a marker and powered off.
# The verdict is cached per host kernel, CPU model, qemu binary and
# version, and KERNEL, under $CACHE.
#
# QUIC_VM_ACCEL=kvm or =tcg forces either (no probe); =auto, the default,
# probes. QUIC_VM_QEMU names the qemu binary (default
# qemu-system-x86_64), QUIC_VM_KVM_DEV the KVM device (default /dev/kvm),
# QUIC_VM_PROBE_TIMEOUT the probe's limit in seconds (default 60).

set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || die "usage: accel.sh KERNEL"
kernel=$1
qemu=${QUIC_VM_QEMU:-qemu-system-x86_64}
dev=${QUIC_VM_KVM_DEV:-/dev/kvm}
tmo=${QUIC_VM_PROBE_TIMEOUT:-60}

case "${QUIC_VM_ACCEL:-auto}" in
kvm|tcg) echo "$QUIC_VM_ACCEL"; exit 0 ;;
auto) ;;
*) die "QUIC_VM_ACCEL must be kvm, tcg or auto, not '$QUIC_VM_ACCEL'" ;;
esac

if [ ! -w "$dev" ]; then
	echo tcg
	exit 0
fi

qver=$("$qemu" --version 2>/dev/null | head -n1 || true)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
key=$(printf '%s\n' "$(uname -r)" "$cpu" "$(command -v "$qemu" || echo "$qemu")" \
	"$qver" "$(cksum <"$kernel")" | sha256sum | cut -c1-16)
mkdir -p "$CACHE"
cached=$CACHE/accel-$key
if [ -s "$cached" ]; then
	cat "$cached"
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ird/bin"
cp /bin/busybox "$tmp/ird/bin/busybox"
cat >"$tmp/ird/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox echo quic-vm-kvm-probe-ok
/bin/busybox poweroff -f
EOF
chmod 755 "$tmp/ird/init"
(cd "$tmp/ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$tmp/initrd.gz"

log "probing KVM at $dev (a ${tmo}s boot of the kernel under -enable-kvm)"
set +e
timeout --kill-after=5 "$tmo" "$qemu" -enable-kvm -cpu host -smp 1 -m 256 \
	-display none -monitor none -serial stdio -no-reboot -nic none \
	-kernel "$kernel" -initrd "$tmp/initrd.gz" \
	-append "console=ttyS0 loglevel=3 panic=-1" \
	</dev/null >"$tmp/console" 2>&1
qrc=$?
set -e
if grep -q quic-vm-kvm-probe-ok "$tmp/console"; then
	verdict=kvm
else
	verdict=tcg
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		why="the guest did not boot within ${tmo}s"
	else
		why="qemu exited with status $qrc: $(grep -v '^$' "$tmp/console" |
			tail -n1)"
	fi
	log "KVM does not work here ($why); using TCG." \
	    "QUIC_VM_ACCEL=kvm forces KVM; the verdict is cached in $cached"
fi
echo "$verdict" >"$cached"
echo "$verdict"
