import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  formatCompletion,
  formatContent,
  formatLog,
  formatNotification,
  formatReadResult,
  formatToolResult,
  formatTools,
} from './call-output.js';

test('tools: name and description, then required and optional arguments with their types', () => {
  const text = formatTools([
    {
      name: 'add',
      description: 'Adds.',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: ['number', 'null'] }, note: {} },
        required: ['a', 'b'],
      },
    },
    { name: 'bare', inputSchema: { type: 'object' } },
  ]);
  assert.equal(text, 'add: Adds.\n  required: a (number), b (number | null)\n  optional: note\nbare\n');
  assert.equal(formatTools([]), 'No tools\n');
});

test('tool results: text as it is, binary content by type, size and MIME type, structuredContent as JSON', () => {
  const png = Buffer.alloc(70).toString('base64');
  const text = formatToolResult({
    content: [
      { type: 'text', text: 'hello' },
      { type: 'image', data: png, mimeType: 'image/png' },
      { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      { type: 'resource_link', uri: 'file:///a.txt', name: 'a' },
      { type: 'resource', resource: { uri: 'demo://x', text: 'inline\n' } },
      { type: 'resource', resource: { uri: 'demo://y', blob: 'AAAA', mimeType: 'application/zip' } },
    ],
    structuredContent: { sum: 3 },
  });
  assert.equal(
    text,
    'hello\n[image: image/png, 70 bytes]\n[audio: audio/wav, 3 bytes]\n[resource link: file:///a.txt (a)]\n' +
      '[resource: demo://x]\ninline\n[resource: demo://y, application/zip, 3 bytes]\n' +
      'structuredContent: {\n  "sum": 3\n}\n',
  );
  assert.equal(formatToolResult({ content: [] }), '(no content)\n');
  assert.equal(formatContent({ type: 'mystery' } as never), '[mystery]\n');
});

test('read: one text content as it is; several under a header each', () => {
  assert.equal(formatReadResult({ contents: [{ uri: 'demo://a', text: 'A' }] }), 'A\n');
  assert.equal(
    formatReadResult({
      contents: [
        { uri: 'demo://a', text: 'A', mimeType: 'text/plain' },
        { uri: 'demo://b', blob: 'AAAA' },
      ],
    }),
    '--- demo://a [text/plain]\nA\n--- demo://b\n[blob: unknown type, 3 bytes]\n',
  );
});

test('log messages: level, logger, and data as text or JSON', () => {
  assert.equal(formatLog({ level: 'info', logger: 'demo', data: 'hi' }), '[info] demo: hi\n');
  assert.equal(formatLog({ level: 'error', data: { code: 1 } }), '[error] {"code":1}\n');
});

test('completion: one suggestion a line, then how many more the server has', () => {
  assert.equal(formatCompletion({ completion: { values: ['Ada', 'Alan'] } }), 'Ada\nAlan\n');
  assert.equal(formatCompletion({ completion: { values: ['a'], total: 3, hasMore: true } }), 'a\n(2 more)\n');
  assert.equal(formatCompletion({ completion: { values: ['a'], hasMore: true } }), 'a\n(more)\n');
  assert.equal(formatCompletion({ completion: { values: [] } }), 'No suggestions\n');
});

test('a notification: what changed, which resource was updated, what the stream carries; others as they came', () => {
  const meta = { _meta: { 'io.modelcontextprotocol/subscriptionId': 7 } };
  assert.equal(formatNotification({ method: 'notifications/tools/list_changed' }), 'tools changed\n');
  assert.equal(
    formatNotification({ method: 'notifications/prompts/list_changed', params: meta }),
    'prompts changed\n',
  );
  assert.equal(formatNotification({ method: 'notifications/resources/list_changed' }), 'resources changed\n');
  assert.equal(
    formatNotification({
      method: 'notifications/resources/updated',
      params: { uri: 'demo://readme', ...meta },
    }),
    'resource updated: demo://readme\n',
  );
  assert.equal(
    formatNotification({
      method: 'notifications/subscriptions/acknowledged',
      params: {
        notifications: { toolsListChanged: true, resourceSubscriptions: ['demo://readme'] },
        ...meta,
      },
    }),
    'listening for tools changes, updates of demo://readme\n',
  );
  assert.equal(
    formatNotification({ method: 'notifications/subscriptions/acknowledged', params: { notifications: {} } }),
    'listening for nothing: the server takes none of what was asked\n',
  );
  assert.equal(
    formatNotification({ method: 'notifications/message', params: { level: 'info', data: 'hi' } }),
    '[info] hi\n',
  );
  assert.equal(
    formatNotification({ method: 'notifications/weather', params: { sky: 'clear', ...meta } }),
    'notifications/weather {"sky":"clear"}\n',
  );
  assert.equal(formatNotification({ method: 'notifications/ping', params: meta }), 'notifications/ping\n');
  // Without the URI it names, an update is shown as it came rather than as an update of nothing.
  assert.equal(
    formatNotification({ method: 'notifications/resources/updated', params: {} }),
    'notifications/resources/updated\n',
  );
});
