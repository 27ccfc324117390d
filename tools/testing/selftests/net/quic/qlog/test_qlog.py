#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of tools/quic/qlog, on the samples of this directory.
# One exchange written by hand (a listener, the connection it accepted
# and the client, on one host, with a loss later found spurious, a key
# update and drops) in the three text forms the tool reads: tracefs
# "trace" (trace.txt), "trace-cmd report" (trace-cmd.txt) and "perf
# script" (script.txt), the last two with the socket states as numbers,
# as libtraceevent prints them; the same as trace_pipe text with bad
# lines among the events (trace_pipe-bad.txt: garbage, truncated lines,
# an unknown quic event, a field not a number, a lost-events notice,
# other events, two events out of order); and a real recording, perf
# script of one connection of the conn selftest (netem loss) in the test
# VM, every event of its listener, client and accepted socket
# (script-conn.txt). No "perf" in the names: tools/quic/series files such
# selftest files with the benchmarks.
# Prints "ok qlog: <what>" or "not ok qlog: <what>" per check (the form
# of check.sh's host results); exits 1 if any failed. $QLOG: the tool
# (default: tools/quic/qlog of this tree).

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, '..', '..', '..', '..', '..', '..'))
QLOG = os.environ.get('QLOG', os.path.join(REPO, 'tools', 'quic', 'qlog'))
SAMPLES = ['trace.txt', 'trace-cmd.txt', 'script.txt']
BAD = 'trace_pipe-bad.txt'
REAL = 'script-conn.txt'

SUMMARY = [
	'unattributed: 2 events -> {d}/unattributed.sqlog',
	'4097: 9 packets sent, 6 received, 1 lost -> {d}/4097.sqlog',
	'8193: 0 packets sent, 0 received, 0 lost -> {d}/8193.sqlog',
	'8194: 6 packets sent, 9 received, 0 lost -> {d}/8194.sqlog',
]
FILES = ['4097.sqlog', '8193.sqlog', '8194.sqlog', 'unattributed.sqlog']

failed = 0


def check(what, ok, why=''):
	global failed
	if ok:
		print('ok qlog: ' + what)
	else:
		failed += 1
		why = str(why)
		if len(why) > 200:
			why = why[:200] + '...'
		print('not ok qlog: ' + what + (' (%s)' % why if why else ''))
	sys.stdout.flush()


def run(*args, stdin=None):
	p = subprocess.run([QLOG] + list(args), input=stdin,
			   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
	return p.returncode, p.stdout.decode(errors='replace'), \
		p.stderr.decode(errors='replace')


def records(path):
	with open(path, encoding='utf-8') as f:
		text = f.read()
	return [json.loads(r) for r in text.split('\x1e')[1:]]


def tree(d):
	out = {}
	for n in sorted(os.listdir(d)):
		with open(os.path.join(d, n), 'rb') as f:
			out[n] = f.read()
	return out


def convert(tmp, name, *args):
	d = os.path.join(tmp, name.replace('.', '_'))
	rc, out, err = run('-o', d, *args)
	return d, rc, out, err


def test_formats(tmp):
	trees = {}
	for s in SAMPLES:
		d, rc, out, err = convert(tmp, s, os.path.join(HERE, s))
		check('%s: converts, exit 0' % s, rc == 0, err.strip())
		want = [x.format(d=d) for x in SUMMARY]
		check('%s: one summary line per connection, with its counts' % s,
		      out.splitlines() == want, out)
		check('%s: 76 events read, none malformed' % s,
		      ' 76 events, 0 unknown quic events, 0 malformed,' in err,
		      err.strip())
		check('%s: one file per cookie' % s,
		      sorted(os.listdir(d)) == FILES, os.listdir(d))
		rc, out, _ = run('--check', *[os.path.join(d, f) for f in FILES])
		check('%s: --check passes the files it wrote' % s,
		      rc == 0 and out.count('\nok ') + out.startswith('ok ') == 4,
		      out)
		trees[s] = tree(d)
	same = all(trees[s] == trees[SAMPLES[0]] for s in SAMPLES)
	check('the three forms of a trace give the same qlog', same)
	return os.path.join(tmp, SAMPLES[0].replace('.', '_'))


def test_content(d):
	cli = records(os.path.join(d, '4097.sqlog'))
	srv = records(os.path.join(d, '8194.sqlog'))
	lsn = records(os.path.join(d, '8193.sqlog'))
	una = records(os.path.join(d, 'unattributed.sqlog'))
	hdr = cli[0]
	check('header: qlog 0.3, JSON-SEQ, relative times',
	      hdr['qlog_version'] == '0.3' and hdr['qlog_format'] == 'JSON-SEQ'
	      and hdr['trace']['common_fields']['time_format'] == 'relative'
	      and hdr['trace']['common_fields']['reference_time'] == 52100.0,
	      hdr)
	roles = [r[0]['trace']['vantage_point']['type']
		 for r in (cli, srv, lsn, una)]
	check('vantage points: client sent the first Initial, the accepted '
	      'socket received it, the listener is a server, cookie 0 unknown',
	      roles == ['client', 'server', 'server', 'unknown'], roles)

	def named(recs, name):
		return [e for e in recs[1:] if e['name'] == name]
	sent = named(cli, 'transport:packet_sent')
	check('packet_sent: as many as quic_packet_sent events',
	      len(sent) == 9, len(sent))
	check('packet_sent: space 1 is an Initial, number, length, frames',
	      sent[0]['data'] == {
		      'header': {'packet_type': 'initial', 'packet_number': 0},
		      'raw': {'length': 1200},
		      'frames': [{'frame_type': 'padding'},
				 {'frame_type': 'crypto'}]}, sent[0])
	types = [e['data']['header']['packet_type'] for e in sent]
	check('packet types: space 2 handshake, space 0 1RTT',
	      types[1] == 'handshake' and types[2:] == ['1RTT'] * 7, types)
	check('frames: bit 31 is a DATAGRAM, bit 28 a transport '
	      'CONNECTION_CLOSE',
	      sent[6]['data']['frames'] == [{'frame_type': 'datagram'}] and
	      sent[8]['data']['frames'] == [{'frame_type': 'connection_close',
					     'error_space': 'transport'}],
	      [sent[6], sent[8]])
	rcvd = named(srv, 'transport:packet_received')
	check('packet_received: as many as quic_packet_rcvd events, in time '
	      'order', len(rcvd) == 9 and
	      [e['time'] for e in rcvd] == sorted(e['time'] for e in rcvd))
	acked = named(cli, 'transport:packets_acked')
	check('packets_acked: the acks of one space at one time merged',
	      [e['data']['packet_numbers'] for e in acked] == [[0], [0, 1, 3, 4],
							       [5]] and
	      acked[1]['data']['packet_number_space'] == 'application_data',
	      acked)
	lost = named(cli, 'recovery:packet_lost')
	check('packet_lost: the lost packet',
	      len(lost) == 1 and lost[0]['data']['header'] ==
	      {'packet_type': '1RTT', 'packet_number': 2}, lost)
	m = named(cli, 'recovery:metrics_updated')
	check('metrics_updated: ms, bits/s, no ssthresh while infinite',
	      m[0]['data'] == {'congestion_window': 13500,
			       'bytes_in_flight': 0, 'smoothed_rtt': 0.6,
			       'rtt_variance': 0.3, 'min_rtt': 0.6,
			       'latest_rtt': 0.6, 'pacing_rate': 225000000,
			       'trigger': 'ack'} and
	      m[1]['data'].get('ssthresh') == 7500, m[:2])
	keys = [(e['name'].split(':')[1], e['data']['key_type'],
		 e['data']['trigger']) for e in cli[1:]
		if e['name'].startswith('security:')]
	check('keys: the client\'s send key is the client secret; discards '
	      'and updates', keys[:2] == [
		      ('key_updated', 'client_initial_secret', 'tls'),
		      ('key_updated', 'server_initial_secret', 'tls')] and
	      ('key_discarded', 'client_initial_secret', 'tls') in keys and
	      keys[-1] == ('key_updated', 'client_1rtt_secret',
			   'local_update'), keys)
	states = [(e['data'].get('old'), e['data']['new'])
		  for e in named(cli, 'connectivity:connection_state_updated')]
	check('connection states mapped',
	      states == [('closed', 'handshake_started'),
			 ('handshake_started', 'handshake_complete'),
			 ('handshake_complete', 'closed')], states)
	check('listener: server_listening and its Initial decision',
	      [e['name'] for e in lsn[1:]] ==
	      ['connectivity:server_listening', 'kernel:initial_decision',
	       'connectivity:connection_state_updated'], lsn)
	drops = [e['data'] for e in named(srv, 'transport:packet_dropped')]
	check('packet_dropped: trigger and the counter',
	      drops == [{'details': 'QuicInDropDecrypt',
			 'trigger': 'payload_decrypt_error'}], drops)
	check('unattributed: the drops of cookie 0, an empty reason kept',
	      [e['data'] for e in una[1:]] == [
		      {'details': 'QuicInDropNoConnection',
		       'trigger': 'unknown_connection_id'},
		      {'details': ''}], una)
	path = [(e['name'], e['data']) for e in cli[1:]
		if e['name'] in ('connectivity:mtu_updated',
				 'recovery:ecn_state_updated', 'kernel:path')]
	check('path events: MTU, ECN, others as kernel:path',
	      path == [('connectivity:mtu_updated', {'new': 1452}),
		       ('recovery:ecn_state_updated', {'new': 'capable'}),
		       ('kernel:path', {'what': 'validated', 'value': 0})], path)
	st = [e['data'] for e in named(srv, 'transport:stream_state_updated')]
	check('stream_state_updated: id, side, state',
	      st == [{'stream_id': 0, 'stream_side': 'receiving',
		      'new': 'receive'}], st)
	sp = named(cli, 'kernel:loss_spurious')
	check('spurious loss kept as kernel:loss_spurious',
	      len(sp) == 1 and sp[0]['data'] == {'largest': 5, 'undo': True},
	      sp)


def test_bad(tmp, good):
	path = os.path.join(HERE, BAD)
	d, rc, out, err = convert(tmp, BAD, path)
	check('bad lines: skipped, exit 0', rc == 0, err.strip())
	check('bad lines: counted (1 unknown event, 6 malformed, 6 other '
	      'lines, 7 events lost)',
	      '89 lines: 76 events, 1 unknown quic events, 6 malformed, '
	      '6 other lines, 7 events lost by the tracer' in err, err.strip())
	check('bad lines and out-of-order events: the same qlog as the clean '
	      'trace', tree(d) == tree(good))
	rc, _, _ = run('--strict', '-o', d, path)
	check('--strict: exit 1 on malformed lines', rc == 1, rc)
	rc, _, _ = run('--strict', '-o', d, os.path.join(HERE, SAMPLES[0]))
	check('--strict: exit 0 on a clean trace', rc == 0, rc)


def test_real(tmp):
	"""perf script of one connection of the conn selftest (netem loss), in
	the test VM: every event of the listener, the client and the
	accepted socket."""
	path = os.path.join(HERE, REAL)
	d, rc, out, err = convert(tmp, REAL, path)
	check('%s: converts, 177 events, none malformed' % REAL,
	      rc == 0 and ' 177 events, 0 unknown quic events, 0 malformed,'
	      in err, err.strip())
	want = {}
	kinds = {'quic:quic_packet_sent:': 0, 'quic:quic_packet_rcvd:': 1,
		 'quic:quic_packet_lost:': 2}
	with open(path) as f:
		for line in f:
			w = line.split()
			c = int(w[5].split('=')[1])
			k = want.setdefault(c, [0, 0, 0])
			if w[4] in kinds:
				k[kinds[w[4]]] += 1
	got = {}
	for line in out.splitlines():
		c, rest = line.split(': ', 1)
		n = rest.split()
		got[int(c)] = [int(n[0]), int(n[3]), int(n[5])]
	check('%s: the packets sent, received and lost of each cookie, as '
	      'grep counts them' % REAL, got == want and
	      want[4533][2] == 7, (want, got))
	recs = {c: records(os.path.join(d, '%d.sqlog' % c))
		for c in (4531, 4532, 4533)}
	roles = [recs[c][0]['trace']['vantage_point']['type']
		 for c in (4531, 4532, 4533)]
	check('%s: the listener and the accepted socket are servers, the '
	      'client a client' % REAL,
	      roles == ['server', 'client', 'server'], roles)
	lsn = recs[4531]
	check('%s: states printed as numbers (old=0x7 new=0xa) mapped' % REAL,
	      [(e['name'], e['data']) for e in lsn[1:] if
	       e['name'].startswith('connectivity:')] == [
		      ('connectivity:server_listening', {}),
		      ('connectivity:connection_state_updated',
		       {'new': 'closed'}),
		      ('connectivity:connection_state_updated',
		       {'old': 'closed', 'new': 'closed'})], lsn)
	first = [[e['data']['key_type'] for e in recs[c][1:]
		  if e['name'] == 'security:key_updated'][0]
		 for c in (4532, 4533)]
	check('%s: each end\'s first key is its own Initial send key' % REAL,
	      first == ['client_initial_secret', 'server_initial_secret'],
	      first)
	names = set(e['name'] for c in recs for e in recs[c][1:])
	check('%s: every kind of event mapped' % REAL, names == {
		'connectivity:server_listening', 'kernel:initial_decision',
		'connectivity:connection_state_updated',
		'connectivity:mtu_updated', 'recovery:ecn_state_updated',
		'recovery:metrics_updated', 'recovery:packet_lost',
		'security:key_updated', 'security:key_discarded',
		'transport:packet_dropped', 'transport:packet_received',
		'transport:packet_sent', 'transport:packets_acked',
		'transport:stream_state_updated'}, sorted(names))
	rc, out, _ = run('--check', *[os.path.join(d, n)
				      for n in os.listdir(d)])
	check('%s: --check passes the files it wrote' % REAL, rc == 0, out)


def test_cli(tmp):
	with open(os.path.join(HERE, SAMPLES[1]), 'rb') as f:
		data = f.read()
	d = os.path.join(tmp, 'stdin')
	rc, out, _ = run('-o', d, '-', stdin=data)
	check('reads standard input', rc == 0 and len(out.splitlines()) == 4,
	      out)
	rc, out, err = run('-o', d, '-', stdin=data + data[:-30])
	check('a last line cut short, without its newline: malformed',
	      rc == 0 and ' 151 events, 0 unknown quic events, 1 malformed,'
	      in err, err.strip())
	d = os.path.join(tmp, 'empty')
	rc, out, err = run('-o', d, stdin=b'')
	check('empty input: exit 0, no files',
	      rc == 0 and out == '' and os.listdir(d) == [], (rc, out, err))
	d = os.path.join(tmp, 'role')
	rc, _, _ = run('-o', d, '--vantage', '4097=server',
		       os.path.join(HERE, SAMPLES[0]))
	r = records(os.path.join(d, '4097.sqlog'))
	check('--vantage COOKIE=ROLE overrides what the trace shows',
	      rc == 0 and r[0]['trace']['vantage_point']['type'] == 'server'
	      and r[2]['data']['key_type'] == 'server_initial_secret', r[:3])
	cong = (b'  x-1 [000] 1.000000: quic_cong: cookie=7 why=pto cwnd=2400 '
		b'ssthresh=2400 in_flight=1200 srtt=1000 rttvar=500 '
		b'min_rtt=900 latest_rtt=1100 pacing_rate=1000\n')
	rc, _, _ = run('-o', d, stdin=cong)
	r = records(os.path.join(d, '7.sqlog'))
	check('a connection whose role the trace does not show: unknown',
	      rc == 0 and r[0]['trace']['vantage_point']['type'] == 'unknown',
	      r[0])
	rc, _, _ = run('-o', d, '--vantage', 'client', stdin=cong)
	r = records(os.path.join(d, '7.sqlog'))
	check('--vantage ROLE: for the connections the trace does not place',
	      rc == 0 and r[0]['trace']['vantage_point']['type'] == 'client',
	      r[0])
	rc, _, err = run('-o', d, '--vantage', 'peer', stdin=b'')
	check('--vantage with an unknown role: an error', rc != 0, err)


def test_check(tmp):
	good = {'qlog_version': '0.3', 'qlog_format': 'JSON-SEQ',
		'trace': {'vantage_point': {'type': 'client'}}}
	ev = {'time': 1.5, 'name': 'transport:packet_sent', 'data': {}}

	def seq(*objs):
		return ''.join('\x1e' + json.dumps(o) + '\n' for o in objs)
	cases = [
		('a header alone', seq(good), True),
		('a header and an event', seq(good, ev), True),
		('an empty file', '', False),
		('JSON without record separators', json.dumps(good) + '\n', False),
		('a record that is not JSON', seq(good) + '\x1e{"time": 1,\n',
		 False),
		('a record without its newline', seq(good, ev)[:-1], False),
		('no qlog_version',
		 seq(dict(good, qlog_version=None), ev), False),
		('qlog_format not JSON-SEQ',
		 seq(dict(good, qlog_format='JSON'), ev), False),
		('no vantage point', seq(dict(good, trace={}), ev), False),
		('an event without time',
		 seq(good, {'name': ev['name'], 'data': {}}), False),
		('an event whose time is a string',
		 seq(good, dict(ev, time='1')), False),
		('an event without data',
		 seq(good, {'time': 0, 'name': ev['name']}), False),
		('an event name without a category',
		 seq(good, dict(ev, name='packet_sent')), False),
	]
	paths = []
	for i, (what, text, ok) in enumerate(cases):
		p = os.path.join(tmp, 'check%d.sqlog' % i)
		with open(p, 'w', encoding='utf-8') as f:
			f.write(text)
		rc, out, _ = run('--check', p)
		check('--check: %s %s' % (what, 'passes' if ok else 'fails'),
		      (rc == 0) == ok and out.startswith('ok ' if ok else
							 'not ok '), out)
		paths.append(p)
	rc, out, _ = run('--check', paths[0], paths[2])
	check('--check: one bad file of two, exit 1', rc == 1, out)
	rc, out, _ = run('--check', os.path.join(tmp, 'nonexistent.sqlog'))
	check('--check: a missing file fails', rc == 1, out)


def test_fuzz(tmp):
	"""Lines of the samples cut, mixed with random bytes, or with odd
	values."""
	rnd = random.Random(25)
	odd = [b'', b'07', b'-1', b'0x', b'0xg', b'1e5', b'1.5', b'x' * 300,
	       b'99999999999999999999999999', b'-0x7', b'0X1', b'ESTABLISHED',
	       b'\xff\xfe', b'=', b'cookie=1']
	lines = []
	for s in SAMPLES:
		with open(os.path.join(HERE, s), 'rb') as f:
			lines += f.read().splitlines(True)
	out = []
	for _ in range(3000):
		l = rnd.choice(lines)
		k = rnd.randrange(4)
		if k == 0:
			l = l[:rnd.randrange(len(l) + 1)]
		elif k == 1:
			i = rnd.randrange(len(l) + 1)
			l = l[:i] + bytes(rnd.randrange(256) for _ in range(
				rnd.randrange(8))) + l[i:]
		elif k == 2:
			l = bytes(rnd.randrange(256) for _ in range(
				rnd.randrange(120)))
		out.append(l if l.endswith(b'\n') else l + b'\n')
	# each field of each event of a sample with each odd value
	with open(os.path.join(HERE, SAMPLES[2]), 'rb') as f:
		for l in f.read().splitlines():
			w = l.split(b' ')
			for i in range(len(w)):
				if b'=' not in w[i]:
					continue
				for v in odd:
					x = w[:i] + [w[i].split(b'=')[0] + b'=' + v] + \
						w[i + 1:]
					out.append(b' '.join(x) + b'\n')
	d = os.path.join(tmp, 'fuzz')
	rc, _, err = run('-o', d, stdin=b''.join(out))
	files = [os.path.join(d, n) for n in os.listdir(d)] \
		if os.path.isdir(d) else []
	crc, cout, _ = run('--check', *files) if files else (1, 'no files', '')
	check('fuzzed input: no crash, and what is written passes --check',
	      rc == 0 and crc == 0, (err.strip()[-300:], cout[-300:]))


def main():
	if not os.access(QLOG, os.X_OK):
		check('the tool exists: ' + QLOG, False)
		return 1
	tmp = tempfile.mkdtemp(prefix='test_qlog.')
	try:
		good = test_formats(tmp)
		test_content(good)
		test_bad(tmp, good)
		test_real(tmp)
		test_cli(tmp)
		test_check(tmp)
		test_fuzz(tmp)
	except Exception as e:	# a crash is a failure, not a traceback
		check('the tests ran to the end', False, repr(e))
	finally:
		shutil.rmtree(tmp, ignore_errors=True)
	return 1 if failed else 0


if __name__ == '__main__':
	sys.exit(main())
