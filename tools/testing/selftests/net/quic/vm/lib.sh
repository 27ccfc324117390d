# SPDX-License-Identifier: GPL-2.0
#
# Shared settings of the VM scripts (sourced, not executed).

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$VM_DIR/../../../../../.." && pwd)
# Outside the repository: "make clean" deletes every *.ko below it.
CACHE=${QUIC_VM_CACHE:-/var/cache/quic-vm}
OUT=${QUIC_VM_OUT:-$REPO/.vm}

log() { echo "vm: $*" >&2; }
die() { echo "vm: error: $*" >&2; exit 1; }

# The kernel release that Debian's linux-image-amd64 points to today,
# e.g. 6.1.0-57-amd64. QUIC_VM_KVER overrides it: a release, or a series
# with Debian's meta-package, such as 6.12 (linux-image-6.12-amd64) or
# 6.12-rt (linux-image-6.12-rt-amd64), for the release it points to.
vm_kver() {
	local meta=linux-image-amd64

	case "${QUIC_VM_KVER:-}" in
	"") ;;
	[0-9]*.[0-9]|[0-9]*.[0-9][0-9]|[0-9]*.[0-9]-rt|[0-9]*.[0-9][0-9]-rt)
		meta=linux-image-$QUIC_VM_KVER-amd64 ;;
	*)
		echo "$QUIC_VM_KVER"
		return ;;
	esac
	apt-cache depends "$meta" 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\([0-9].*-amd64\)$/\1/p' | head -n1
}

# Where the unpacked image of kernel $1 lives.
vm_kroot() {
	echo "$CACHE/kernel-$1"
}
