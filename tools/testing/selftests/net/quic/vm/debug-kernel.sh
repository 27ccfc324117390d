#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build, or bring up to date, the debug kernel of the test VM and print
# its release: Debian's linux-source-6.1 with our patch series applied
# (tools/quic/series), x86_64_defconfig, the options the selftests need
# (../config: QUIC and its test modules as modules) and the debug options
# of ../config.debug (KASAN, lockdep, kmemleak, UBSAN, debug objects...).
# Everything else the VM needs is built in.
#
# The tree is kept under $CACHE/debug-<source package version> and built
# incrementally: when the series or the config files change, only what
# the change reaches is rebuilt. The image and modules
# go to $CACHE/kernel-<release>, where vm/run.sh finds them (QUIC_VM_KVER).
#
#   debug-kernel.sh		build, and print the release
#   debug-kernel.sh --tree	print where the tree is (no build)
#
# QUIC_VM_JOBS sets make's -j (default: the number of CPUs + 1).

set -euo pipefail
. "$(dirname "$0")/lib.sh"

want_tree=0
[ "${1:-}" = --tree ] && want_tree=1
sel=$VM_DIR/..
tarball=$(ls /usr/src/linux-source-6.1*.tar.xz 2>/dev/null | tail -n1 || true)
[ -n "$tarball" ] || die "apt-get install linux-source-6.1"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown)
top=$CACHE/debug-$srcver
tree=$top/linux
jobs=${QUIC_VM_JOBS:-$(($(nproc) + 1))}

if [ "$want_tree" = 1 ]; then
	echo "$tree"
	exit 0
fi

mkdir -p "$top"
exec 9>"$top/.lock"
flock 9

vm_tree_sync "$top" "$tarball"

stamp=$(cat "$sel/config" "$sel/config.debug" "$tree/net/quic/Kconfig" \
	"$tree/lib/Kconfig.prandom_siphash" | sha256sum | cut -c1-16)
if [ "$(cat "$tree/.configured" 2>/dev/null)" != "$stamp" ]; then
	make -C "$tree" -s x86_64_defconfig
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$tree" "$tree/.config" \
		"$sel/config" "$sel/config.debug" >/dev/null
	make -C "$tree" -s olddefconfig
	for opt in KASAN PROVE_LOCKING DEBUG_KMEMLEAK UBSAN KUNIT NET_UDP_TUNNEL \
		   NET_9P_VIRTIO PRANDOM_SIPHASH; do
		grep -q "^CONFIG_$opt=y" "$tree/.config" ||
			die "CONFIG_$opt=y did not survive olddefconfig"
	done
	for opt in IP_QUIC IP_QUIC_TEST IP_QUIC_DIAG TEST_PRANDOM_SIPHASH; do
		grep -q "^CONFIG_$opt=m" "$tree/.config" ||
			die "CONFIG_$opt=m did not survive olddefconfig"
	done
	echo "$stamp" >"$tree/.configured"
fi

log "building the debug kernel in $tree (make -j$jobs; the first build is long)"
start=$(date +%s)
make -C "$tree" -s -j"$jobs" LOCALVERSION=-quicdebug bzImage modules >&2
kver=$(make -C "$tree" -s LOCALVERSION=-quicdebug kernelrelease)
log "debug kernel $kver built in $(($(date +%s) - start))s"

kroot=$(vm_kroot "$kver")
# Installed again when the image changed, or the modules: a config
# change can add modules alone (CONFIG_INET_DIAG=m for quic_diag).
if [ ! -e "$kroot/.complete" ] ||
   [ "$tree/arch/x86/boot/bzImage" -nt "$kroot/.complete" ] ||
   [ "$tree/modules.order" -nt "$kroot/.complete" ]; then
	rm -rf "$kroot"
	mkdir -p "$kroot/boot"
	cp "$tree/arch/x86/boot/bzImage" "$kroot/boot/vmlinuz-$kver"
	make -C "$tree" -s LOCALVERSION=-quicdebug INSTALL_MOD_PATH="$kroot" \
		modules_install >&2
	depmod -b "$kroot" "$kver"
	touch "$kroot/.local" "$kroot/.complete"
fi
# The guest mounts the kernel's modules over /lib/modules/<release>.
mkdir -p "/lib/modules/$kver"
echo "$kver"
