// A prompt's arguments, typed and checked: from the list it declares inline (names and `required` type the
// handler's arguments and the completers' names) or from a Standard Schema (zod, valibot, arktype), whose JSON
// Schema publishes them and whose output the handler gets. The `@ts-expect-error` lines are proven by
// `npm run typecheck`: each must be an error, or the directive itself is one.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';
import { ErrorCode } from '../jsonrpc/errors.js';
import type { GetPromptResult } from '../protocol/types.js';
import { FakeClient } from '../test-support/fake-client.js';
import { Server } from './server.js';

const said = (text: string): GetPromptResult => ({
  messages: [{ role: 'user', content: { type: 'text', text } }],
});

async function connected(server: Server) {
  const client = new FakeClient(server);
  await client.initialize();
  return client;
}

describe('a prompt whose arguments are listed inline', () => {
  test('the handler gets them by name: required ones as strings, others possibly undefined', async () => {
    const server = new Server({ name: 's', version: '1' });
    server.prompt(
      {
        name: 'greet',
        arguments: [{ name: 'name', required: true }, { name: 'style' }],
        complete: {
          style: (value, context) => {
            const chosen: string | undefined = context.arguments.name;
            // @ts-expect-error: the completer's context names the prompt's arguments only
            void context.arguments.nmae;
            return ['formal', 'casual'].filter((s) => s.startsWith(value) && chosen !== undefined);
          },
        },
      },
      (args) => {
        const name: string = args.name;
        // @ts-expect-error: an optional argument may be undefined
        const style: string = args.style;
        // @ts-expect-error: a misspelt argument does not compile
        void args.nmae;
        return said(`${name} ${style ?? 'plain'}`);
      },
    );
    const client = await connected(server);
    assert.deepEqual(
      await client.result('prompts/get', { name: 'greet', arguments: { name: 'Ada' } }),
      said('Ada plain'),
    );
    const completion = await client.result('completion/complete', {
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'style', value: 'f' },
      context: { arguments: { name: 'Ada' } },
    });
    assert.deepEqual(completion.completion.values, ['formal']);
  });

  test('a completer naming no argument is refused at registration', () => {
    const server = new Server({ name: 's', version: '1' });
    assert.throws(
      () =>
        server.prompt(
          // @ts-expect-error: the misspelt completer is a type error and a registration error
          { name: 'greet', arguments: [{ name: 'name' }], complete: { nmae: () => [] } },
          () => said(''),
        ),
      /completer for "nmae", which is not one of its arguments/,
    );
  });

  test('declared apart `as const`, the list types the handler the same way', async () => {
    const server = new Server({ name: 's', version: '1' });
    const args = [{ name: 'code', required: true }, { name: 'language' }] as const;
    server.prompt({ name: 'review', arguments: args }, (given) => {
      const code: string = given.code;
      const language: string | undefined = given.language;
      // @ts-expect-error: not an argument of this prompt
      void given.framework;
      return said(`${code} in ${language ?? 'any language'}`);
    });
    const client = await connected(server);
    const result = await client.result('prompts/get', { name: 'review', arguments: { code: 'x' } });
    assert.deepEqual(result, said('x in any language'));
  });

  test('a list whose names are not known to the type checker gives a record of strings, as before', async () => {
    const server = new Server({ name: 's', version: '1' });
    const names: { name: string; required?: boolean }[] = [{ name: 'anything' }];
    server.prompt({ name: 'open', arguments: names }, (args) => said(args.anything.toUpperCase()));
    server.prompt({ name: 'bare' }, (args) => said(Object.keys(args).join()));
    const client = await connected(server);
    assert.deepEqual(
      await client.result('prompts/get', { name: 'open', arguments: { anything: 'loud' } }),
      said('LOUD'),
    );
    assert.deepEqual(
      await client.result('prompts/get', { name: 'bare', arguments: { a: '1', b: '2' } }),
      said('a,b'),
    );
  });
});

describe('a prompt whose arguments are a Standard Schema', () => {
  test('zod: published from its JSON Schema, validated, every problem at once; the handler gets its output', async () => {
    const server = new Server({ name: 's', version: '1' });
    const seen: unknown[] = [];
    server.prompt(
      {
        name: 'plan',
        argsSchema: z.object({
          topic: z.string().min(2).describe('What to plan'),
          days: z.string().regex(/^\d+$/).transform(Number).optional(),
        }),
        complete: { topic: (value) => ['travel', 'training'].filter((t) => t.startsWith(value)) },
      },
      (args) => {
        const topic: string = args.topic;
        const days: number | undefined = args.days;
        // @ts-expect-error: a misspelt argument does not compile
        void args.topc;
        seen.push(args);
        return said(`${topic} for ${days ?? 1} days`);
      },
    );
    const client = await connected(server);
    const { prompts } = await client.result('prompts/list');
    assert.deepEqual(prompts[0].arguments, [
      { name: 'topic', description: 'What to plan', required: true },
      { name: 'days', required: false },
    ]);
    const result = await client.result('prompts/get', {
      name: 'plan',
      arguments: { topic: 'travel', days: '3' },
    });
    assert.deepEqual(result, said('travel for 3 days'));
    assert.deepEqual(seen, [{ topic: 'travel', days: 3 }]);
    const bad = await client.call('prompts/get', { name: 'plan', arguments: { topic: 't', days: 'many' } });
    assert.equal(bad.error.code, ErrorCode.InvalidParams);
    assert.match(
      bad.error.message,
      /^Invalid arguments for prompt "plan": arguments\.topic: [^;]+; arguments\.days: /,
    );
    assert.equal(seen.length, 1, 'the handler did not run');
    const completion = await client.result('completion/complete', {
      ref: { type: 'ref/prompt', name: 'plan' },
      argument: { name: 'topic', value: 'tr' },
    });
    assert.deepEqual(completion.completion.values, ['travel', 'training']);
  });

  test('valibot and arktype: typed from their output, validated by their own rules', async () => {
    const server = new Server({ name: 's', version: '1' });
    server.prompt(
      { name: 'v', argsSchema: toStandardJsonSchema(v.object({ who: v.pipe(v.string(), v.minLength(1)) })) },
      (args) => {
        // @ts-expect-error: not an argument of this prompt
        void args.whom;
        return said(`hi ${args.who}`);
      },
    );
    server.prompt({ name: 'a', argsSchema: type({ who: 'string', 'mood?': "'glad' | 'sad'" }) }, (args) => {
      const mood: 'glad' | 'sad' | undefined = args.mood;
      return said(`${args.who} is ${mood ?? 'calm'}`);
    });
    const client = await connected(server);
    assert.deepEqual(
      await client.result('prompts/get', { name: 'v', arguments: { who: 'Ada' } }),
      said('hi Ada'),
    );
    assert.equal(
      (await client.call('prompts/get', { name: 'v', arguments: { who: '' } })).error.code,
      -32602,
    );
    assert.deepEqual(
      await client.result('prompts/get', { name: 'a', arguments: { who: 'Ada', mood: 'glad' } }),
      said('Ada is glad'),
    );
    const refused = await client.call('prompts/get', { name: 'a', arguments: { mood: 'cross' } });
    assert.match(refused.error.message, /arguments\.who: .*; arguments\.mood: /);
  });

  test('registration refuses both forms at once, and a schema it cannot publish, naming argsSchema', () => {
    const server = new Server({ name: 's', version: '1' });
    assert.throws(
      () =>
        server.prompt(
          { name: 'both', arguments: [{ name: 'x' }], argsSchema: z.object({ x: z.string() }) } as never,
          () => said(''),
        ),
      /Prompt "both" gives both "arguments" and "argsSchema": give one/,
    );
    assert.throws(
      () => server.prompt({ name: 'plain', argsSchema: v.object({ x: v.string() }) }, () => said('')),
      /^Error: Prompt "plain": argsSchema: this valibot schema offers no JSON Schema conversion/,
    );
    assert.throws(
      () => server.prompt({ name: 'list', argsSchema: z.array(z.string()) as never }, () => said('')),
      /Prompt "list": argsSchema must describe an object/,
    );
  });
});
