// Preload for the bench server (node --import ./bench/alloc-sampler.mjs bench/server.mjs ...): samples
// allocations, including objects the GC has already collected, so the profile says who makes the
// garbage (plain `--heap-prof` keeps only what is still alive). On SIGUSR2 it writes ALLOC_PROFILE
// (default ./alloc.heapprofile; open it in Chrome DevTools, Memory tab). It slows the server down a lot:
// use it for where the bytes come from, never for speed.
import { writeFileSync } from 'node:fs';
import inspector from 'node:inspector';

const session = new inspector.Session();
session.connect();
session.post(
  'HeapProfiler.startSampling',
  { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true },
  (err) => {
    if (err) console.error('alloc sampler:', err.message);
  },
);
process.on('SIGUSR2', () => {
  session.post('HeapProfiler.stopSampling', (err, r) => {
    if (err) return console.error('alloc sampler:', err.message);
    const file = process.env.ALLOC_PROFILE ?? 'alloc.heapprofile';
    writeFileSync(file, JSON.stringify(r.profile));
    console.log(`alloc sampler: wrote ${file}`);
  });
});
