// BearerTokens against hostile Authorization headers (fast-check): any string, a token with characters put in,
// taken out or changed, a token after another scheme or none. A request is let in exactly when the header is
// "Bearer" (any case) and one of the tokens, as that token's principal; every other is refused with 401 once.
// Runs and seed: src/test-support/fuzz.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fc, fuzzRuns } from '../test-support/fuzz.js';
import { BearerTokens } from './bearer-tokens.js';
import type { HTTPExchange } from './exchange.js';

const ADA = 'a'.repeat(8) + '0123456789abcdef0123456789abcdef';
const BOB = 'Bob-token_with.all~chars+/0123456789==';

test('lets in only a header that carries one of the tokens, whatever else it is', () => {
  const tokens = new BearerTokens([ADA, BOB]);
  const granted = [ADA, BOB];
  const mutated = fc
    .tuple(fc.constantFrom(...granted), fc.nat(), fc.string({ maxLength: 3 }))
    .map(([token, at, text]) => {
      const i = at % (token.length + 1);
      return token.slice(0, i) + text + token.slice(i + (at % 2));
    });
  const header = fc.oneof(
    fc.string(),
    mutated.map((token) => `Bearer ${token}`),
    fc
      .tuple(
        fc.constantFrom('Bearer', 'bearer', 'BEARER', 'Basic', 'Bearer:', ''),
        fc.constantFrom(...granted),
      )
      .map(([scheme, token]) => `${scheme} ${token}`),
  );
  fc.assert(
    fc.property(header, (value) => {
      const exchange = {
        header: () => value,
        principal: undefined,
        scopes: undefined,
      } as unknown as HTTPExchange;
      const refusals: number[] = [];
      const admitted = tokens.admit(exchange, (_e, status) => refusals.push(status));
      const sent = /^bearer +(\S+) *$/i.exec(value)?.[1];
      const one = sent !== undefined && granted.includes(sent);
      assert.equal(admitted, one, value);
      assert.deepEqual(refusals, one ? [] : [401]);
      assert.equal(exchange.principal, one ? tokens.grantOf(sent)!.principal : undefined);
    }),
    fuzzRuns(500),
  );
});
