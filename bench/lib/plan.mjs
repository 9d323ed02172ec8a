// What `npm run bench` runs: for each scenario, the compare.mjs invocations (bench.mjs arguments and servers), at
// one of three lengths.
import { fileURLToPath } from 'node:url';

export const SCENARIOS = ['calls', 'stateless', 'modern', 'sessions', 'fanout', 'payload', 'resume'];

/**
 * The lengths of a run: `full` for the figures, `quick` for a first look (short, one repetition), `smoke` only to
 * see every scenario run and every figure of the table filled (the shortest of all; its figures mean nothing).
 */
export const LENGTHS = {
  full: {
    reps: 3,
    retryNoisy: 1,
    timed: ['--duration', '10', '--warmup', '2'],
    sessions: '10000',
    warmSessions: '10000',
    settle: '2',
    idleAfterDelete: '20',
    fanoutStreams: '1000',
    fanoutRounds: '10',
    resumeIterations: '20',
  },
  quick: {
    reps: 1,
    retryNoisy: 0,
    timed: ['--duration', '2', '--warmup', '1'],
    sessions: '2000',
    warmSessions: '10000',
    settle: '1',
    idleAfterDelete: '20',
    fanoutStreams: '1000',
    fanoutRounds: '3',
    resumeIterations: '5',
  },
  smoke: {
    reps: 1,
    retryNoisy: 0,
    timed: ['--duration', '1', '--warmup', '0'],
    sessions: '200',
    warmSessions: '200',
    settle: '0',
    idleAfterDelete: '1',
    fanoutStreams: '50',
    fanoutRounds: '1',
    resumeIterations: '2',
  },
};

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

/** The name of a compare.mjs `--server NAME=COMMAND`. */
export const serverName = (server) => server.slice(0, server.indexOf('='));

/**
 * Every scenario's compare.mjs invocations, mcpwire served from the build `lib`: for each scenario a list of
 * `{ key, scenario, args, servers }` (the key names the runs' file and the table's rows).
 */
export function planOf(lib, length) {
  const n = LENGTHS[length];
  const q = (p) => `'${p}'`;
  const node = (gc) => `${q(process.execPath)}${gc ? ' --expose-gc' : ''}`;
  const ceiling = (name, gc, flags = '') =>
    `${name}=${node(gc)} ${q(here('../ceiling.mjs'))} --port {port}${flags}`;
  const ours = (name, gc, flags = '') =>
    `${name}=${node(gc)} ${q(here('../server.mjs'))} --port {port} --lib ${q(lib)}${flags}`;
  const sdk = (name, gc, flags = '') =>
    `${name}=${node(gc)} ${q(here('../baselines/sdk-server.mjs'))} --port {port}${flags}`;
  const sdkV2 = (name, flags = '') =>
    `${name}=${node(false)} ${q(here('../baselines/sdk-v2-server.mjs'))} --port {port}${flags}`;

  // idle sessions opened, then DELETEd, each reading after a forced GC
  const sessionsArgs = [
    '--count',
    n.sessions,
    '--concurrency',
    '32',
    '--gc-tool',
    'gc',
    '--delete',
    '--settle',
    n.settle,
  ];
  // ceiling-state keeps what MCP requires a server to remember per session (the negotiated version, the client's
  // capabilities and info): the least any stateful server can hold, beside the ceiling that holds nothing.
  const withGc = [
    ceiling('ceiling', true),
    ceiling('ceiling-state', true, ' --state'),
    ours('mcpwire', true),
    sdk('sdk', true),
  ];
  return {
    calls: [
      {
        key: 'calls',
        scenario: 'calls',
        args: [...n.timed, '--sessions', '32'],
        servers: [
          ceiling('ceiling', false),
          ours('mcpwire-sse', false),
          ours('mcpwire-json', false, ' --json'),
          sdk('sdk-sse', false),
          sdk('sdk-json', false, ' --json'),
        ],
      },
    ],
    stateless: [
      {
        key: 'stateless',
        scenario: 'stateless',
        args: [...n.timed, '--sessions', '32'],
        servers: [
          ceiling('ceiling', false),
          ours('mcpwire', false, ' --stateless'),
          sdk('sdk', false, ' --mode stateless'),
        ],
      },
    ],
    // 2026-07-28 requests, no session: the ceiling answering that shape, mcpwire's dual-era handler as
    // `mcpwire serve` runs it, and the SDK v2's default entry (createMcpHandler)
    modern: [
      {
        key: 'modern',
        scenario: 'modern',
        args: [...n.timed, '--sessions', '32'],
        servers: [
          ceiling('ceiling', false, ' --modern'),
          ours('mcpwire', false),
          sdkV2('sdk-v2', ' --stateless'),
        ],
      },
    ],
    sessions: [
      {
        key: 'sessions',
        scenario: 'sessions',
        args: [...sessionsArgs, '--idle-after-delete', n.idleAfterDelete],
        servers: withGc,
      },
      {
        // The same in a process that has held 10,000 sessions already, as a server in service has: V8's young
        // generation has grown to its size under load, so what is measured is what sessions themselves cost.
        key: 'sessions-warm',
        scenario: 'sessions',
        args: [...sessionsArgs, '--warm-sessions', n.warmSessions],
        servers: withGc,
      },
    ],
    fanout: [
      {
        key: 'fanout',
        scenario: 'fanout',
        args: [
          '--count',
          n.fanoutStreams,
          '--rounds',
          n.fanoutRounds,
          '--warmup-rounds',
          '1',
          '--concurrency',
          '32',
        ],
        servers: [ceiling('ceiling', false), ours('mcpwire', false), sdk('sdk', false)],
      },
    ],
    payload: [
      {
        key: 'payload',
        scenario: 'payload',
        args: [...n.timed, '--sessions', '4', '--size', '1048576'],
        servers: [
          ceiling('ceiling-json', false),
          ceiling('ceiling-sse', false, ' --sse'),
          ours('mcpwire-sse', false),
          ours('mcpwire-json', false, ' --json'),
          sdk('sdk-sse', false),
          sdk('sdk-json', false, ' --json'),
        ],
      },
    ],
    resume: [
      ['burst', ['--interval-ms', '0']],
      ['paced', ['--interval-ms', '2']],
      ['after', ['--interval-ms', '1', '--reconnect-delay-ms', '300']],
    ].map(([variant, v]) => ({
      key: `resume-${variant}`,
      scenario: 'resume',
      args: ['--count', '50', '--drop-after', '5', '--iterations', n.resumeIterations, ...v],
      servers: [ours('mcpwire', false), sdk('sdk', false, ' --event-store')],
    })),
  };
}
