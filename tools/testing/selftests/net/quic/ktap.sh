# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the guest-side scripts (sourced): load a test module and turn
# the KTAP it prints into result lines, run a kselftest binary and do the
# same with its TAP output. Results are appended to $RESULTS as
# "ok <suite>: <name>", "not ok <suite>: <name>" or "skip <suite>: <name>".

RESULTS=${RESULTS:-$OUT/results}

result() {
	echo "$1 $2: $3" >>"$RESULTS"
	case "$1" in
	"not ok") echo "FAIL $2: $3" ;;
	esac
}

# tap_to_results SUITE: read TAP/KTAP on stdin, record top-level results.
tap_to_results() {
	local suite=$1 line name run=
	while IFS= read -r line; do
		case "$line" in
		"#  RUN "*)
			# kselftest_harness.h names a skipped test only here.
			run=$(echo "$line" | sed -E 's/^#  RUN +//; s/ \.\.\.$//')
			continue ;;
		"ok "*|"not ok "*) ;;
		*) continue ;;
		esac
		name=$(echo "$line" | sed -E 's/^(not )?ok [0-9]+ -? ?//')
		case "$name" in
		"# SKIP"*) name="$run $name" ;;
		esac
		if echo "$line" | grep -q '# SKIP'; then
			result skip "$suite" "$name"
		elif [ "${line#not ok}" != "$line" ]; then
			result "not ok" "$suite" "$name"
		else
			result ok "$suite" "$name"
		fi
	done
}

# run_ktap_module MODULE [PARAM...]: load MODULE, parse the KTAP its init
# printed to the kernel log, unload it.
run_ktap_module() {
	local mod=$1 mark planned got
	shift
	mark="quic-selftest-start-$mod-$$"
	echo "== $mod"
	echo "$mark" >/dev/kmsg
	if ! modprobe "$mod" "$@"; then
		result "not ok" "$mod" "module loads"
		return
	fi
	dmesg -t | sed -n "/$mark/,\$p" | tail -n +2 >"$OUT/$mod.ktap"
	grep -E '^(KTAP|1\.\.|ok |not ok |#)' "$OUT/$mod.ktap" || true
	planned=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' "$OUT/$mod.ktap" |
		  awk '{ n += $1 } END { print n + 0 }')
	got=$(grep -cE '^(ok|not ok) ' "$OUT/$mod.ktap")
	if [ "$planned" -eq 0 ] || [ "$planned" -ne "$got" ]; then
		result "not ok" "$mod" "reports every planned test ($got of $planned)"
	fi
	tap_to_results "$mod" <"$OUT/$mod.ktap"
	if rmmod "$mod"; then
		result ok "$mod" "module unloads"
	else
		result "not ok" "$mod" "module unloads"
	fi
}

# run_kselftest BINARY [ARG...]: run a kselftest_harness.h program.
run_kselftest() {
	local bin=$1 suite
	suite=$(basename "$bin")
	echo "== $suite"
	if [ ! -x "$bin" ]; then
		result "not ok" "$suite" "built"
		return
	fi
	local rc=0
	"$@" >"$OUT/$suite.tap" 2>&1 || rc=$?
	grep -E '^(ok|not ok) ' "$OUT/$suite.tap"
	tap_to_results "$suite" <"$OUT/$suite.tap"
	if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$OUT/$suite.tap"; then
		result "not ok" "$suite" "exits 0 (status $rc)"
	fi
}
