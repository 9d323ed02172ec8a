import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago: for a child process told which port to listen on, a
 * server restarted on the same port, or a URL where nothing listens.
 *
 * It is taken below the kernel's ephemeral range, where no outgoing connection and no `listen(0)` lands: with
 * the suite's hundreds of loopback connections in flight, a port from inside that range was taken again before
 * redis-server could bind it (CI, "Address already in use"). Only another caller of this function can collide:
 * never one in this process (a port is handed out once), rarely one in another (two random picks out of
 * thousands); a caller that starts a server on it picks again when the bind fails (see launchOnFreePort).
 */
export async function freePort(): Promise<number> {
  const [low, high] = belowEphemeral();
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await bindable(port)) return port;
  }
  return listenOnAny();
}

/** Ports this process was given: a second caller here never gets one that the first has not bound yet. */
const handedOut = new Set<number>();

const FALLBACK_EPHEMERAL_LOW = 32768;

/** [low, high): ports the kernel does not hand out by itself. */
function belowEphemeral(): [number, number] {
  let ephemeralLow = FALLBACK_EPHEMERAL_LOW;
  try {
    const first = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
    );
    if (Number.isInteger(first) && first > 12000) ephemeralLow = first;
  } catch {
    // not Linux: the usual default
  }
  return [10000, ephemeralLow];
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

function listenOnAny(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
