import type { Interface } from 'node:readline/promises';
import type { FormElicitationHandler, UrlElicitationHandler } from '../client/client.js';
import type { ElicitRequestFormParams, ElicitResult } from '../protocol/types.js';
import { type FieldValue, fieldQuestion, parseField } from './form-field.js';
import { type Converse, canAsk, type Terminal } from './terminal.js';

/** The answer `--elicit-reply` gives every elicitation: accept (with a form's values), decline or cancel. */
export type ElicitReply =
  | { action: 'accept'; content?: Record<string, FieldValue> }
  | { action: 'decline' | 'cancel' };

type Action = ElicitResult['action'];

/**
 * How `mcpwire call` answers `elicitation/create`, in form and URL mode: with `reply` when given;
 * else by asking the person at the terminal (for a form, field by field, each answer checked against
 * its schema and asked again until it fits; for a URL, whether they will open it: it is shown whole and
 * never opened by mcpwire); else, with no one to ask, with `cancel`. `note` prints a line on stderr: what
 * was answered without asking, and every URL.
 */
export function cliElicitation(
  reply: ElicitReply | undefined,
  terminal: Terminal,
  converse: Converse,
  note: (line: string) => void,
): { form: FormElicitationHandler; url: UrlElicitationHandler } {
  const unasked = (what: string): ElicitReply | undefined => {
    if (reply !== undefined) {
      note(`mcpwire: ${what}; --elicit-reply answered ${reply.action}\n`);
      return reply;
    }
    if (canAsk(terminal)) return undefined;
    note(`mcpwire: ${what}, but there is no terminal to ask on and no --elicit-reply: answered cancel\n`);
    return { action: 'cancel' };
  };
  return {
    form: (params, ctx) => {
      const answered = unasked(`the server asks for input: ${JSON.stringify(params.message)}`);
      if (answered === undefined) return converse((rl) => fillIn(params, terminal, rl, ctx.signal));
      return answered.action === 'accept'
        ? { action: 'accept', content: answered.content ?? {} }
        : { action: answered.action };
    },
    url: (params, ctx) => {
      const what = `the server asks you to open ${params.url} (${JSON.stringify(params.message)})`;
      const answered = unasked(what);
      if (answered !== undefined) return { action: answered.action };
      return converse(async (rl) => {
        terminal.output.write(
          `The server asks you to open a URL (elicitation): ${params.message}\n  ${params.url}\n`,
        );
        return {
          action: await decide(rl, 'Will you open it yourself? [Y]es, [d]ecline, [c]ancel: ', ctx.signal),
        };
      });
    },
  };
}

async function fillIn(
  params: ElicitRequestFormParams,
  terminal: Terminal,
  rl: Interface,
  signal: AbortSignal,
): Promise<ElicitResult> {
  terminal.output.write(`The server asks for input (elicitation): ${params.message}\n`);
  const action = await decide(rl, 'Fill in the form? [Y]es, [d]ecline, [c]ancel: ', signal);
  if (action !== 'accept') return { action };
  const schema = params.requestedSchema;
  const required = new Set(schema.required ?? []);
  const content: Record<string, FieldValue> = {};
  for (const [key, field] of Object.entries(schema.properties)) {
    const question = fieldQuestion(key, field, required.has(key));
    for (;;) {
      const typed = await rl.question(question, { signal });
      // Enter leaves the field out: the client fills in its default, if it has one.
      if (typed.trim() === '' && (field.default !== undefined || !required.has(key))) break;
      const parsed = typed.trim() === '' ? { problem: 'this one is required' } : parseField(field, typed);
      if ('value' in parsed) {
        content[key] = parsed.value;
        break;
      }
      terminal.output.write(`  ${parsed.problem}; try again\n`);
    }
  }
  return { action: 'accept', content };
}

/** Asks whether to go on: Enter or yes accepts; no or decline declines; cancel cancels. */
async function decide(rl: Interface, question: string, signal: AbortSignal): Promise<Action> {
  for (;;) {
    const word = (await rl.question(question, { signal })).trim().toLowerCase();
    if (['', 'y', 'yes', 'a', 'accept'].includes(word)) return 'accept';
    if (['n', 'no', 'd', 'decline'].includes(word)) return 'decline';
    if (['c', 'cancel'].includes(word)) return 'cancel';
  }
}
