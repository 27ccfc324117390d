#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the test VM's initramfs. Mounts the host root read-only over
# virtio-9p at /host and the repository read-write over it at its own
# path, then runs the job in a chroot of the host root, so the guest uses
# the host's programs and libraries. Parameters come on the kernel
# command line: quicvm.repo=PATH quicvm.out=PATH quicvm.kroot=PATH
# quicvm.shell=0|1.

/bin/busybox --install -s /bin
export PATH=/bin

# mountfs TYPE DIR: mounts a file system of TYPE, its source named TYPE.
mountfs() {
	mount -t "$1" "$1" "$2"
}

mountfs proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev

repo=
out=
shell=0
kroot=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	quicvm.repo=*) repo=${arg#quicvm.repo=} ;;
	quicvm.out=*) out=${arg#quicvm.out=} ;;
	quicvm.shell=*) shell=${arg#quicvm.shell=} ;;
	quicvm.kroot=*) kroot=${arg#quicvm.kroot=} ;;
	esac
done

fail() {
	echo "vm-init: $*"
	poweroff -f
}

while read -r mod; do
	insmod "/modules/$mod" || fail "insmod $mod failed"
done < /modules/order

opts=trans=virtio,version=9p2000.L,msize=524288
mkdir -p /host
mount -t 9p -o "$opts,ro,cache=loose" hostroot /host || fail "cannot mount host root"
mountfs proc /host/proc
mount -t sysfs sys /host/sys
mount -t devtmpfs dev /host/dev
mkdir -p /host/dev/pts /host/dev/shm
mountfs devpts /host/dev/pts
mountfs tmpfs /host/dev/shm
mountfs tmpfs /host/tmp
mountfs tmpfs /host/run
ln -sf /proc/self/fd /host/dev/fd
# Last, so that a repository below /tmp or /run is not hidden.
mkdir -p "/host$repo" 2>/dev/null
mount -t 9p -o "$opts" repo "/host$repo" || fail "cannot mount $repo"
kver=$(uname -r)
mount -o bind "/host$kroot/lib/modules/$kver" "/host/lib/modules/$kver" ||
	fail "no /lib/modules/$kver on the host: install linux-headers-$kver"
[ -d /sys/kernel/debug ] && mountfs debugfs /host/sys/kernel/debug

# The kernel's request_module() runs the usermode helper in this
# initramfs root: hand it to the host's modprobe over the VM's modules.
echo /modprobe > /proc/sys/kernel/modprobe

hostname quicvm
ip link set lo up 2>/dev/null

if [ "$shell" = 1 ]; then
	echo "vm-init: host root at /host; 'chroot /host /bin/bash' for its tools"
	setsid cttyhack chroot /host /bin/bash -c \
		". '$out/job.env'; cd '$repo'; exec /bin/bash -i"
else
	chroot /host /bin/bash "$out/guest.sh"
fi
sync
poweroff -f
