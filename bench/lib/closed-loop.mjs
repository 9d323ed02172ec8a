// The closed loop every throughput scenario runs: callers back to back, latency, errors and CPU over a window.
import { CpuMeter, Errors, readRss, round, sleep, summarize, within } from './stats.mjs';

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
  const t0 = performance.now();
  const tMeasure = t0 + o.warmup * 1000;
  const tEnd = tMeasure + o.duration * 1000;
  const meter = new CpuMeter(o.pid);
  const rss0 = o.pid ? readRss(o.pid).rss_kb : undefined;
  let cpu;
  const timers = [
    setTimeout(() => meter.start(), tMeasure - t0),
    setTimeout(() => {
      cpu = meter.stop();
    }, tEnd - t0),
  ];
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
  await sleep(tEnd - t0);
  const drained = await within(
    all.then(() => true),
    15_000,
  );
  timers.forEach(clearTimeout);
  cpu ??= meter.stop();
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
