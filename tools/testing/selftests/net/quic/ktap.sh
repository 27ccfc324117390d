# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the guest-side scripts (sourced): load a test module and turn
# the KTAP it prints into result lines, run a kselftest binary and do the
# same with its TAP output. Results are appended to $RESULTS as
# "ok <suite>: <name>", "not ok <suite>: <name>" or "skip <suite>: <name>".

RESULTS=${RESULTS:-$OUT/results}

# ktap_record VERDICT SUITE NAME: one line of $RESULTS.
ktap_record() {
	echo "$1 $2: $3" >>"$RESULTS"
}

# result VERDICT SUITE NAME: record it, and name a failure on stdout
# (quic_lib.sh, for the shell suites, prints every result as TAP).
result() {
	ktap_record "$@"
	case "$1" in
	"not ok") echo "FAIL $2: $3" ;;
	esac
}

# tap_to_results SUITE: read TAP/KTAP on stdin, record top-level results.
# Shell expansions only: under TCG every sed or grep forked per line cost
# a quarter of a second, minutes over a run.
tap_to_results() {
	local suite=$1 line name run= v
	while IFS= read -r line; do
		case "$line" in
		"#  RUN "*)
			# kselftest_harness.h names a skipped test only here.
			run=${line#"#  RUN"}
			run=${run#"${run%%[! ]*}"}
			run=${run% ...}
			continue ;;
		"ok "*) v=ok; name=${line#ok } ;;
		"not ok "*) v="not ok"; name=${line#not ok } ;;
		*) continue ;;
		esac
		# "ok 3 - name" or "ok 3 name": the name.
		name=${name#"${name%%[!0-9]*}"}
		name=${name# }
		name=${name#-}
		name=${name# }
		case "$name" in
		"# SKIP"*) name="$run $name" ;;
		esac
		case "$line" in
		*"# SKIP"*) v=skip ;;
		esac
		result "$v" "$suite" "$name"
	done
}

# ktap_leaves: read KTAP on stdin, flat (our own runners) or nested (KUnit,
# with its subtests indented), and print the results of the innermost
# tests, "ok NAME", "not ok NAME" or "skip NAME", plus a closing
# "plan PLANNED GOT": how many results the plans announced and how many
# came. A subtest's own result line is not printed unless it failed with
# no failed test inside (KUnit failing a whole suite).
ktap_leaves() {
	awk '
	function ind(s) { match(s, /^ */); return RLENGTH }
	{
		n = ind($0); l = substr($0, n + 1)
		if (l ~ /^# Subtest: /) {
			open[n] = 1; bad[n] = 0; subtests++
			next
		}
		if (l ~ /^1\.\.[0-9]+/) {
			split(substr(l, 4), p, /[^0-9]/); planned += p[1]
			next
		}
		if (l !~ /^(not )?ok [0-9]+ /)
			next
		name = l
		sub(/^(not )?ok [0-9]+ (- )?/, "", name)
		v = (l ~ /^not ok/) ? "not ok" : "ok"
		if (name ~ /# SKIP/)
			v = "skip"
		if (open[n + 4]) {	# the end of a subtest
			open[n + 4] = 0; closed++
			if (v == "not ok" && !bad[n + 4])
				print v, name
			if (v == "not ok")
				for (k in open) if (open[k]) bad[k]++
			next
		}
		if (v == "not ok")
			for (k in open) if (open[k]) bad[k]++
		print v, name
		leaves++
	}
	END {
		# KUnit plans subtests, not parameters: every subtest must end.
		if (closed) print "plan", subtests, closed + 0
		else print "plan", planned + 0, leaves + 0
	}'
}

# run_ktap_module MODULE [PARAM...]: load MODULE, parse the KTAP its init
# (or KUnit, for a KUnit test module) printed to the kernel log, unload it.
run_ktap_module() {
	local mod=$1 mark v name planned got
	shift
	mark="quic-selftest-start-$mod-$$"
	echo "== $mod"
	echo "$mark" >/dev/kmsg
	if ! modprobe "$mod" "$@"; then
		result "not ok" "$mod" "module loads"
		return
	fi
	dmesg -t | sed -n "/$mark/,\$p" | tail -n +2 >"$OUT/$mod.ktap"
	grep -E '^ *(KTAP|1\.\.|ok |not ok |#)' "$OUT/$mod.ktap" || true
	planned=0
	got=0
	while read -r v name; do
		case "$v" in
		plan) planned=${name% *}; got=${name#* } ;;
		not) result "not ok" "$mod" "${name#ok }" ;;
		*) result "$v" "$mod" "$name" ;;
		esac
	done < <(ktap_leaves <"$OUT/$mod.ktap")
	if [ "$planned" -eq 0 ] || [ "$planned" -ne "$got" ]; then
		result "not ok" "$mod" "reports every planned test ($got of $planned)"
	fi
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
	local rc=0 start=$SECONDS
	"$@" >"$OUT/$suite.tap" 2>&1 || rc=$?
	grep -E '^(ok|not ok) ' "$OUT/$suite.tap"
	tap_to_results "$suite" <"$OUT/$suite.tap"
	echo "# $suite: $((SECONDS - start)) s (ends at $(date +%s))"
	if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$OUT/$suite.tap"; then
		result "not ok" "$suite" "exits 0 (status $rc)"
	fi
}
