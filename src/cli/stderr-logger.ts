import type { EventLogger } from '../telemetry/log-sink.js';

/** How `mcpwire serve --log-format` writes events: one JSON object per line, or one line of text. */
export type LogFormat = 'json' | 'text';

export const LOG_FORMATS: readonly LogFormat[] = ['json', 'text'];

type Level = 'info' | 'warn' | 'error';

/**
 * A logger writing each event as one line to `write` (stderr): `json`, `{"time","level","msg",…fields}` as pino
 * writes them, for a log collector; `text`, `time level message key=value…`, for a person.
 */
export function stderrLogger(
  format: LogFormat,
  write: (line: string) => void = (line) => process.stderr.write(line),
): EventLogger {
  const line =
    format === 'json'
      ? (level: Level, fields: Record<string, unknown>, msg: string) =>
          `${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`
      : (level: Level, fields: Record<string, unknown>, msg: string) => {
          let text = `${new Date().toISOString()} ${level.padEnd(5)} ${msg}`;
          for (const [key, value] of Object.entries(fields)) {
            if (value !== undefined && key !== 'event')
              text += ` ${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`;
          }
          return `${text}\n`;
        };
  return {
    info: (fields, msg) => write(line('info', fields, msg)),
    warn: (fields, msg) => write(line('warn', fields, msg)),
    error: (fields, msg) => write(line('error', fields, msg)),
  };
}
