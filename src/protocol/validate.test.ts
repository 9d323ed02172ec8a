import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/types.js';
import { LOGGING_LEVELS, Method } from './types.js';
import { assertValidParams, isLoggingLevel, validateInitializeResult, validateParams } from './validate.js';
import {
  acceptsBatches,
  isLegacyVersion,
  LATEST_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  negotiateVersion,
} from './versions.js';

interface Case {
  valid: (Params | undefined)[];
  /** Params and a substring of the message they must produce. */
  invalid: [Params | undefined, string][];
}

const client = { name: 'c', version: '1.0.0' };
const initialize = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: client };
const text = { type: 'text', text: 'hi' };
const userText = { role: 'user', content: text };
const formSchema = { type: 'object', properties: { name: { type: 'string' } } };

// Shared by the methods whose params are only `_meta` (and `cursor` for the list requests).
const requestMetaCase: Case = {
  valid: [undefined, {}, { _meta: { progressToken: 'p' } }, { _meta: { progressToken: 7, other: true } }],
  invalid: [
    [{ _meta: 'x' }, 'params._meta must be an object'],
    [{ _meta: [] }, 'params._meta must be an object'],
    [{ _meta: { progressToken: 1.5 } }, 'params._meta.progressToken must be a string or an integer'],
    [{ _meta: { progressToken: null } }, 'params._meta.progressToken must be a string or an integer'],
  ],
};
const paginatedCase: Case = {
  valid: [...requestMetaCase.valid, { cursor: 'abc' }],
  invalid: [...requestMetaCase.invalid, [{ cursor: 3 }, 'params.cursor must be a string']],
};
const notificationMetaCase: Case = {
  valid: [undefined, {}, { _meta: { anything: 1 } }],
  invalid: [[{ _meta: 1 }, 'params._meta must be an object']],
};
const resourceUriCase: Case = {
  valid: [{ uri: 'file:///a.txt' }, { uri: 'x', _meta: { progressToken: 1 } }],
  invalid: [
    [undefined, 'params.uri must be a string'],
    [{ uri: 1 }, 'params.uri must be a string'],
    [{ uri: 'x', _meta: { progressToken: {} } }, 'params._meta.progressToken must be a string or an integer'],
  ],
};

const cases: Record<Method, Case> = {
  [Method.Initialize]: {
    valid: [
      initialize,
      {
        protocolVersion: '2024-11-05',
        capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { url: {} }, custom: 1 },
        clientInfo: { ...client, title: 'C', icons: [{ src: 'https://x/i.png' }], extra: 1 },
      },
    ],
    invalid: [
      [undefined, 'params.protocolVersion must be a string'],
      [{ ...initialize, protocolVersion: 20251125 }, 'params.protocolVersion must be a string'],
      [{ ...initialize, capabilities: undefined }, 'params.capabilities must be an object'],
      [{ ...initialize, capabilities: null }, 'params.capabilities must be an object'],
      [{ ...initialize, capabilities: { sampling: true } }, 'params.capabilities.sampling must be an object'],
      [{ ...initialize, capabilities: { roots: null } }, 'params.capabilities.roots must be an object'],
      [{ ...initialize, clientInfo: 'me' }, 'params.clientInfo must be an object'],
      [{ ...initialize, clientInfo: { name: 'c' } }, 'params.clientInfo.version must be a string'],
      [{ ...initialize, clientInfo: { version: '1' } }, 'params.clientInfo.name must be a string'],
    ],
  },
  [Method.Ping]: requestMetaCase,
  [Method.ToolsList]: paginatedCase,
  [Method.ResourcesList]: paginatedCase,
  [Method.ResourcesTemplatesList]: paginatedCase,
  [Method.PromptsList]: paginatedCase,
  [Method.ToolsCall]: {
    valid: [{ name: 'echo' }, { name: 'echo', arguments: { a: [1] }, _meta: { progressToken: 'p' } }],
    invalid: [
      [undefined, 'params.name must be a string'],
      [{ name: 5 }, 'params.name must be a string'],
      [{ name: 'echo', arguments: [1] }, 'params.arguments must be an object'],
      [{ name: 'echo', arguments: 'x' }, 'params.arguments must be an object'],
      [{ name: 'echo', _meta: { progressToken: true } }, 'params._meta.progressToken'],
      [{ name: 'echo', inputResponses: [] }, 'params.inputResponses must be an object'],
      [{ name: 'echo', requestState: 1 }, 'params.requestState must be a string'],
    ],
  },
  [Method.ResourcesRead]: {
    valid: [...resourceUriCase.valid, { uri: 'x', inputResponses: { a: {} }, requestState: 's' }],
    invalid: [
      ...resourceUriCase.invalid,
      [{ uri: 'x', requestState: {} }, 'params.requestState must be a string'],
    ],
  },
  [Method.ResourcesSubscribe]: resourceUriCase,
  [Method.ResourcesUnsubscribe]: resourceUriCase,
  [Method.PromptsGet]: {
    valid: [{ name: 'p' }, { name: 'p', arguments: { a: 'x', b: '' } }],
    invalid: [
      [{}, 'params.name must be a string'],
      [{ name: 'p', arguments: 'a=1' }, 'params.arguments must be an object'],
      [{ name: 'p', arguments: { a: 'x', b: 2 } }, 'params.arguments.b must be a string'],
    ],
  },
  [Method.CompletionComplete]: {
    valid: [
      { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } },
      {
        ref: { type: 'ref/resource', uri: 'file:///{path}' },
        argument: { name: 'path', value: 'sr' },
        context: { arguments: { owner: 'me' } },
      },
    ],
    invalid: [
      [{ argument: { name: 'a', value: '' } }, 'params.ref must be an object'],
      [
        { ref: { type: 'ref/tool', name: 'p' }, argument: { name: 'a', value: '' } },
        'params.ref.type must be "ref/prompt" or "ref/resource"',
      ],
      [
        { ref: { type: 'ref/prompt' }, argument: { name: 'a', value: '' } },
        'params.ref.name must be a string',
      ],
      [{ ref: { type: 'ref/resource', name: 'x' }, argument: { name: 'a', value: '' } }, 'params.ref.uri'],
      [{ ref: { type: 'ref/prompt', name: 'p' } }, 'params.argument must be an object'],
      [
        { ref: { type: 'ref/prompt', name: 'p' }, argument: { value: '' } },
        'params.argument.name must be a string',
      ],
      [
        { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a' } },
        'params.argument.value must be a string',
      ],
      [
        { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' }, context: [] },
        'params.context must be an object',
      ],
      [
        {
          ref: { type: 'ref/prompt', name: 'p' },
          argument: { name: 'a', value: '' },
          context: { arguments: { x: 1 } },
        },
        'params.context.arguments.x must be a string',
      ],
    ],
  },
  [Method.LoggingSetLevel]: {
    valid: LOGGING_LEVELS.map((level) => ({ level })),
    invalid: [
      [undefined, 'params.level must be one of "debug", "info",'],
      [{ level: 'verbose' }, 'params.level must be one of'],
      [{ level: 'INFO' }, 'params.level must be one of'],
    ],
  },
  [Method.SamplingCreateMessage]: {
    valid: [
      { messages: [], maxTokens: 100 },
      {
        messages: [
          userText,
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'calling' },
              { type: 'tool_use', id: 'c1', name: 'weather', input: { city: 'Paris' } },
            ],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                toolUseId: 'c1',
                content: [
                  text,
                  { type: 'resource_link', uri: 'file:///a', name: 'a' },
                  { type: 'resource', resource: { uri: 'file:///b', blob: 'AA==' } },
                ],
                isError: false,
              },
            ],
          },
          { role: 'user', content: { type: 'image', data: 'AA==', mimeType: 'image/png' } },
        ],
        maxTokens: 100,
        systemPrompt: 'be brief',
        includeContext: 'thisServer',
        temperature: 0.2,
        stopSequences: ['\n'],
        modelPreferences: { hints: [{ name: 'sonnet' }] },
        tools: [{ name: 'weather', inputSchema: { type: 'object' } }],
        toolChoice: { mode: 'required' },
      },
    ],
    invalid: [
      [{ maxTokens: 10 }, 'params.messages must be an array'],
      [{ messages: [userText] }, 'params.maxTokens must be a number'],
      [{ messages: [userText], maxTokens: '10' }, 'params.maxTokens must be a number'],
      [{ messages: [null], maxTokens: 10 }, 'params.messages[0] must be an object'],
      [{ messages: [userText, { role: 'system', content: text }], maxTokens: 10 }, 'params.messages[1].role'],
      [{ messages: [{ role: 'user' }], maxTokens: 10 }, 'params.messages[0].content must be an object'],
      [
        { messages: [{ role: 'user', content: { type: 'video' } }], maxTokens: 10 },
        'params.messages[0].content.type must be "text", "image", "audio", "tool_use" or "tool_result"',
      ],
      [
        { messages: [{ role: 'user', content: { type: 'text', text: 1 } }], maxTokens: 10 },
        'params.messages[0].content.text must be a string',
      ],
      [
        { messages: [{ role: 'user', content: [text, { type: 'audio', data: 'AA==' }] }], maxTokens: 10 },
        'params.messages[0].content[1].mimeType must be a string',
      ],
      [
        {
          messages: [{ role: 'assistant', content: { type: 'tool_use', id: 'c1', name: 'w' } }],
          maxTokens: 10,
        },
        'params.messages[0].content.input must be an object',
      ],
      [
        { messages: [{ role: 'user', content: { type: 'tool_result', content: [] } }], maxTokens: 10 },
        'params.messages[0].content.toolUseId must be a string',
      ],
      [
        {
          messages: [
            { role: 'user', content: { type: 'tool_result', toolUseId: 'c1', content: [{ type: 'x' }] } },
          ],
          maxTokens: 10,
        },
        'params.messages[0].content.content[0].type must be',
      ],
      [
        {
          messages: [
            {
              role: 'user',
              content: {
                type: 'tool_result',
                toolUseId: 'c1',
                content: [{ type: 'resource', resource: { uri: 'u' } }],
              },
            },
          ],
          maxTokens: 10,
        },
        'params.messages[0].content.content[0].resource must have a string "text" or "blob"',
      ],
      [
        {
          messages: [
            { role: 'user', content: [text, { type: 'tool_result', toolUseId: 'c1', content: [] }] },
          ],
          maxTokens: 10,
        },
        'params.messages[0].content must not mix tool_result with other content',
      ],
      [{ messages: [], maxTokens: 10, includeContext: 'all' }, 'params.includeContext must be'],
      [{ messages: [], maxTokens: 10, temperature: 'hot' }, 'params.temperature must be a number'],
      [
        { messages: [], maxTokens: 10, stopSequences: [1] },
        'params.stopSequences must be an array of strings',
      ],
      [{ messages: [], maxTokens: 10, tools: {} }, 'params.tools must be an array'],
      [
        { messages: [], maxTokens: 10, tools: [{ name: 'w' }] },
        'params.tools[0].inputSchema must be an object',
      ],
      [
        { messages: [], maxTokens: 10, tools: [{ name: 'w', inputSchema: { type: 'string' } }] },
        'params.tools[0].inputSchema.type must be "object"',
      ],
      [
        { messages: [], maxTokens: 10, toolChoice: { mode: 'any' } },
        'params.toolChoice.mode must be "auto", "required" or "none"',
      ],
    ],
  },
  [Method.ElicitationCreate]: {
    valid: [
      { message: 'Name?', requestedSchema: formSchema },
      {
        mode: 'form',
        message: 'Prefs',
        requestedSchema: {
          type: 'object',
          properties: {
            email: { type: 'string', format: 'email' },
            age: { type: 'integer', minimum: 0 },
            ok: { type: 'boolean', default: true },
            color: { type: 'string', enum: ['red', 'green'] },
            size: { type: 'string', oneOf: [{ const: 's', title: 'Small' }] },
            tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
            picks: { type: 'array', items: { anyOf: [{ const: 'x', title: 'X' }] } },
          },
          required: ['email'],
        },
      },
      { mode: 'url', message: 'Sign in', elicitationId: 'e1', url: 'https://example.com/connect?x=1' },
    ],
    invalid: [
      [{ requestedSchema: formSchema }, 'params.message must be a string'],
      [{ message: 'm', mode: 'modal', requestedSchema: formSchema }, 'params.mode must be "form" or "url"'],
      [{ message: 'm' }, 'params.requestedSchema must be an object'],
      [{ message: 'm', requestedSchema: { type: 'array', properties: {} } }, 'params.requestedSchema.type'],
      [
        { message: 'm', requestedSchema: { type: 'object' } },
        'params.requestedSchema.properties must be an object',
      ],
      [
        { message: 'm', requestedSchema: { type: 'object', properties: { a: { type: 'object' } } } },
        'params.requestedSchema.properties.a.type must be "string", "number", "integer", "boolean" or "array"',
      ],
      [
        {
          message: 'm',
          requestedSchema: { type: 'object', properties: { a: { type: 'string', enum: [1] } } },
        },
        'params.requestedSchema.properties.a.enum must be an array of strings',
      ],
      [
        {
          message: 'm',
          requestedSchema: { type: 'object', properties: { a: { type: 'string', oneOf: [{ const: 'x' }] } } },
        },
        'params.requestedSchema.properties.a.oneOf[0].title must be a string',
      ],
      [
        {
          message: 'm',
          requestedSchema: { type: 'object', properties: { a: { type: 'array', items: {} } } },
        },
        'params.requestedSchema.properties.a.items must have "enum" or "anyOf"',
      ],
      [
        { message: 'm', requestedSchema: { ...formSchema, required: 'name' } },
        'params.requestedSchema.required must be an array of strings',
      ],
      [{ mode: 'url', message: 'm', url: 'https://x' }, 'params.elicitationId must be a string'],
      [{ mode: 'url', message: 'm', elicitationId: 'e' }, 'params.url must be a valid URL'],
      [{ mode: 'url', message: 'm', elicitationId: 'e', url: 'not a url' }, 'params.url must be a valid URL'],
    ],
  },
  [Method.RootsList]: requestMetaCase,
  [Method.Initialized]: notificationMetaCase,
  [Method.RootsListChanged]: notificationMetaCase,
  [Method.ResourceListChanged]: notificationMetaCase,
  [Method.ToolListChanged]: notificationMetaCase,
  [Method.PromptListChanged]: notificationMetaCase,
  [Method.Cancelled]: {
    valid: [{ requestId: 1 }, { requestId: 'a', reason: 'user' }],
    invalid: [
      [undefined, 'params.requestId must be a string or an integer'],
      [{ requestId: 1.5 }, 'params.requestId must be a string or an integer'],
      [{ requestId: null }, 'params.requestId must be a string or an integer'],
      [{ requestId: 1, reason: 2 }, 'params.reason must be a string'],
    ],
  },
  [Method.Progress]: {
    valid: [
      { progressToken: 'p', progress: 0 },
      { progressToken: 3, progress: 0.5, total: 1, message: 'half' },
    ],
    invalid: [
      [undefined, 'params.progressToken must be a string or an integer'],
      [{ progressToken: { id: 1 }, progress: 1 }, 'params.progressToken must be a string or an integer'],
      [{ progressToken: 'p' }, 'params.progress must be a number'],
      [{ progressToken: 'p', progress: Number.NaN }, 'params.progress must be a number'],
      [{ progressToken: 'p', progress: 1, total: '2' }, 'params.total must be a number'],
      [{ progressToken: 'p', progress: 1, message: 1 }, 'params.message must be a string'],
    ],
  },
  [Method.LoggingMessage]: {
    valid: [
      { level: 'error', data: 'boom' },
      { level: 'debug', logger: 'db', data: { rows: 1 } },
      { level: 'info', data: null },
    ],
    invalid: [
      [{ data: 'x' }, 'params.level must be one of'],
      [{ level: 'trace', data: 'x' }, 'params.level must be one of'],
      [{ level: 'info' }, 'params.data is required'],
      [{ level: 'info', data: 'x', logger: 1 }, 'params.logger must be a string'],
    ],
  },
  [Method.ResourceUpdated]: {
    valid: [{ uri: 'file:///a' }],
    invalid: [
      [undefined, 'params.uri must be a string'],
      [{ uri: 'file:///a', _meta: 'm' }, 'params._meta must be an object'],
    ],
  },
  [Method.ElicitationComplete]: {
    valid: [{ elicitationId: 'e1' }],
    invalid: [
      [undefined, 'params.elicitationId must be a string'],
      [{ elicitationId: 1 }, 'params.elicitationId must be a string'],
    ],
  },
  [Method.ServerDiscover]: requestMetaCase,
  [Method.SubscriptionsListen]: {
    valid: [
      { notifications: {} },
      { notifications: { toolsListChanged: true, resourceSubscriptions: ['a://b'], taskIds: ['t'] } },
    ],
    invalid: [
      [undefined, 'params.notifications must be an object (the subscription filter)'],
      [{ notifications: [] }, 'params.notifications must be an object'],
      [{ notifications: { toolsListChanged: 1 } }, 'params.notifications.toolsListChanged must be a boolean'],
      [
        { notifications: { resourceSubscriptions: 'a' } },
        'params.notifications.resourceSubscriptions must be an array of strings',
      ],
    ],
  },
  [Method.SubscriptionsAcknowledged]: notificationMetaCase,
};

describe('validateParams', () => {
  for (const [method, { valid, invalid }] of Object.entries(cases)) {
    test(method, () => {
      for (const params of valid) {
        assert.equal(validateParams(method, params), undefined, `${method} ${JSON.stringify(params)}`);
      }
      for (const [params, expected] of invalid) {
        const problem = validateParams(method, params);
        assert.ok(problem?.includes(expected), `${method} ${JSON.stringify(params)}: got ${problem}`);
      }
    });
  }

  test('params that are not an object are refused for every known method', () => {
    for (const method of Object.values(Method)) {
      assert.equal(validateParams(method, [] as unknown as Params), 'params must be an object');
      assert.equal(validateParams(method, 'x' as unknown as Params), 'params must be an object');
    }
  });

  test('unknown methods are not checked, including names of Object.prototype members', () => {
    for (const method of [
      'tools/unknown',
      'tasks/unknown',
      'constructor',
      '__proto__',
      'toString',
      'hasOwnProperty',
    ]) {
      assert.equal(validateParams(method, { anything: 1 }), undefined, method);
      assert.equal(validateParams(method, undefined), undefined, method);
    }
  });

  test('tasks/*: taskId a string, inputResponses an object, cursor a string; a task param with a whole ttl', () => {
    assert.equal(validateParams('tasks/get', { taskId: 't' }), undefined);
    assert.equal(validateParams('tasks/get', {}), 'params.taskId must be a string');
    assert.equal(validateParams('tasks/cancel', { taskId: 7 }), 'params.taskId must be a string');
    assert.equal(validateParams('tasks/result', { taskId: 't' }), undefined);
    assert.equal(validateParams('tasks/update', { taskId: 't', inputResponses: {} }), undefined);
    assert.match(
      validateParams('tasks/update', { taskId: 't' })!,
      /^params\.inputResponses must be an object/,
    );
    assert.equal(validateParams('tasks/list', { cursor: 1 }), 'params.cursor must be a string');
    assert.equal(
      validateParams(Method.ToolsCall, { name: 'x', task: { ttl: 60_000, pollInterval: 5 } }),
      undefined,
    );
    assert.equal(
      validateParams(Method.ToolsCall, { name: 'x', task: 'soon' }),
      'params.task must be an object',
    );
    assert.equal(
      validateParams(Method.ToolsCall, { name: 'x', task: { ttl: 1.5 } }),
      'params.task.ttl must be a whole number of milliseconds, or null',
    );
  });

  test('extra fields are allowed everywhere', () => {
    assert.equal(
      validateParams(Method.ToolsCall, { name: 'x', future: { a: 1 }, _meta: { x: 1 } }),
      undefined,
    );
  });
});

describe('validateParams: numbers JSON.parse could not read faithfully', () => {
  test('a non-finite number anywhere in params is refused, naming its path', () => {
    const big = JSON.parse('{"name":"add","arguments":{"a":1e400,"b":1}}');
    assert.match(
      String(validateParams(Method.ToolsCall, big)),
      /^params\.arguments\.a is Infinity, not a finite number/,
    );
    const cases: Array<[string, Params, string]> = [
      [
        Method.ToolsCall,
        { name: 'x', arguments: { list: [1, { v: -Infinity }] } },
        'params.arguments.list[1].v is -Infinity',
      ],
      [
        Method.ToolsCall,
        { name: 'x', _meta: { progressToken: 'p', cost: Infinity } },
        'params._meta.cost is Infinity',
      ],
      [Method.ResourcesRead, { uri: 'x', extra: [Infinity] }, 'params.extra[0] is Infinity'],
      [Method.PromptsGet, { name: 'x', _meta: { n: Number.NaN } }, 'params._meta.n is NaN'],
      [
        Method.Progress,
        { progressToken: 1, progress: 1, _meta: { x: Infinity } },
        'params._meta.x is Infinity',
      ],
    ];
    for (const [method, params, expected] of cases) {
      const problem = validateParams(method, params);
      assert.ok(problem?.startsWith(expected), `${method}: got ${problem}`);
    }
  });

  test('a progress token or cancelled request id beyond the safe integer range is refused', () => {
    assert.match(
      String(validateParams(Method.ToolsCall, { name: 'x', _meta: { progressToken: 2 ** 64 } })),
      /^params\._meta\.progressToken must be a safe integer/,
    );
    assert.match(
      String(validateParams(Method.Progress, { progressToken: 2 ** 53, progress: 1 })),
      /^params\.progressToken must be a safe integer/,
    );
    assert.match(
      String(validateParams(Method.Cancelled, { requestId: -(2 ** 60) })),
      /^params\.requestId must be a safe integer/,
    );
    assert.equal(validateParams(Method.Cancelled, { requestId: Number.MAX_SAFE_INTEGER }), undefined);
  });

  test('params nested deeper than a walk may go are refused rather than overflowing the stack', () => {
    const depth = 100_000;
    const deep = JSON.parse(`{"name":"x","arguments":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}`);
    assert.match(
      String(validateParams(Method.ToolsCall, deep)),
      /^params\.arguments\.a(\[0\])+ is nested more than 1000 levels deep$/,
    );
  });
});

describe('assertValidParams', () => {
  test('throws -32602 with the message that names the field', () => {
    assert.throws(
      () => assertValidParams(Method.ToolsCall, { name: 1 }),
      (err: unknown) =>
        err instanceof McpError &&
        err.code === ErrorCode.InvalidParams &&
        err.message === 'Invalid params: params.name must be a string',
    );
  });

  test('returns for valid params', () => {
    assertValidParams(Method.ToolsCall, { name: 'x' });
  });
});

describe('validateInitializeResult', () => {
  const ok = {
    protocolVersion: '2025-11-25',
    capabilities: { tools: {} },
    serverInfo: { name: 's', version: '1' },
  };

  test('accepts a well-formed result, with extra fields', () => {
    assert.equal(validateInitializeResult(ok), undefined);
    assert.equal(validateInitializeResult({ ...ok, instructions: 'use x', _meta: {}, more: 1 }), undefined);
  });

  const bad: [unknown, string][] = [
    [null, 'result must be an object'],
    [[], 'result must be an object'],
    [{ ...ok, protocolVersion: undefined }, 'result.protocolVersion must be a string'],
    [{ ...ok, capabilities: 'all' }, 'result.capabilities must be an object'],
    [{ ...ok, capabilities: { tools: true } }, 'result.capabilities.tools must be an object'],
    [{ ...ok, serverInfo: undefined }, 'result.serverInfo must be an object'],
    [{ ...ok, serverInfo: { name: 's' } }, 'result.serverInfo.version must be a string'],
    [{ ...ok, serverInfo: { version: '1' } }, 'result.serverInfo.name must be a string'],
    [{ ...ok, instructions: 1 }, 'result.instructions must be a string'],
  ];
  for (const [result, expected] of bad) {
    test(`refuses: ${expected}`, () => {
      assert.equal(validateInitializeResult(result), expected);
    });
  }
});

describe('logging levels', () => {
  test('are ordered from least to most severe', () => {
    assert.deepEqual(LOGGING_LEVELS, [
      'debug',
      'info',
      'notice',
      'warning',
      'error',
      'critical',
      'alert',
      'emergency',
    ]);
    assert.ok(LOGGING_LEVELS.indexOf('error') > LOGGING_LEVELS.indexOf('warning'));
  });

  test('isLoggingLevel', () => {
    assert.equal(isLoggingLevel('notice'), true);
    assert.equal(isLoggingLevel('Notice'), false);
    assert.equal(isLoggingLevel(3), false);
  });
});

describe('versions', () => {
  test('supports the four revisions, latest first', () => {
    assert.equal(LATEST_PROTOCOL_VERSION, '2025-11-25');
    assert.deepEqual(LEGACY_PROTOCOL_VERSIONS, ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
    for (const v of LEGACY_PROTOCOL_VERSIONS) assert.equal(isLegacyVersion(v), true);
    assert.equal(isLegacyVersion('2024-10-07'), false);
    assert.equal(isLegacyVersion(''), false);
  });

  test('negotiation keeps a supported request and otherwise offers the latest', () => {
    assert.equal(negotiateVersion('2025-06-18'), '2025-06-18');
    assert.equal(negotiateVersion('2024-11-05'), '2024-11-05');
    assert.equal(negotiateVersion('2026-01-01'), LATEST_PROTOCOL_VERSION);
    assert.equal(negotiateVersion('garbage'), LATEST_PROTOCOL_VERSION);
  });

  test('batches only in 2025-03-26', () => {
    assert.equal(acceptsBatches('2025-03-26'), true);
    assert.equal(acceptsBatches('2024-11-05'), false);
    assert.equal(acceptsBatches('2025-06-18'), false);
    assert.equal(acceptsBatches('2025-11-25'), false);
  });
});
