#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of vm/accel.sh, the choice between KVM and TCG, with a
# fake KVM device and qemu wrappers that act out a broken KVM: one that
# aborts as qemu does on nested AMD hosts, one whose guest never boots,
# and one that boots the kernel for real (under TCG) to show that the
# probe recognises a guest that works. Prints "ok|not ok accel: <what>".

set -u
. "$(dirname "$0")/lib.sh"

kver=$(vm_kver)
kernel=$(vm_kroot "$kver")/boot/vmlinuz-$kver
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/kvm"		# a writable "KVM device" that is not one
real=$(command -v qemu-system-x86_64)

check() {
	if [ "$2" = "$3" ]; then
		echo "ok accel: $1"
	else
		echo "not ok accel: $1 (got '$3', expected '$2')"
	fi
}

# wrapper NAME BODY: a qemu stand-in; BODY runs when -enable-kvm is given.
wrapper() {
	cat >"$tmp/$1" <<EOF
#!/bin/bash
case " \$* " in
*" -enable-kvm "*) echo call >>"$tmp/$1.calls"; $2 ;;
esac
exec "$real" "\$@"
EOF
	chmod +x "$tmp/$1"
}

accel() {
	QUIC_VM_CACHE=$tmp/cache-$1 QUIC_VM_KVM_DEV=${DEV:-$tmp/kvm} \
		QUIC_VM_QEMU=$tmp/$1 "$VM_DIR/accel.sh" "$kernel" 2>>"$tmp/log"
}

wrapper abort 'echo "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x0" >&2; exit 1'
wrapper hang 'exec sleep 600'
# Works "with KVM": the same boot under TCG.
w='args=(); for a in "$@"; do case "$a" in -enable-kvm) a=-accel; args+=("$a"); a=tcg ;;'
w+=' host) a=max ;; esac; args+=("$a"); done; exec "'"$real"'" "${args[@]}"'
wrapper works "$w"

check "QUIC_VM_ACCEL=tcg forces TCG" tcg "$(QUIC_VM_ACCEL=tcg accel works)"
check "QUIC_VM_ACCEL=kvm forces KVM" kvm "$(QUIC_VM_ACCEL=kvm accel abort)"
if QUIC_VM_ACCEL=fast accel works >/dev/null; then
	got=accepted
else
	got=refused
fi
check "a bad QUIC_VM_ACCEL is refused" refused $got
check "no KVM device: TCG without a probe" "tcg none" \
	"$(DEV=$tmp/none accel works) $(cat "$tmp/works.calls" 2>/dev/null || echo none)"
check "qemu aborts under KVM: TCG" tcg "$(accel abort)"
grep -q 'failed to set MSR' "$tmp/log"
check "the fallback says why" 0 $?
check "the verdict is cached: no second probe" "tcg 1" \
	"$(accel abort) $(wc -l <"$tmp/abort.calls")"
check "a guest that never boots: TCG" tcg \
	"$(QUIC_VM_PROBE_TIMEOUT=5 accel hang)"
check "a guest that boots under KVM: KVM" kvm "$(accel works)"
