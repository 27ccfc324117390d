#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install, idempotently, everything the build and the VM tests need on a
# Debian 12 host: build tools, qemu, busybox, the headers of the kernel
# that linux-image-amd64 points to, and that kernel's image and modules
# unpacked into the cache (never installed into the host's /boot); for
# the HTTP/3 interop and demo, nghttp3, ngtcp2's gtlsserver and
# gtlsclient, and openssl for the certificates made at test time; perf
# (linux-perf) for the CPU profiles of bench_flood.sh and the quic:*
# tracepoint recipes of Documentation/networking/quic.rst; keyutils
# (keyctl) for the keys kusers.sh hands the sample kernel user.

set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKGS=(
	build-essential bc bison flex libelf-dev libssl-dev kmod cpio gzip xz-utils sparse
	qemu-system-x86 busybox-static
	linux-headers-amd64 linux-source-6.1
	iproute2 procps iperf3 jq linux-perf
	libgnutls28-dev pkg-config
	libnghttp3-dev ngtcp2-server ngtcp2-client openssl
	keyutils
)

installed() {
	dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null | grep -qx installed
}

apt_updated=
apt_install() {
	if [ -z "$apt_updated" ]; then
		log "apt-get update"
		apt-get update -qq >&2
		apt_updated=1
	fi
	log "installing $*"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "$@" >&2
}

missing=()
for p in "${PKGS[@]}"; do
	installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	apt_install "${missing[@]}"
fi

kver=$(vm_kver)
# A kernel built here (vm/debug-kernel.sh) has no Debian packages.
[ -n "$kver" ] && [ -e "$(vm_kroot "$kver")/.local" ] && exit 0
if [ -z "$kver" ]; then
	apt_install linux-image-amd64 --download-only || true
	kver=$(vm_kver)
fi
[ -n "$kver" ] || die "cannot tell which kernel linux-image-amd64 points to"

installed "linux-headers-$kver" || apt_install "linux-headers-$kver"

kroot=$(vm_kroot "$kver")
if [ ! -e "$kroot/.complete" ]; then
	log "fetching linux-image-$kver into $kroot"
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	chown _apt "$tmp" 2>/dev/null || true
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && apt-get download "linux-image-$kver" >&2) ||
		{ apt-get update -qq >&2 &&
		  (cd "$tmp" && apt-get download "linux-image-$kver" >&2); }
	rm -rf "$kroot"
	mkdir -p "$kroot"
	dpkg -x "$tmp"/linux-image-"$kver"_*.deb "$kroot"
	[ -f "$kroot/boot/vmlinuz-$kver" ] || die "no vmlinuz in linux-image-$kver"
	depmod -b "$kroot" "$kver"
	touch "$kroot/.complete"
fi
