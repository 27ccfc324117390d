# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What the shell suites (interop.sh, flood.sh, paths.sh, migrate.sh,
# ecn.sh, trace.sh) have in common, sourced first by each, as
# mptcp_lib.sh is by the MPTCP suites. Sourcing it sets $dir (this directory), $repo and $OUT
# (default: .vm of the repository) and sources ktap.sh; then:
#
#   quic_init		the prologue, once the suite has set $suite: $log
#			($OUT/$suite.log, emptied), $tmp (a directory
#			removed at exit), $srv_pid (a server killed at
#			exit), TAP on stdout
#   quic_at_exit FUNC	call FUNC too at exit, before $tmp is removed
#   result VERDICT SUITE NAME
#			ktap.sh's (a line of $RESULTS), and the same result
#			as a TAP line on stdout: "ok N SUITE: NAME",
#			"not ok N SUITE: NAME" or "ok N SUITE: NAME # SKIP"
#   quic_stop_server	kill $srv_pid, if any, and wait for it
#   quic_wait_udp PORT	wait until something listens on UDP PORT (10 s),
#			from quic_helpers.sh
#   quic_exit		end the TAP output (plan, totals) and exit as a
#			kselftest: 1 (KSFT_FAIL) if a result failed, 4
#			(KSFT_SKIP) if there was none or all were skipped,
#			else 0
#
# Only the results that this run of the suite added to $RESULTS count:
# run_tests.sh appends those of every suite to one file.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2034	# for the suites
repo=$(cd "$dir/../../../../.." && pwd)
OUT=${OUT:-$repo/.vm}
# shellcheck source=ktap.sh
. "$dir/ktap.sh"
# shellcheck source=quic_helpers.sh
. "$dir/quic_helpers.sh"

# Where this run's results begin in $RESULTS.
quic_results_from=$(stat -c %s "$RESULTS" 2>/dev/null || echo 0)
quic_results_n=0
quic_exit_funcs=()

result() {
	ktap_record "$@"
	quic_results_n=$((quic_results_n + 1))
	case "$1" in
	ok) echo "ok $quic_results_n $2: $3" ;;
	skip) echo "ok $quic_results_n $2: $3 # SKIP" ;;
	*) echo "not ok $quic_results_n $2: $3" ;;
	esac
}

quic_cleanup() {
	local f

	[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null
	for f in "${quic_exit_funcs[@]}"; do
		"$f"
	done
	rm -rf "$tmp"
}

quic_at_exit() {
	quic_exit_funcs+=("$1")
}

quic_init() {
	# shellcheck disable=SC2154	# set by the suite
	log=$OUT/$suite.log
	: >"$log"
	tmp=$(mktemp -d)
	srv_pid=
	trap quic_cleanup EXIT
	# The runner's timeout (kselftest's settings) sends SIGTERM: the
	# namespaces and servers go all the same.
	trap 'exit $KSFT_FAIL' INT TERM
	echo "TAP version 13"
}

quic_stop_server() {
	[ -n "$srv_pid" ] || return 0
	kill "$srv_pid" 2>/dev/null
	wait "$srv_pid" 2>/dev/null
	srv_pid=
}

quic_exit() {
	local pass fail skip

	read -r pass fail skip < <(tail -c +$((quic_results_from + 1)) \
		"$RESULTS" 2>/dev/null |
		awk '/^ok / { p++ } /^not ok / { f++ } /^skip / { s++ }
		     END { print p + 0, f + 0, s + 0 }')
	echo "1..$((pass + fail + skip))"
	echo "# Totals: pass:$pass fail:$fail skip:$skip"
	[ "$fail" -eq 0 ] || exit $KSFT_FAIL
	[ "$pass" -gt 0 ] || exit $KSFT_SKIP
	exit $KSFT_PASS
}
