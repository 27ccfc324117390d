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

# vm_tree_sync TOP TARBALL: bring the kernel tree TOP/linux up to date
# with our patch series: extracted from TARBALL once, with pristine
# copies of the files the series edits in TOP/pristine; the series
# (tools/quic/series) is applied to those copies, and only files whose
# content changed are copied into the tree, so that make rebuilds no more
# than what the change reaches. The caller holds a lock on TOP.
vm_tree_sync() {
	local top=$1 tarball=$2 tree=$1/linux stage=$1/stage series=$1/series p f

	if [ ! -e "$tree/.extracted" ]; then
		log "extracting $(basename "$tarball") into $tree"
		rm -rf "$tree"
		mkdir -p "$tree"
		tar -xf "$tarball" -C "$tree" --strip-components=1
		rm -rf "$top/pristine"
		mkdir -p "$top/pristine"
		touch "$tree/.extracted"
	fi
	# The pristine copies of the kernel files the series edits (its
	# HOOKS), taken from the tarball; a tree extracted before the
	# series edited a file gets that file's copy now.
	for f in $("$REPO/tools/quic/series" --hooks); do
		[ -e "$top/pristine/$f" ] && continue
		log "pristine copy of $f from $(basename "$tarball")"
		tar -xf "$tarball" -C "$top/pristine" --strip-components=1 \
			"$(basename "$tarball" .tar.xz)/$f" ||
			die "$f is not in $(basename "$tarball")"
	done
	"$REPO/tools/quic/series" "$series" >/dev/null
	rm -rf "$stage"
	mkdir -p "$stage"
	(cd "$top/pristine" && tar -cf - .) | tar -xf - -C "$stage"
	while IFS= read -r p; do
		patch -d "$stage" -p1 -s -f <"$series/$p" >/dev/null ||
			die "$p does not apply to $(basename "$tarball")"
	done <"$series/series"
	(cd "$stage" && find . -type f) | while IFS= read -r f; do
		if ! cmp -s "$stage/$f" "$tree/$f"; then
			mkdir -p "$(dirname "$tree/$f")"
			cp "$stage/$f" "$tree/$f"
		fi
	done
}
