import type { EraVerdict } from '../session-era.js';

/** How many servers a process remembers the era of; past it, the one remembered longest ago goes. */
const MAX_VERDICTS = 1000;

/**
 * Which era each server spoke when this process last connected to it, by a key naming the server (a URL,
 * a command line): what lets a later connect skip the probe. Bounded, so a process that connects to ever
 * new servers does not grow without end.
 */
export class VerdictCache {
  private readonly verdicts = new Map<string, EraVerdict>();

  get(key: string): EraVerdict | undefined {
    return this.verdicts.get(key);
  }

  set(key: string, verdict: EraVerdict): void {
    this.verdicts.delete(key);
    this.verdicts.set(key, verdict);
    if (this.verdicts.size > MAX_VERDICTS) this.verdicts.delete(this.verdicts.keys().next().value as string);
  }

  delete(key: string): void {
    this.verdicts.delete(key);
  }
}
