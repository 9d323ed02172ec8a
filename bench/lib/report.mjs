// The table of issue 5 from the runs of `npm run bench` (compare.mjs's JSON lines, by plan key), with the noise
// and the problems of every run.
import { faults } from './completeness.mjs';

/** A run that worked while other processes took at most `noiseLimit` % of a core. */
export const isClean = (r, noiseLimit) =>
  !r.error && (r.other_cpu_pct === undefined || r.other_cpu_pct <= noiseLimit);

const median = (xs) => {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((x, y) => x - y);
  if (!v.length) return null;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const fmt = (x, unit = '') => {
  if (x === null || x === undefined) return '–';
  const s = Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2);
  return `${s.replace(/\B(?=(\d{3})+(?!\d))/g, ' ')}${unit}`;
};
const cell = (m, unit) => `${fmt(m.v, unit)}${m.noisy ? ' (noisy)' : ''}`;
const ratio = (x, base) =>
  x.v === null || base.v === null || !base.v ? '–' : `${(x.v / base.v).toFixed(3)}×`;

/**
 * The table's rows, of the scenarios that have runs in `runsOf`. Each row is `{ cells, missing, mustMeet }`:
 * its eight cells (scenario, ceiling, SDK, mcpwire, both ratios to the ceiling, target, met), the servers whose
 * figure it should show and has not (no run of theirs worked), and whether its target is one of correctness
 * (met by every run that works, however busy the machine) rather than of speed.
 */
export function tableRows(runsOf, noiseLimit) {
  const clean = (r) => isClean(r, noiseLimit);
  /**
   * Whether a scenario's medians use only undisturbed runs: when every server has one, so that the
   * ratios compare like with like; otherwise all runs count and the figures are marked noisy.
   */
  const cleanOnly = {};
  for (const [key, runs] of Object.entries(runsOf)) {
    const servers = new Set(runs.map((r) => r.server));
    cleanOnly[key] = [...servers].every((s) => runs.some((r) => r.server === s && clean(r)));
  }
  /** Median of a metric over a server's runs (see `cleanOnly`). */
  function med(key, server, metric) {
    const runs = (runsOf[key] ?? []).filter((r) => r.server === server && !r.error);
    const use = cleanOnly[key] ? runs.filter(clean) : runs;
    return { v: median(use.map((r) => r[metric])), noisy: !cleanOnly[key] && runs.length > 0, n: use.length };
  }
  const sum = (key, server, metric) =>
    (runsOf[key] ?? [])
      .filter((r) => r.server === server && !r.error)
      .reduce((s, r) => s + (r[metric] ?? 0), 0);

  const rows = [];
  /** A row: ceiling, SDK, mcpwire, ratios to the ceiling, the target and whether mcpwire meets it. */
  function row(
    label,
    key,
    metric,
    {
      ceil = 'ceiling',
      sdkName = 'sdk',
      oursName = 'mcpwire',
      unit = '',
      target = '',
      meets,
      ratios = true,
      ceilKey = key,
    },
  ) {
    if (!runsOf[key]?.length) return;
    const c = ceil ? med(ceilKey, ceil, metric) : { v: null };
    const s = med(key, sdkName, metric);
    const o = med(key, oursName, metric);
    const shown = [...(ceil ? [[ceil, c]] : []), [sdkName, s], [oursName, o]];
    rows.push({
      cells: [
        label,
        ceil ? cell(c, unit) : '–',
        cell(s, unit),
        cell(o, unit),
        ratios && ceil ? ratio(s, c) : '–',
        ratios && ceil ? ratio(o, c) : '–',
        target,
        meets === undefined ? '' : o.v === null ? '?' : meets(o.v, c.v) ? 'yes' : 'no',
      ],
      missing: shown.filter(([, m]) => m.v === null).map(([name]) => name),
      mustMeet: false,
    });
  }
  const atLeast = (k) => (v, c) => c !== null && v / c >= k;
  const atMost = (k) => (v) => v <= k;

  // The servers of a row other than the defaults (ceiling, sdk, mcpwire).
  const SSE = { sdkName: 'sdk-sse', oursName: 'mcpwire-sse' };
  const JSON_ANSWERS = { sdkName: 'sdk-json', oursName: 'mcpwire-json' };
  const ms = { unit: ' ms' };
  const us = { unit: ' µs' };
  // Figures per session or per process: no ratio to the ceiling.
  const absolute = { ratios: false };

  row('calls, SSE answers, 32 sessions: calls/s', 'calls', 'calls_per_s', {
    ...SSE,
    target: '≥ 0.5× ceiling',
    meets: atLeast(0.5),
  });
  row('calls, SSE: p50 latency', 'calls', 'p50_ms', { ...SSE, ...ms, ...absolute });
  row('calls, SSE: p99 latency', 'calls', 'p99_ms', { ...SSE, ...ms, ...absolute });
  row('calls, SSE: server CPU (% of its core)', 'calls', 'server_cpu_pct', { ...SSE, ...absolute });
  row('calls, SSE: load generator CPU (% of its core)', 'calls', 'client_cpu_pct', {
    ...SSE,
    ...absolute,
    target: 'harness co-limits above ~85',
  });
  row('calls, SSE: server CPU per call (µs)', 'calls', 'cpu_us_per_call', { ...SSE, ...us });
  row('calls, JSON-response mode: calls/s', 'calls', 'calls_per_s', {
    ...JSON_ANSWERS,
    target: '≥ 0.5× ceiling',
    meets: atLeast(0.5),
  });
  row('calls, JSON: server CPU per call (µs)', 'calls', 'cpu_us_per_call', { ...JSON_ANSWERS, ...us });
  row('stateless: calls/s', 'stateless', 'calls_per_s', { target: '≥ 0.4× ceiling', meets: atLeast(0.4) });
  row('stateless: server CPU per call (µs)', 'stateless', 'cpu_us_per_call', us);
  // The SDK column of the modern rows is v2 2.4.0 (createMcpHandler), not 1.32.2. A call mcpwire failed
  // (an HTTP error, a JSON-RPC error) fails the target whatever the rate of the others.
  const V2 = { sdkName: 'sdk-v2' };
  row('modern (2026-07-28, no session; SDK v2): calls/s', 'modern', 'calls_per_s', {
    ...V2,
    target: '≥ 0.8× ceiling, no failed call',
    meets: (v, c) => sum('modern', 'mcpwire', 'errors') === 0 && atLeast(0.8)(v, c),
  });
  row('modern: p50 latency', 'modern', 'p50_ms', { ...V2, ...ms, ...absolute });
  row('modern: p99 latency', 'modern', 'p99_ms', { ...V2, ...ms, ...absolute });
  row('modern: server CPU per call (µs)', 'modern', 'cpu_us_per_call', { ...V2, ...us });
  const fiveKb = { ...absolute, target: '≤ 5 KB', meets: atMost(5) };
  const oneKb = { ...absolute, target: '≤ 1 KB', meets: atMost(1) };
  row('sessions: RSS per idle session (KB)', 'sessions', 'rss_per_session_kb', fiveKb);
  row('sessions: heap per idle session after GC (KB)', 'sessions', 'heap_per_session_kb', absolute);
  row(
    'sessions: RSS retained per session after DELETE (KB)',
    'sessions',
    'retained_after_delete_kb_per_session',
    oneKb,
  );
  row(
    'sessions: RSS retained per session 20 s after DELETE (KB)',
    'sessions',
    'retained_after_idle_kb_per_session',
    absolute,
  );
  row(
    'sessions: heap retained per session after DELETE (KB)',
    'sessions',
    'heap_retained_after_delete_kb_per_session',
    oneKb,
  );
  row(
    'sessions, warmed process (10,000 sessions before): RSS per idle session (KB)',
    'sessions-warm',
    'rss_per_session_kb',
    fiveKb,
  );
  row(
    'sessions, warmed process: RSS retained per session after DELETE (KB)',
    'sessions-warm',
    'retained_after_delete_kb_per_session',
    oneKb,
  );
  /** A row of `ceiling-state` alone, in the ceiling's column: the floor of a server that keeps session state. */
  function stateFloor(label, key, metric, target) {
    if (!runsOf[key]?.some((r) => r.server === 'ceiling-state')) return;
    const m = med(key, 'ceiling-state', metric);
    rows.push({
      cells: [label, cell(m, ''), '–', '–', '–', '–', target, ''],
      missing: m.v === null ? ['ceiling-state'] : [],
      mustMeet: false,
    });
  }
  const floorOf = 'sessions, ceiling keeping each session’s version, capabilities and client info';
  stateFloor(`${floorOf}: heap per idle session after GC (KB)`, 'sessions', 'heap_per_session_kb', '');
  stateFloor(
    `${floorOf}: RSS retained per session after DELETE (KB)`,
    'sessions',
    'retained_after_delete_kb_per_session',
    '(≤ 1 KB)',
  );
  stateFloor(
    `${floorOf}, warmed process: RSS retained per session after DELETE (KB)`,
    'sessions-warm',
    'retained_after_delete_kb_per_session',
    '(≤ 1 KB)',
  );
  row('sessions: opened per second', 'sessions', 'open_per_s', {
    target: '≥ 0.5× ceiling',
    meets: atLeast(0.5),
  });
  row('fanout, 1,000 GET streams: all delivered, median round (ms)', 'fanout', 'all_delivered_median_ms', {
    ...ms,
    target: '≤ 1.5× ceiling',
    meets: (v, c) => c !== null && v / c <= 1.5,
  });
  row('fanout: delivery p50 (ms)', 'fanout', 'delivery_p50_ms', ms);
  // Each payload mode against the ceiling answering the same way.
  const PAYLOAD_MODES = [
    ['SSE', { ceil: 'ceiling-sse', ...SSE }],
    ['JSON', { ceil: 'ceiling-json', ...JSON_ANSWERS }],
  ];
  for (const [mode, servers] of PAYLOAD_MODES) {
    row(`payload 1 MiB, ${mode}: MiB/s (÷ ${mode} ceiling)`, 'payload', 'mib_per_s', {
      ...servers,
      target: '≥ 0.95× ceiling',
      meets: atLeast(0.95),
    });
  }
  for (const [mode, servers] of PAYLOAD_MODES) {
    row(`payload, ${mode}: peak RSS (MiB)`, 'payload', 'rss_hwm_mib', {
      ...servers,
      ...absolute,
      target: '< 300 MB',
      meets: atMost(286),
    });
  }
  for (const [variant, what] of [
    ['burst', 'burst (0 ms apart)'],
    ['paced', 'paced 2 ms, drop while running'],
    ['after', '1 ms, resume after completion'],
  ]) {
    const key = `resume-${variant}`;
    if (!runsOf[key]?.length) continue;
    const of = (s) =>
      `${sum(key, s, 'ok')}/${sum(key, s, 'iterations')}, left open ${sum(key, s, 'streams_left_open')}`;
    const okAll =
      sum(key, 'mcpwire', 'ok') === sum(key, 'mcpwire', 'iterations') &&
      sum(key, 'mcpwire', 'iterations') > 0;
    rows.push({
      cells: [
        `resume, ${what}: correct, streams left open`,
        '–',
        of('sdk'),
        of('mcpwire'),
        '–',
        '–',
        'all correct, none left open',
        okAll && sum(key, 'mcpwire', 'streams_left_open') === 0 ? 'yes' : 'no',
      ],
      missing: ['sdk', 'mcpwire'].filter((s) => sum(key, s, 'iterations') === 0),
      mustMeet: true,
    });
  }
  return rows;
}

/** The table (`title` its heading) in markdown, then the noise of every run and what went wrong in any. */
export function reportText(title, rows, runsOf, noiseLimit) {
  const lines = [
    title,
    '',
    '| scenario | ceiling | official SDK | mcpwire | SDK ÷ ceiling | mcpwire ÷ ceiling | target | met |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.cells.join(' | ')} |`),
    '',
    `Medians over the undisturbed runs (other processes ≤ ${noiseLimit} % of a core) when every server of the scenario has one;`,
    'otherwise over all runs, marked "(noisy)". "server CPU per call" is the least sensitive to neighbours.',
  ];
  lines.push('', '### Noise (other_cpu_pct per run, % of one core) and problems', '');
  for (const [key, runs] of Object.entries(runsOf)) {
    const byServer = {};
    for (const r of runs) {
      byServer[r.server] ??= [];
      byServer[r.server].push(r);
    }
    const noise = Object.entries(byServer).map(
      ([s, rs]) => `${s}: ${rs.map((r) => (r.error ? 'ERR' : (r.other_cpu_pct ?? '-'))).join(', ')}`,
    );
    lines.push(`- ${key}: ${noise.join(' · ')}`);
    for (const r of runs) {
      // A resume that failed is a figure of the table (the SDK's are known), not a fault of the run.
      const bad = [
        ...faults(r),
        ...(r.failures
          ? [
              `resume failures ${JSON.stringify(r.failure_kinds)} ${JSON.stringify(r.failure_samples?.slice(0, 2))}`,
            ]
          : []),
      ];
      if (bad.length) lines.push(`  - ${r.server} rep ${r.rep}: ${bad.join('; ')}`);
    }
  }
  return lines.join('\n');
}
