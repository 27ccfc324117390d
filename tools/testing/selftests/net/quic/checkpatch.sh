#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl --strict over every C source and header of the patchset.
# Exits non-zero on any error or warning. $1: extracted kernel source
# (see vm/ksrc).

set -u
ksrc=${1:?usage: checkpatch.sh KSRC}
repo=$(cd "$(dirname "$0")/../../../../.." && pwd)
cd "$repo"
"$repo/tools/testing/selftests/net/quic/vm/ksrc" "$ksrc" || exit 1

mapfile -t files < <(git ls-files -co --exclude-standard -- '*.c' '*.h' | grep -v '\.mod\.c$')
[ ${#files[@]} -gt 0 ] || exit 0
perl "$ksrc/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
	--ignore FILE_PATH_CHANGES \
	-f "${files[@]}" | tee /dev/stderr |
	grep -qE ':[0-9]+: (ERROR|WARNING):' && exit 1
exit 0
