#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Extract the few kernel-tree files the build needs (kselftest harness,
# lib.mk and its runner, checkpatch) from Debian's linux-source-6.1
# tarball into $1. The project does not vendor kernel files.

set -euo pipefail
dest=${1:?usage: ksrc.sh DEST}
tarball=$(ls /usr/src/linux-source-6.1*.tar.xz 2>/dev/null | tail -n1 || true)
files=(
	tools/testing/selftests/kselftest_harness.h
	tools/testing/selftests/kselftest.h
	tools/testing/selftests/lib.mk
	tools/testing/selftests/kselftest/runner.sh
	tools/testing/selftests/kselftest/prefix.pl
	scripts/checkpatch.pl
	scripts/spelling.txt
	scripts/const_structs.checkpatch
)

# A cache extracted before a file joined the list gets the missing ones.
missing=()
for f in "${files[@]}"; do
	[ -e "$dest/$f" ] || missing+=("$f")
done
[ ${#missing[@]} -eq 0 ] && exit 0
[ -n "$tarball" ] || { echo "ksrc: apt-get install linux-source-6.1" >&2; exit 1; }
top=$(basename "$tarball" .tar.xz)
mkdir -p "$dest"
tar -xf "$tarball" -C "$dest" --strip-components=1 "${missing[@]/#/$top/}"
touch "$dest/.complete"
