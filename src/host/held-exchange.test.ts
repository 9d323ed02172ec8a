import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LoggingLevel, Result } from '../protocol/types.js';
import { HeldExchange, KEPT_BETWEEN_ROUNDS, type RoundClient } from './held-exchange.js';

/** A round client that writes down what it hears. */
function heard(): RoundClient & { readonly told: string[] } {
  const told: string[] = [];
  return {
    told,
    sendProgress: async (progress: number, total?: number) => {
      told.push(`progress ${progress}/${total}`);
    },
    log: async (level: LoggingLevel, data: unknown) => {
      told.push(`${level} ${String(data)}`);
    },
  };
}

/** An exchange whose child asks once, tells `between` while the client answers, and answers with what it got. */
function askingOnce(first: RoundClient, between: (exchange: HeldExchange) => void) {
  let answered: Record<string, unknown> | undefined;
  const exchange = new HeldExchange(first, '', async (self) => {
    await self.sendProgress(1, 2);
    answered = await self.ask('elicitation/create', { message: 'Your name?' });
    await self.sendProgress(2, 2);
    return { answered } as Result;
  });
  return {
    exchange,
    async firstRound() {
      const outcome = await exchange.next();
      assert.ok('inputRequests' in outcome);
      exchange.roundEnded();
      between(exchange);
    },
  };
}

test('what the child tells after a round ended goes to the next round, before the answer reaches the child', async () => {
  const first = heard();
  const second = heard();
  const { exchange, firstRound } = askingOnce(first, (ex) => {
    ex.sendProgress(1.5, 2);
    ex.log('info', 'still working');
  });
  await firstRound();
  assert.deepEqual(first.told, ['progress 1/2']);
  exchange.resume(second, { c0: { action: 'accept', content: { name: 'Ada' } } });
  const outcome = await exchange.next();
  assert.deepEqual(outcome, { result: { answered: { action: 'accept', content: { name: 'Ada' } } } });
  assert.deepEqual(second.told, ['progress 1.5/2', 'info still working', 'progress 2/2']);
});

test(`between rounds the latest ${KEPT_BETWEEN_ROUNDS} messages are kept, in order`, async () => {
  const second = heard();
  const { exchange, firstRound } = askingOnce(heard(), (ex) => {
    for (let n = 1; n <= KEPT_BETWEEN_ROUNDS + 10; n++) ex.sendProgress(n);
  });
  await firstRound();
  exchange.resume(second, { c0: { action: 'decline' } });
  await exchange.next();
  const kept = second.told.slice(0, -1);
  assert.equal(kept.length, KEPT_BETWEEN_ROUNDS);
  assert.equal(kept[0], 'progress 11/undefined');
  assert.equal(kept.at(-1), `progress ${KEPT_BETWEEN_ROUNDS + 10}/undefined`);
});

test('a round that has not ended hears the child at once', async () => {
  const first = heard();
  const exchange = new HeldExchange(first, '', async (self) => {
    await self.log('warning', 'early');
    return {};
  });
  await exchange.next();
  assert.deepEqual(first.told, ['warning early']);
});
