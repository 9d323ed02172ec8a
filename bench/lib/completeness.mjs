// Whether a run of `npm run bench` is whole: every server of every planned scenario ran to its end without a
// fault, and every figure of the table is there. Never a speed: a slow run on a busy machine is whole.
import { serverName } from './plan.mjs';

/** What went wrong in one run of one server (a compare.mjs JSON line), one sentence a fault; none if it worked. */
export function faults(r) {
  const out = [];
  if (r.error) out.push(`error: ${r.error}`);
  if (r.errors)
    out.push(
      `${r.errors} failed calls ${JSON.stringify(r.error_kinds)} ${JSON.stringify(r.error_samples?.slice(0, 2))}`,
    );
  if (r.init_errors) out.push(`${r.init_errors} sessions could not be opened`);
  if (r.stuck_calls) out.push('calls still unanswered 15 s after the end of the run');
  if (r.server_log_error_lines) out.push(`${r.server_log_error_lines} error lines in ${r.server_log}`);
  if (r.missing) out.push(`${r.missing} fan-out deliveries missing`);
  const failedDeletes = (r.delete_failures ?? 0) + (r.failed_deletes ?? 0);
  if (failedDeletes) out.push(`${failedDeletes} failed DELETEs`);
  return out;
}

/**
 * Why a run of `entries` (the plan's compare.mjs invocations) is not whole, given their runs by key and the table
 * made of them (report.mjs's rows); empty when it is: each server of each entry has a run, no run has a fault,
 * no row lacks a figure, and every target of correctness is met.
 */
export function incompleteness(entries, runsOf, rows) {
  const out = [];
  for (const entry of entries) {
    const runs = runsOf[entry.key] ?? [];
    for (const name of entry.servers.map(serverName))
      if (!runs.some((r) => r.server === name)) out.push(`${entry.key}: no run of ${name}`);
    for (const r of runs) for (const f of faults(r)) out.push(`${entry.key}: ${r.server} rep ${r.rep}: ${f}`);
  }
  for (const { cells, missing, mustMeet } of rows) {
    if (missing.length) out.push(`"${cells[0]}": no figure for ${missing.join(', ')}`);
    if (mustMeet && cells[7] !== 'yes') out.push(`"${cells[0]}": mcpwire does not meet "${cells[6]}"`);
  }
  return out;
}
