import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serverResultProblem } from './server-results.js';

const TOOL = { name: 'echo', inputSchema: { type: 'object' } };
const TEXT = { type: 'text', text: 'hi' };

/** Results each method's server may give, the spec's shapes of both eras, with fields the check leaves alone. */
const FITTING: [string, unknown][] = [
  ['tools/list', { tools: [] }],
  [
    'tools/list',
    { tools: [TOOL, { ...TOOL, title: 'T', outputSchema: { type: 'object' }, x: 1 }], nextCursor: 'c' },
  ],
  ['tools/call', { content: [] }],
  ['tools/call', { structuredContent: { sum: 4 } }],
  [
    'tools/call',
    {
      content: [
        TEXT,
        { type: 'image', data: 'AA==', mimeType: 'image/png' },
        { type: 'audio', data: 'AA==', mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'file:///a', name: 'a' },
        { type: 'resource', resource: { uri: 'file:///a', blob: 'AA==' } },
      ],
      isError: true,
      // 2026-07-28: any JSON value.
      structuredContent: [1, 2],
      resultType: 'complete',
    },
  ],
  ['resources/list', { resources: [{ uri: 'file:///a', name: 'a', size: 3 }] }],
  ['resources/templates/list', { resourceTemplates: [{ uriTemplate: 'file:///{p}', name: 'p' }] }],
  [
    'resources/read',
    {
      contents: [
        { uri: 'file:///a', text: '' },
        { uri: 'file:///b', blob: '' },
      ],
    },
  ],
  ['prompts/list', { prompts: [{ name: 'p', arguments: [{ name: 'a', required: true }] }] }],
  ['prompts/get', { description: 'd', messages: [{ role: 'assistant', content: TEXT }] }],
  ['completion/complete', { completion: { values: ['a'], total: 1, hasMore: false } }],
  // Not checked: another method's result, whatever it holds.
  ['x/unknown', { anything: [1] }],
];

/** Results that are not one, and where the check finds the first fault. */
const MISFITS: [string, unknown, string][] = [
  ['tools/list', [], ' must be an object'],
  ['tools/list', {}, '.tools must be an array'],
  ['tools/list', { tools: [TOOL, 'echo'] }, '.tools[1] must be an object'],
  ['tools/list', { tools: [{ inputSchema: {} }] }, '.tools[0].name must be a string'],
  ['tools/list', { tools: [{ name: 'a' }] }, '.tools[0].inputSchema must be an object (a JSON Schema)'],
  ['tools/list', { tools: [], nextCursor: 1 }, '.nextCursor must be a string'],
  ['tools/list', { tools: [], _meta: 'm' }, '._meta must be an object'],
  ['tools/call', { content: null }, '.content must be an array'],
  ['tools/call', { content: TEXT }, '.content must be an array'],
  ['tools/call', { content: [{ type: 'text' }] }, '.content[0].text must be a string'],
  [
    'tools/call',
    { content: [TEXT, { type: 'video' }] },
    '.content[1].type must be "text", "image", "audio", "resource_link" or "resource"',
  ],
  ['tools/call', { content: [], isError: 'yes' }, '.isError must be a boolean'],
  ['resources/list', { resources: [{ name: 'a' }] }, '.resources[0].uri must be a string'],
  ['resources/list', { resources: [{ uri: 'file:///a' }] }, '.resources[0].name must be a string'],
  [
    'resources/templates/list',
    { resourceTemplates: [{ name: 'a' }] },
    '.resourceTemplates[0].uriTemplate must be a string',
  ],
  [
    'resources/read',
    { contents: [{ uri: 'file:///a' }] },
    '.contents[0] must have a string "text" or "blob"',
  ],
  [
    'prompts/list',
    { prompts: [{ name: 'p', arguments: [{}] }] },
    '.prompts[0].arguments[0].name must be a string',
  ],
  [
    'prompts/get',
    { messages: [{ role: 'system', content: TEXT }] },
    '.messages[0].role must be "user" or "assistant"',
  ],
  [
    'prompts/get',
    { messages: [{ role: 'user', content: [TEXT] }] },
    '.messages[0].content must be an object',
  ],
  ['completion/complete', { values: [] }, '.completion must be an object'],
  ['completion/complete', { completion: { values: [1] } }, '.completion.values must be an array of strings'],
  ['completion/complete', { completion: { values: [], total: '1' } }, '.completion.total must be a number'],
];

describe('a server result checked against its method', () => {
  test('the spec shapes of both eras fit, extra fields included', () => {
    for (const [method, result] of FITTING)
      assert.equal(serverResultProblem(method, result), undefined, `${method} ${JSON.stringify(result)}`);
  });

  test('a result that is not one names its first fault', () => {
    for (const [method, result, problem] of MISFITS)
      assert.equal(serverResultProblem(method, result), problem, `${method} ${JSON.stringify(result)}`);
  });
});
