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
# e.g. 6.1.0-57-amd64. QUIC_VM_KVER overrides it.
vm_kver() {
	if [ -n "${QUIC_VM_KVER:-}" ]; then
		echo "$QUIC_VM_KVER"
		return
	fi
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\([0-9].*-amd64\)$/\1/p' | head -n1
}

# Where the unpacked image of kernel $1 lives.
vm_kroot() {
	echo "$CACHE/kernel-$1"
}
