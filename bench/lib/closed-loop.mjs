// The closed loop every throughput scenario runs: callers back to back, latency, errors and CPU over a window.
import { Errors, meteredWindow, readRss, round, sleep, summarize, within } from './stats.mjs';

export const MiB = 1024 * 1024;

/**
 * Closed loop: clients × inflight callers each issue one call at a time, back to back, for
 * warmup+duration seconds. Only calls that start after the warmup and finish before the end count.
 * CPU is metered over the counted window.
 */
export async function closedLoop(clients, o, call, check) {
  const errors = new Errors();
  const lat = [];
  let done = 0;
  let bytes = 0;
  const transports = new Set();
  const window = meteredWindow(o.pid, o.warmup, o.duration);
  const { tMeasure, tEnd } = window;
  const rss0 = o.pid ? readRss(o.pid).rss_kb : undefined;
  const worker = async (c) => {
    for (;;) {
      const start = performance.now();
      if (start >= tEnd) return;
      try {
        const r = await call(c);
        const end = performance.now();
        transports.add(r.transport);
        if (r.status !== 200) {
          errors.add(`http_${r.status}`, JSON.stringify(r.response ?? ''));
          await sleep(10);
          continue;
        }
        const bad = r.response?.error ? `rpc_error ${JSON.stringify(r.response.error)}` : check(r);
        if (bad) {
          errors.add(bad.split(' ')[0], bad);
          continue;
        }
        if (start >= tMeasure && end <= tEnd) {
          lat.push((r.tResponse || end) - start);
          done++;
          bytes += r.bytes;
        }
      } catch (e) {
        errors.add('network', e.message);
        await sleep(10);
      }
    }
  };
  // `inflight` concurrent callers share each client (parallel tool calls within one session)
  const all = Promise.all(
    Array.from({ length: clients.length * (o.inflight ?? 1) }, (_, i) => worker(clients[i % clients.length])),
  );
  await sleep(tEnd - performance.now());
  const drained = await within(
    all.then(() => true),
    15_000,
  );
  const cpu = window.cpu();
  return {
    calls: done,
    calls_per_s: round(done / o.duration),
    ...summarize(lat),
    wire_mib_per_s: round(bytes / MiB / o.duration, 2),
    transport: [...transports].join('+'),
    ...(drained ? {} : { stuck_calls: true }),
    ...errors.toJSON(),
    ...cpu,
    // server RSS before the load and after it (growth under steady load hints at a leak), and its peak
    ...(o.pid ? rssFigures(rss0, readRss(o.pid)) : {}),
  };
}

const rssFigures = (rss0, now) => ({
  rss_start_mib: round(rss0 / 1024),
  rss_end_mib: round(now.rss_kb / 1024),
  rss_hwm_mib: round(now.hwm_kb / 1024),
});
