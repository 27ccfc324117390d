#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make check": run every test in one VM boot plus the host-side checks,
# and print one closing line "N passed, N failed, N skipped". Exits
# non-zero on any failure. Nothing here asserts a time.

set -u
dir=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$dir/../../../../.." && pwd)
out=${QUIC_VM_OUT:-$repo/.vm}
mkdir -p "$out"
results=$out/results
host_results=$out/host-results
: >"$host_results"

record() {
	echo "$1 $2: $3" >>"$host_results"
}

# Host side: the C sources must be checkpatch --strict clean.
if "$dir/checkpatch.sh" "${KSRC:-$repo/.cache/linux-source}" >"$out/checkpatch.log" 2>&1; then
	record ok host "checkpatch --strict reports no errors or warnings"
else
	record "not ok" host "checkpatch --strict reports no errors or warnings"
	cat "$out/checkpatch.log"
fi

# Host side: the choice between KVM and TCG (vm/accel), against qemu
# wrappers that act out a broken KVM.
"$dir/vm/test_accel.sh" >>"$host_results" 2>"$out/test_accel.log"

rm -f "$results" "$out/verdict" "$out/rc"
QUIC_VM_OUT=$out "$dir/vm/run" -- "$dir/run_tests.sh"
vm_rc=$?

if [ -f "$out/verdict" ] && grep -q "guest died" "$out/verdict"; then
	record "not ok" vm "guest ran to the end"
else
	record ok vm "guest ran to the end"
fi
if grep -q "kernel-log clean" "$out/verdict" 2>/dev/null; then
	record ok vm "kernel log free of WARN/BUG/Oops/hung tasks"
else
	record "not ok" vm "kernel log free of WARN/BUG/Oops/hung tasks"
fi
if grep -q "modules ok" "$out/verdict" 2>/dev/null; then
	record ok vm "our modules load and unload"
else
	record "not ok" vm "our modules load and unload"
fi
runner_rc=$(cat "$out/rc" 2>/dev/null || echo none)
if [ "$runner_rc" = 0 ]; then
	record ok vm "test runner completed"
else
	record "not ok" vm "test runner completed (status $runner_rc, vm/run $vm_rc)"
fi

all=$(cat "$host_results" "$results" 2>/dev/null)
passed=$(grep -c '^ok ' <<<"$all")
skipped=$(grep -c '^skip ' <<<"$all")
failed=$(grep -c '^not ok ' <<<"$all")
echo
if [ "$failed" -gt 0 ]; then
	echo "Failed:"
	grep '^not ok ' <<<"$all" | sed 's/^not ok /  /'
fi
if [ "$skipped" -gt 0 ]; then
	echo "Skipped:"
	grep '^skip ' <<<"$all" | sed 's/^skip /  /'
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
