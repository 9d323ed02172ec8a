// `mcpwire call` on a real terminal (a pseudo-terminal made by util-linux `script`) answering the form of
// server-everything's trigger-elicitation-request, which asks for every kind of field the spec allows:
// text with and without formats, boolean, integer and number with bounds and defaults, and the five kinds
// of enum. A person's mistakes are asked again; Enter takes a default; the server checks what it gets.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { CLI } from '../../src/test-support/cli-run.js';
import { killTerminalRuns, onTerminal } from '../../src/test-support/pseudo-terminal.js';
import { EVERYTHING } from '../../src/test-support/server-everything.js';

after(killTerminalRuns);

test('the whole form of server-everything, field by field, on a terminal', { timeout: 60_000 }, async () => {
  const terminal = onTerminal([
    process.execPath,
    CLI,
    'call',
    'call',
    'trigger-elicitation-request',
    '--',
    process.execPath,
    EVERYTHING,
    'stdio',
  ]);
  const steps: Array<[RegExp, string]> = [
    [
      /Please provide inputs for the following fields:\nFill in the form\? \[Y\]es, \[d\]ecline, \[c\]ancel: $/,
      '',
    ],
    [/String — Your full, legal name\n {2}\[text; required\]: $/, ''],
    [
      /this one is required; try again\nString — Your full, legal name\n {2}\[text; required\]: $/,
      'Ada Lovelace',
    ],
    [/Agree to the terms and conditions\n {2}\[yes or no; Enter to leave out\]: $/, 'yes'],
    [/\[text; Enter for It was a dark and stormy night\.\]: $/, ''],
    [/\[an email address; Enter to leave out\]: $/, 'ada@'],
    [/it must be an email address; try again\n[\s\S]*: $/, 'ada@example.com'],
    [/\[a URI; Enter to leave out\]: $/, ''],
    [/\[a date \(YYYY-MM-DD\); Enter to leave out\]: $/, '1815-13-10'],
    [/it must be a date \(YYYY-MM-DD\); try again\n[\s\S]*: $/, '1815-12-10'],
    [/\[an integer, 1 to 100; Enter for 42\]: $/, ''],
    [/\[a number, 0 to 1000; Enter for 3\.14\]: $/, '2000'],
    [/it must be at most 1000; try again\n[\s\S]*: $/, '2.5'],
    [/ {4}6\) Phoebe\n {2}\[a number or a value above; Enter for Monica\]: $/, '3'],
    [
      / {4}5\) Bass\n {2}\[numbers or values above, separated by commas, 1 to 3 of them; Enter for Guitar\]: $/,
      'Piano, 5',
    ],
    [/ {4}3\) Wonder Woman \(hero-3\)\n[\s\S]*: $/, 'wonder woman'],
    [/ {4}3\) Trout \(fish-3\)\n[\s\S]*: $/, '1,3'],
    [/ {4}5\) Reptiles \(pet-5\)\n[\s\S]*: $/, 'dogs'],
  ];
  for (const [question, text] of steps) await terminal.answer(question, text);
  assert.equal(await terminal.closed, 0, terminal.shown());

  const shown = terminal.shown();
  assert.match(shown, /User provided the requested information!/);
  const raw = /Raw result: (\{[\s\S]*\})\n/.exec(shown);
  assert.ok(raw, shown);
  // What the server received, defaults filled in by the client for the fields left to Enter.
  assert.deepEqual(JSON.parse(raw[1]), {
    action: 'accept',
    content: {
      name: 'Ada Lovelace',
      check: true,
      firstLine: 'It was a dark and stormy night.',
      email: 'ada@example.com',
      birthdate: '1815-12-10',
      integer: 42,
      number: 2.5,
      untitledSingleSelectEnum: 'Joey',
      untitledMultipleSelectEnum: ['Piano', 'Bass'],
      titledSingleSelectEnum: 'hero-3',
      titledMultipleSelectEnum: ['fish-1', 'fish-3'],
      legacyTitledEnum: 'pet-2',
    },
  });
});
