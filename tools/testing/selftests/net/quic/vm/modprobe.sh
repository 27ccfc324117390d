#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usermode-helper modprobe of the test VM: the kernel runs this in the
# initramfs root; the real modprobe and the modules live in the host root.
exec /bin/chroot /host /sbin/modprobe "$@"
