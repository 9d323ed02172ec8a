// The six load scenarios. Each takes parsed options and resolves with one flat result object.

import { closedLoop, MiB } from './closed-loop.mjs';
import { endpoint, McpSession, PROTOCOL_VERSION } from './mcp.mjs';
import { CpuMeter, Errors, pool, readRss, round, sleep, summarize, within } from './stats.mjs';

async function openSessions(ep, n, concurrency, errors) {
  const out = await pool(n, concurrency, async () => {
    const s = new McpSession(ep);
    try {
      await s.initialize();
      return s;
    } catch (e) {
      errors.add('initialize', e.message);
      return null;
    }
  });
  return out.filter(Boolean);
}

async function closeAll(sessions, concurrency) {
  const codes = await pool(sessions.length, concurrency, (i) => sessions[i].close().catch(() => -1));
  return codes.filter((c) => c !== 200 && c !== 204 && c !== 0).length; // failed DELETEs
}

const echoCheck = (text) => (r) => {
  const got = r.response?.result?.content?.[0]?.text;
  return got === text ? null : `bad_result ${JSON.stringify(r.response).slice(0, 120)}`;
};

/** a. S sessions, each initialize once, then tools/call echo back to back. */
export async function calls(o) {
  const ep = endpoint(o.url, o.sessions * o.inflight + 1);
  const errors = new Errors();
  const sessions = await openSessions(ep, o.sessions, o.sessions, errors);
  if (sessions.length === 0) throw new Error(`no session could be opened: ${errors.samples.join('; ')}`);
  const text = 'x'.repeat(o.textBytes);
  const res = await closedLoop(sessions, o, (s) => s.callTool('echo', { text }), echoCheck(text));
  if (errors.count) Object.assign(res, { init_errors: errors.count });
  res.sessions = sessions.length;
  res.inflight_per_session = o.inflight;
  res.session_ids = sessions.every((s) => s.sid) ? 'yes' : 'no';
  await closeAll(sessions, 32);
  await ep.close();
  return res;
}

/** b. No sessions: every POST stands alone (one probe initialize first, to check the server). */
export async function stateless(o) {
  const ep = endpoint(o.url, o.sessions * o.inflight + 1);
  const probe = new McpSession(ep);
  const init = await probe.request('initialize', {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'mcp-bench', version: '0.1.0' },
  });
  if (init.status !== 200 || !init.response?.result)
    throw new Error(`probe initialize failed: HTTP ${init.status}`);
  const version = init.response.result.protocolVersion ?? PROTOCOL_VERSION;
  const clients = Array.from({ length: o.sessions }, () => {
    const c = new McpSession(ep);
    c.assumeStateless(version);
    return c;
  });
  const text = 'x'.repeat(o.textBytes);
  const res = await closedLoop(clients, o, (c) => c.callTool('echo', { text }), echoCheck(text));
  res.clients = o.sessions;
  res.server_sent_session_id = Boolean(init.sessionId);
  await ep.close();
  return res;
}

/** e. Large results: tools/call blob {size} back to back; payload throughput. */
export async function payload(o) {
  const ep = endpoint(o.url, o.sessions * o.inflight + 1);
  const errors = new Errors();
  const sessions = await openSessions(ep, o.sessions, o.sessions, errors);
  if (sessions.length === 0) throw new Error(`no session could be opened: ${errors.samples.join('; ')}`);
  const check = (r) => {
    const len = r.response?.result?.content?.[0]?.text?.length;
    return len === o.size ? null : `bad_size got ${len}`;
  };
  const res = await closedLoop(sessions, o, (s) => s.callTool('blob', { size: o.size }), check);
  res.size_bytes = o.size;
  res.sessions = sessions.length;
  res.mib_per_s = round((res.calls * o.size) / MiB / o.duration, 1);
  await closeAll(sessions, 32);
  await ep.close();
  return res;
}

/** Reads the server's memory; with a gc tool, forces a GC first and reads its heap figure too. */
async function memory(pid, session, gcTool) {
  const raw = readRss(pid);
  if (!gcTool) return { rss_kb: raw.rss_kb, hwm_kb: raw.hwm_kb };
  const r = await session.callTool(gcTool, {});
  let heap;
  try {
    heap = JSON.parse(r.response.result.content[0].text).heapUsed;
  } catch {
    /* no figure */
  }
  await sleep(300);
  return {
    rss_kb: raw.rss_kb,
    hwm_kb: raw.hwm_kb,
    gc_rss_kb: readRss(pid).rss_kb,
    heap_kb: heap ? heap / 1024 : undefined,
  };
}

/** c. Open N idle sessions; server RSS growth per session (and optionally after DELETE). */
export async function sessions(o) {
  if (!o.pid) throw new Error('sessions needs --pid of the server (its RSS is read from /proc)');
  const ep = endpoint(o.url, o.concurrency + 1);
  const errors = new Errors();
  // Warm-up sessions: JIT and the server's maps warm, not counted; warm[0] also drives the gc tool.
  const warm = await openSessions(ep, o.warmSessions, o.concurrency, errors);
  if (warm.length === 0) throw new Error(`no session could be opened: ${errors.samples.join('; ')}`);
  await sleep(o.settle * 1000);
  const before = await memory(o.pid, warm[0], o.gcTool);
  const meter = new CpuMeter(o.pid);
  meter.start();
  const t0 = performance.now();
  const opened = await openSessions(ep, o.count, o.concurrency, errors);
  const openS = (performance.now() - t0) / 1000;
  const cpu = meter.stop();
  await sleep(o.settle * 1000);
  const after = await memory(o.pid, warm[0], o.gcTool);
  const n = opened.length;
  const per = (a, b) => (a === undefined || b === undefined ? undefined : round((b - a) / n, 2));
  const res = {
    opened: n,
    open_s: round(openS, 2),
    open_per_s: round(n / openS),
    rss_before_mib: round(before.rss_kb / 1024),
    rss_after_mib: round(after.rss_kb / 1024),
    rss_per_session_kb: per(before.rss_kb, after.rss_kb),
    gc_rss_per_session_kb: per(before.gc_rss_kb, after.gc_rss_kb),
    heap_per_session_kb: per(before.heap_kb, after.heap_kb),
    server_cpu_ms_per_open:
      cpu.server_cpu_pct === undefined ? undefined : round((cpu.server_cpu_pct * 10 * openS) / n, 3),
    ...cpu,
    ...errors.toJSON(),
  };
  if (o.delete) {
    const t1 = performance.now();
    res.delete_failures = await closeAll(opened, o.concurrency);
    res.delete_s = round((performance.now() - t1) / 1000, 2);
    await sleep(o.settle * 1000);
    const gone = await memory(o.pid, warm[0], o.gcTool);
    res.rss_after_delete_mib = round(gone.rss_kb / 1024);
    res.retained_after_delete_kb_per_session = per(
      before.gc_rss_kb ?? before.rss_kb,
      gone.gc_rss_kb ?? gone.rss_kb,
    );
    if (gone.heap_kb !== undefined)
      res.heap_retained_after_delete_kb_per_session = per(before.heap_kb, gone.heap_kb);
    if (o.idleAfterDelete > 0) {
      // V8 gives back the young generation it grew, and compacts old space, only once the process has been
      // idle for a while (its memory reducer): what is still held then is what the server really keeps.
      await sleep(o.idleAfterDelete * 1000);
      const idle = await memory(o.pid, warm[0], o.gcTool);
      res.retained_after_idle_kb_per_session = per(
        before.gc_rss_kb ?? before.rss_kb,
        idle.gc_rss_kb ?? idle.rss_kb,
      );
    }
  }
  res.hwm_mib = round(readRss(o.pid).hwm_kb / 1024);
  await closeAll(warm, o.concurrency);
  if (!o.delete) await closeAll(opened, o.concurrency);
  await ep.close();
  return res;
}

/** d. N sessions with a standalone GET stream; one broadcast; time until every stream has it. */
export async function fanout(o) {
  const n = o.count;
  const ep = endpoint(o.url, n + o.concurrency + 2);
  const errors = new Errors();
  const sessions = await openSessions(ep, n, o.concurrency, errors);
  let nonce = null;
  let got = new Float64Array(sessions.length);
  let received = 0;
  let expected = 0;
  let allIn = () => {};
  const streams = sessions.map((s, i) =>
    s.openStream({
      onEvent: (ev) => {
        if (nonce !== null && got[i] === 0 && ev.data?.includes(nonce)) {
          got[i] = performance.now();
          if (++received === expected) allIn();
        }
      },
    }),
  );
  const heads = await within(Promise.all(streams.map((st) => st.ready)), o.timeout * 1000);
  if (!heads) throw new Error(`standalone GET streams did not all answer with headers within ${o.timeout}s`);
  const live = heads.map((h) => h.status === 200);
  heads.forEach((h) => {
    if (h.status !== 200) errors.add(`stream_http_${h.status}`, h.error?.message ?? '');
  });
  expected = live.filter(Boolean).length;
  if (expected === 0) throw new Error(`no standalone stream opened: ${errors.samples.join('; ')}`);
  await sleep(300);
  const meter = new CpuMeter(o.pid);
  meter.start();
  const all = [];
  const roundMax = [];
  const callMs = [];
  let missing = 0;
  for (let r = 0; r < o.warmupRounds + o.rounds; r++) {
    const counted = r >= o.warmupRounds; // the first round(s) warm the JIT on both sides
    got = new Float64Array(sessions.length);
    received = 0;
    const allReceived = new Promise((res) => {
      allIn = res;
    });
    nonce = `bcast-${r}-${Math.random().toString(36).slice(2)}`;
    const t0 = performance.now();
    const call = sessions[0].callTool('broadcast', { nonce }).then(
      (c) => {
        if (counted) callMs.push(performance.now() - t0);
        if (c.status !== 200 || c.response?.error) errors.add('broadcast_call', JSON.stringify(c.response));
      },
      (e) => errors.add('broadcast_call', e.message),
    );
    await within(allReceived, o.timeout * 1000);
    await within(call, o.timeout * 1000);
    const lat = [];
    got.forEach((t, i) => {
      if (live[i] && t > 0) lat.push(t - t0);
    });
    nonce = null;
    if (!counted) {
      await sleep(200);
      continue;
    }
    missing += expected - lat.length;
    all.push(...lat);
    roundMax.push(lat.length ? Math.max(...lat) : NaN);
    await sleep(200);
  }
  const cpu = meter.stop();
  for (const st of streams) st.abort();
  await Promise.allSettled(streams.map((st) => st.done));
  const failedDeletes = await closeAll(sessions, o.concurrency);
  await ep.close();
  const sortedMax = roundMax.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  return {
    streams: expected,
    rounds: o.rounds,
    delivered: all.length,
    missing,
    ...summarize(all, 'delivery_'),
    all_delivered_median_ms: round(sortedMax[Math.floor(sortedMax.length / 2)] ?? NaN, 2),
    broadcast_call_median_ms: round(callMs.sort((a, b) => a - b)[Math.floor(callMs.length / 2)] ?? NaN, 2),
    failed_deletes: failedDeletes,
    ...errors.toJSON(),
    ...cpu,
  };
}

/**
 * f. Resumability: tools/call progress {count K} streams K progress notifications then its result
 * on the POST's SSE stream. The harness drops the connection after `dropAfter` notifications,
 * resumes with GET + Last-Event-ID, and checks every notification arrives exactly once, in order,
 * followed by exactly one result.
 */
export async function resume(o) {
  const ep = endpoint(o.url, 4);
  const s = new McpSession(ep);
  await s.initialize();
  const fails = new Errors();
  const replayMs = [];
  const firstMs = [];
  let ok = 0;
  let leftOpen = 0;
  let replayedEvents = 0;
  for (let it = 0; it < o.iterations; it++) {
    const token = `resume-${it}-${Math.random().toString(36).slice(2, 8)}`;
    const reqId = s.nextId; // the id callTool will use
    const seen = [];
    let results = 0;
    let lastId;
    let ctl;
    let conn = 1; // which connection is live: 1 = the POST, 2 = the resume GET, 0 = none
    let onResult = () => {};
    const resultIn = new Promise((r) => {
      onResult = r;
    });
    let tFirst = 0;
    const handler = (which) => ({
      onEvent: (ev) => {
        if (conn === which) lastId = ev.id;
      },
      onMessage: (m) => {
        if (conn !== which) return;
        if (which === 2) {
          replayedEvents++;
          tFirst ||= performance.now();
        }
        if (m.method === 'notifications/progress' && m.params?.progressToken === token) {
          seen.push(m.params.progress);
          if (which === 1 && seen.length >= o.dropAfter) {
            conn = 0;
            ctl?.abort(new Error('dropped by harness'));
          }
        } else if (m.id === reqId && (m.result !== undefined || m.error !== undefined)) {
          results++;
          onResult();
        }
      },
    });
    const first = await s
      .callTool(
        'progress',
        { count: o.count, intervalMs: o.intervalMs },
        {
          meta: { progressToken: token },
          onController: (c) => {
            ctl = c;
          },
          ...handler(1),
        },
      )
      .then(
        (r) => r,
        (e) => ({ error: e }),
      );
    if (conn === 1) {
      fails.add(
        first.error ? 'post_failed' : first.transport !== 'sse' ? 'not_sse' : 'ended_before_drop',
        first.error?.message ?? `transport=${first.transport} status=${first.status} events=${seen.length}`,
      );
      continue;
    }
    if (lastId === undefined) {
      fails.add('no_event_ids', 'no id: field before the drop');
      continue;
    }
    await sleep(o.reconnectDelayMs);
    conn = 2;
    const t0 = performance.now();
    const st = s.openStream({ lastEventId: lastId, ...handler(2) });
    const head = await within(st.ready, o.timeout * 1000);
    if (head?.status !== 200) {
      fails.add(`resume_http_${head?.status ?? 'timeout'}`, head?.error?.message ?? '');
      st.abort();
      await st.done.catch(() => {});
      continue;
    }
    await within(resultIn, o.timeout * 1000);
    const tResult = performance.now();
    // The server should end the stream after the result; give it a moment, watching for duplicates.
    const closed = await within(
      st.done.then(
        () => true,
        () => true,
      ),
      1000,
    );
    if (!closed) st.abort();
    await st.done.catch(() => {});
    conn = 0;
    const expect = Array.from({ length: o.count }, (_, i) => i + 1);
    const uniq = new Set(seen);
    const problems = [];
    if (results === 0) problems.push('no_result');
    if (results > 1) problems.push('duplicate_result');
    if (uniq.size < o.count) problems.push('missing');
    if (uniq.size !== seen.length) problems.push('duplicates');
    if (!seen.every((v, i) => i === 0 || v > seen[i - 1])) problems.push('out_of_order');
    if (problems.length === 0 && seen.join() !== expect.join()) problems.push('wrong_values');
    if (problems.length) {
      fails.add(
        problems.join('+'),
        `got ${seen.length} (${seen.slice(0, 12).join(',')}${seen.length > 12 ? ',..' : ''}) result x${results}`,
      );
    } else {
      ok++;
      replayMs.push(tResult - t0);
      if (tFirst) firstMs.push(tFirst - t0);
    }
    if (!closed) leftOpen++;
  }
  await s.close().catch(() => {});
  await ep.close();
  return {
    iterations: o.iterations,
    ok,
    ok_pct: round((100 * ok) / o.iterations),
    notifications: o.count,
    drop_after: o.dropAfter,
    interval_ms: o.intervalMs,
    ...summarize(replayMs, 'replay_'),
    first_replayed_p50_ms: summarize(firstMs).p50_ms,
    replayed_events_per_resume: round(replayedEvents / Math.max(1, o.iterations), 1),
    // resumed streams the server did not end within 1 s of sending the result (the harness closed them)
    streams_left_open: leftOpen,
    failures: fails.count,
    ...(fails.count ? { failure_kinds: fails.kinds, failure_samples: fails.samples } : {}),
  };
}
