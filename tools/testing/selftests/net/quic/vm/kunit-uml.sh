#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The KUnit suites run the upstream way, with no VM: kunit.py builds
# user-mode Linux (ARCH=um) from Debian's linux-source-6.1 with our
# series applied and QUIC, prandom_siphash and their tests built in
# (net/quic/.kunitconfig: the CONFIG_IP_QUIC=y build, with no symbol
# exported for the tests), boots it and parses the KTAP. The tree is
# kept under $CACHE/uml-<source package version>, built incrementally.
#
#   kunit-uml.sh [KUNIT.PY RUN ARGUMENTS...]	e.g. --kconfig_add CONFIG_KASAN=y

set -euo pipefail
. "$(dirname "$0")/lib.sh"

tarball=$(ls /usr/src/linux-source-6.1*.tar.xz 2>/dev/null | tail -n1 || true)
[ -n "$tarball" ] || die "apt-get install linux-source-6.1"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown)
top=$CACHE/uml-$srcver
jobs=${QUIC_VM_JOBS:-$(($(nproc) + 1))}

mkdir -p "$top"
exec 9>"$top/.lock"
flock 9
vm_tree_sync "$top" "$tarball"
cd "$top/linux"
exec python3 tools/testing/kunit/kunit.py run --arch=um --jobs="$jobs" \
	--build_dir="$top/build" --kunitconfig=net/quic/.kunitconfig "$@"
