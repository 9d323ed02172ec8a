import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClientContext } from '../client/client-session.js';
import type { ElicitRequestFormParams, ElicitRequestURLParams } from '../protocol/types.js';
import { scriptedTerminal } from '../test-support/scripted-terminal.js';
import { cliElicitation, type ElicitReply } from './call-elicitation.js';
import { cliSampling } from './call-sampling.js';
import { ProgressBar } from './progress-bar.js';
import { conversations, type Terminal } from './terminal.js';

const ctx = { signal: new AbortController().signal } as ClientContext;
const form: ElicitRequestFormParams = {
  message: 'Who are you?',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Name', minLength: 1 },
      age: { type: 'integer', minimum: 0 },
      size: { type: 'string', enum: ['s', 'm', 'l'], default: 'm' },
    },
    required: ['name', 'size'],
  },
};
const url: ElicitRequestURLParams = {
  mode: 'url',
  message: 'Sign in',
  elicitationId: 'e1',
  url: 'https://auth.example.com/login?x=1',
};

function handlers(reply: ElicitReply | undefined, tty: Terminal) {
  const notes: string[] = [];
  const converse = conversations(tty, new ProgressBar(tty.output));
  const h = cliElicitation(reply, tty, converse, (line) => notes.push(line));
  return { ...h, converse, notes };
}

test('--elicit-reply answers every form and URL with its action, and says so on stderr', async () => {
  const accept = handlers({ action: 'accept', content: { name: 'Ada' } }, scriptedTerminal(false));
  assert.deepEqual(await accept.form(form, ctx), { action: 'accept', content: { name: 'Ada' } });
  // A URL is never opened; accepting it says which, so that the person can.
  assert.deepEqual(await accept.url(url, ctx), { action: 'accept' });
  assert.match(accept.notes.join(''), /asks for input: "Who are you\?"; --elicit-reply answered accept/);
  assert.match(accept.notes.join(''), /open https:\/\/auth\.example\.com\/login\?x=1 \("Sign in"\)/);

  const bare = handlers({ action: 'accept' }, scriptedTerminal(false));
  assert.deepEqual(await bare.form(form, ctx), { action: 'accept', content: {} });
  for (const action of ['decline', 'cancel'] as const) {
    const h = handlers({ action }, scriptedTerminal(false));
    assert.deepEqual(await h.form(form, ctx), { action });
    assert.deepEqual(await h.url(url, ctx), { action });
  }
});

test('with no terminal and no --elicit-reply it cancels and says how to answer instead', async () => {
  const h = handlers(undefined, scriptedTerminal(false));
  assert.deepEqual(await h.form(form, ctx), { action: 'cancel' });
  assert.deepEqual(await h.url(url, ctx), { action: 'cancel' });
  assert.match(h.notes[0], /no terminal to ask on and no --elicit-reply: answered cancel/);
});

test('on a terminal a form is filled in field by field; a wrong answer is asked again', async () => {
  // Enter accepts the form; the name is required, so the empty answer is refused; the age is not a
  // number at first; Enter takes the default size (left out: the client fills in defaults).
  const tty = scriptedTerminal(true, ['', '', 'Ada', 'old', '36', '']);
  const h = handlers(undefined, tty);
  assert.deepEqual(await h.form(form, ctx), { action: 'accept', content: { name: 'Ada', age: 36 } });
  const shown = tty.shown();
  assert.match(shown, /The server asks for input \(elicitation\): Who are you\?\n/);
  assert.match(shown, /this one is required; try again/);
  assert.match(shown, /"old" is not a number; try again/);
  assert.match(
    shown,
    /size\n {4}1\) s\n {4}2\) m\n {4}3\) l\n {2}\[a number or a value above; Enter for m\]: /,
  );
});

test('on a terminal a form can be declined or cancelled before any field', async () => {
  for (const [typed, action] of [
    ['d', 'decline'],
    ['cancel', 'cancel'],
  ] as const) {
    const tty = scriptedTerminal(true, [typed]);
    assert.deepEqual(await handlers(undefined, tty).form(form, ctx), { action });
    assert.doesNotMatch(tty.shown(), /Name/);
  }
});

test('on a terminal a URL is shown whole and the person says whether they will open it', async () => {
  const tty = scriptedTerminal(true, ['maybe', 'y']);
  assert.deepEqual(await handlers(undefined, tty).url(url, ctx), { action: 'accept' });
  assert.match(tty.shown(), /Sign in\n {2}https:\/\/auth\.example\.com\/login\?x=1\n/);
  const declined = scriptedTerminal(true, ['no']);
  assert.deepEqual(await handlers(undefined, declined).url(url, ctx), { action: 'decline' });
});

test('a sampling request and a form asked at once are asked one after the other', async () => {
  const tty = scriptedTerminal(true, ['Hello!', '', 'Ada', '', '']);
  const h = handlers(undefined, tty);
  const sampling = cliSampling(undefined, tty, h.converse);
  const reply = sampling(
    { messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 5 },
    ctx,
  );
  const filled = h.form(form, ctx);
  const [sampled, elicited] = await Promise.all([reply, filled]);
  assert.deepEqual(sampled.content, { type: 'text', text: 'Hello!' });
  assert.deepEqual(elicited, { action: 'accept', content: { name: 'Ada' } });
  const shown = tty.shown();
  assert.ok(shown.indexOf('Reply (an empty line declines)') < shown.indexOf('Who are you?'), shown);
});
