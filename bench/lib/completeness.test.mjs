import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { faults, incompleteness } from './completeness.mjs';
import { planOf, SCENARIOS, serverName } from './plan.mjs';
import { tableRows } from './report.mjs';

const entries = Object.values(planOf('/nowhere/dist/index.js', 'smoke')).flat();

/** A run of `server` that worked: every figure any row of the table reads, none of them fast. */
const worked = (server) => ({
  server,
  rep: 1,
  other_cpu_pct: 1,
  errors: 0,
  server_log_error_lines: 0,
  ...Object.fromEntries(
    [
      'calls_per_s',
      'p50_ms',
      'p99_ms',
      'server_cpu_pct',
      'client_cpu_pct',
      'cpu_us_per_call',
      'rss_per_session_kb',
      'heap_per_session_kb',
      'retained_after_delete_kb_per_session',
      'retained_after_idle_kb_per_session',
      'heap_retained_after_delete_kb_per_session',
      'open_per_s',
      'all_delivered_median_ms',
      'delivery_p50_ms',
      'mib_per_s',
      'rss_hwm_mib',
    ].map((k) => [k, 1]),
  ),
  ok: 2,
  iterations: 2,
  streams_left_open: 0,
  failures: 0,
});

/** Runs of every server of every entry, each as `worked` makes it, then changed by `change(run, entryKey)`. */
function runsOf(change = (r) => r) {
  return Object.fromEntries(
    entries.map((e) => [e.key, e.servers.map((s) => change(worked(serverName(s)), e.key)).filter(Boolean)]),
  );
}
const check = (runs) => incompleteness(entries, runs, tableRows(runs, 15));

describe('a run of npm run bench is whole', () => {
  it('when every server of every scenario ran and every figure is there, however slow and disturbed', () => {
    const slow = runsOf((r) => ({
      ...r,
      calls_per_s: r.server.startsWith('mcpwire') ? 0.5 : 1e6,
      other_cpu_pct: 190,
    }));
    const rows = tableRows(slow, 15);
    assert.ok(
      rows.some((r) => r.cells[7] === 'no'),
      'a target of speed is missed',
    );
    assert.deepEqual(incompleteness(entries, slow, rows), []);
  });

  it('covers every scenario of the table', () => {
    assert.deepEqual([...new Set(entries.map((e) => e.scenario))].sort(), [...SCENARIOS].sort());
  });
});

describe('a run of npm run bench is not whole', () => {
  it('when a scenario crashed (fanout and resume without summarize): each run, and the figures it left out', () => {
    const crashed = runsOf((r, key) =>
      key === 'fanout' || key.startsWith('resume')
        ? { server: r.server, rep: 1, error: 'summarize is not defined', server_log_error_lines: 0 }
        : r,
    );
    const gaps = check(crashed);
    assert.ok(gaps.includes('fanout: mcpwire rep 1: error: summarize is not defined'), gaps.join('\n'));
    assert.ok(gaps.includes('resume-after: sdk rep 1: error: summarize is not defined'), gaps.join('\n'));
    assert.ok(
      gaps.includes('"fanout: delivery p50 (ms)": no figure for ceiling, sdk, mcpwire'),
      gaps.join('\n'),
    );
    assert.ok(
      gaps.some((g) => g.startsWith('"resume, burst (0 ms apart)') && g.includes('mcpwire does not meet')),
      gaps.join('\n'),
    );
    assert.ok(!gaps.some((g) => /^(calls|stateless|modern|sessions|payload)/.test(g)), gaps.join('\n'));
  });

  it('when a server of the plan has no run at all', () => {
    const gaps = check(runsOf((r, key) => (key === 'modern' && r.server === 'sdk-v2' ? null : r)));
    assert.ok(gaps.includes('modern: no run of sdk-v2'), gaps.join('\n'));
    assert.ok(
      gaps.some((g) => g.startsWith('"modern: p50 latency": no figure for sdk-v2')),
      gaps.join('\n'),
    );
  });

  it('when one figure is missing from one row', () => {
    const gaps = check(
      runsOf((r, key) =>
        key === 'sessions' && r.server === 'mcpwire' ? { ...r, heap_per_session_kb: undefined } : r,
      ),
    );
    assert.deepEqual(gaps, ['"sessions: heap per idle session after GC (KB)": no figure for mcpwire']);
  });

  it('when mcpwire resumed a stream wrongly, but not when the SDK did (that is its figure)', () => {
    const wrong = (server) =>
      check(
        runsOf((r, key) =>
          key === 'resume-paced' && r.server === server ? { ...r, ok: 1, failures: 1 } : r,
        ),
      );
    assert.deepEqual(wrong('sdk'), []);
    assert.deepEqual(wrong('mcpwire'), [
      '"resume, paced 2 ms, drop while running: correct, streams left open": mcpwire does not meet "all correct, none left open"',
    ]);
  });
});

describe('faults of one run', () => {
  it('names failed calls, missing deliveries, failed DELETEs, unanswered calls and error lines in the log', () => {
    const r = {
      ...worked('sdk'),
      errors: 2,
      error_kinds: { http_500: 2 },
      error_samples: ['http_500: boom'],
      missing: 3,
      delete_failures: 1,
      failed_deletes: 1,
      stuck_calls: true,
      init_errors: 4,
      server_log_error_lines: 5,
      server_log: '/tmp/x.log',
    };
    assert.deepEqual(faults(r), [
      '2 failed calls {"http_500":2} ["http_500: boom"]',
      '4 sessions could not be opened',
      'calls still unanswered 15 s after the end of the run',
      '5 error lines in /tmp/x.log',
      '3 fan-out deliveries missing',
      '2 failed DELETEs',
    ]);
    assert.deepEqual(faults(worked('sdk')), []);
  });
});
