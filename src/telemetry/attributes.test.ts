import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import { RequestCancelledError, RequestTimeoutError } from '../peer/errors.js';
import { CANCELLED, describe as describeRequest, ending, spanName } from './attributes.js';

describe('what a request is about', () => {
  test('the tool or prompt name is the target; a URI never is', () => {
    const call = describeRequest('tools/call', { name: 'add', arguments: {} }, '2025-11-25');
    assert.equal(spanName(call), 'tools/call add');
    assert.equal(call.targetKey, 'gen_ai.tool.name');
    assert.equal(spanName(describeRequest('prompts/get', { name: 'greet' }, undefined)), 'prompts/get greet');
    const read = describeRequest('resources/read', { uri: 'demo://items/42' }, undefined);
    assert.equal(spanName(read), 'resources/read');
    assert.equal(read.uri, 'demo://items/42');
    // A name that is not a string is no target.
    assert.equal(spanName(describeRequest('tools/call', { name: 7 }, undefined)), 'tools/call');
  });

  test('the era and version: a modern request names its own in _meta', () => {
    const legacy = describeRequest('tools/list', {}, '2025-06-18');
    assert.deepEqual([legacy.era, legacy.protocolVersion], ['legacy', '2025-06-18']);
    const modern = describeRequest(
      'tools/list',
      { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
      undefined,
    );
    assert.deepEqual([modern.era, modern.protocolVersion], ['modern', '2026-07-28']);
  });
});

describe('how a request ended', () => {
  test('results: complete, input_required, and a tool’s isError', () => {
    assert.equal(ending({ content: [] }, undefined).outcome, 'complete');
    assert.equal(ending({ resultType: 'input_required' }, undefined).outcome, 'input_required');
    const toolError = ending({ content: [], isError: true }, undefined);
    assert.deepEqual(
      [toolError.outcome, toolError.errorType, toolError.code],
      ['tool_error', 'tool_error', undefined],
    );
  });

  test('errors: the JSON-RPC code as error.type, whatever carried it; cancellations apart', () => {
    const thrown = ending(undefined, new McpError(ErrorCode.InvalidParams, 'Unknown tool: x'));
    assert.deepEqual(
      [thrown.outcome, thrown.errorType, thrown.code, thrown.message],
      ['error', '-32602', -32602, 'Unknown tool: x'],
    );
    const object = ending(undefined, { code: -32020, message: 'header mismatch' });
    assert.deepEqual([object.errorType, object.message], ['-32020', 'header mismatch']);
    assert.equal(
      ending(undefined, new RequestTimeoutError('tools/call', 10, 'timeout')).errorType,
      String(ErrorCode.RequestTimeout),
    );
    assert.equal(ending(undefined, new RequestCancelledError('tools/call', 'gone')).outcome, 'cancelled');
    assert.equal(ending(undefined, CANCELLED).errorType, 'cancelled');
    // No code: the error's name (a failed fetch), else the conventions' fallback.
    assert.equal(ending(undefined, new TypeError('fetch failed')).errorType, 'TypeError');
    assert.equal(ending(undefined, 'broken').errorType, '_OTHER');
  });
});
