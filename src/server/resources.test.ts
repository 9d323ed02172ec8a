import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../jsonrpc/errors.js';
import { FakeClient, settle } from '../test-support/fake-client.js';
import { Server } from './server.js';

function text(uri: string, value: string) {
  return { contents: [{ uri, mimeType: 'text/plain', text: value }] };
}

async function connected(server: Server) {
  const client = new FakeClient(server);
  await client.initialize();
  return client;
}

describe('resources/read', () => {
  test('reads a static resource by exact URI, before any template that also matches', async () => {
    const server = new Server({ name: 's', version: '1' });
    server.resourceTemplate(
      { uriTemplate: 'file:///{name}', name: 'files' },
      { read: (uri) => text(uri, 'template') },
    );
    server.resource({ uri: 'file:///readme', name: 'readme' }, (uri) => text(uri, 'static'));
    const client = await connected(server);
    assert.deepEqual(
      await client.result('resources/read', { uri: 'file:///readme' }),
      text('file:///readme', 'static'),
    );
    assert.deepEqual(
      await client.result('resources/read', { uri: 'file:///other' }),
      text('file:///other', 'template'),
    );
  });

  test('a template read gets the decoded variables; templates are tried in registration order', async () => {
    const server = new Server({ name: 's', version: '1' });
    const seen: unknown[] = [];
    server.resourceTemplate(
      { uriTemplate: 'users://{id}/posts/{post}', name: 'posts' },
      {
        read: (uri, vars) => {
          seen.push(vars);
          return text(uri, 'post');
        },
      },
    );
    const first = server.resourceTemplate(
      { uriTemplate: 'users://{id}', name: 'a' },
      { read: (uri) => text(uri, 'a') },
    );
    server.resourceTemplate({ uriTemplate: 'users://{name}', name: 'b' }, { read: (uri) => text(uri, 'b') });
    const client = await connected(server);
    await client.result('resources/read', { uri: 'users://ann%20b/posts/7' });
    assert.deepEqual(seen, [{ id: 'ann b', post: '7' }]);
    assert.equal((await client.result('resources/read', { uri: 'users://x' })).contents[0].text, 'a');
    first.disable();
    assert.equal((await client.result('resources/read', { uri: 'users://x' })).contents[0].text, 'b');
  });

  test('an unknown URI is -32002 with the URI in data', async () => {
    const server = new Server({ name: 's', version: '1' });
    server.resource({ uri: 'a://x', name: 'x' }, (uri) => text(uri, ''));
    const client = await connected(server);
    const response = await client.call('resources/read', { uri: 'a://nothing' });
    assert.deepEqual(response.error, {
      code: ErrorCode.ResourceNotFound,
      message: 'Resource not found: a://nothing',
      data: { uri: 'a://nothing' },
    });
  });

  test('duplicate URIs and templates throw; a completer for a missing variable throws', () => {
    const server = new Server({ name: 's', version: '1' });
    server.resource({ uri: 'a://x', name: 'x' }, (uri) => text(uri, ''));
    assert.throws(
      () => server.resource({ uri: 'a://x', name: 'y' }, (uri) => text(uri, '')),
      /already registered/,
    );
    server.resourceTemplate({ uriTemplate: 'a://{v}', name: 't' }, { read: (uri) => text(uri, '') });
    assert.throws(
      () => server.resourceTemplate({ uriTemplate: 'a://{v}', name: 't2' }, { read: (uri) => text(uri, '') }),
      /already registered/,
    );
    assert.throws(
      () =>
        server.resourceTemplate(
          { uriTemplate: 'b://{v}', name: 't' },
          { read: (uri) => text(uri, ''), complete: { w: () => [] } },
        ),
      /completer for "w"/,
    );
  });
});

describe('resources/list and resources/templates/list', () => {
  test('list static resources and the resources templates list, in registration order, across pages', async () => {
    const server = new Server({ name: 's', version: '1' }, { pageSize: 2 });
    server.resource({ uri: 'r://1', name: 'one', mimeType: 'text/plain' }, (uri) => text(uri, ''));
    server.resourceTemplate(
      { uriTemplate: 'u://{id}', name: 'users', description: 'Users' },
      {
        read: (uri) => text(uri, ''),
        list: () => [
          { uri: 'u://a', name: 'a' },
          { uri: 'u://b', name: 'b' },
          { uri: 'u://c', name: 'c' },
        ],
      },
    );
    server.resource({ uri: 'r://2', name: 'two' }, (uri) => text(uri, ''));
    const client = await connected(server);

    const uris: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.result('resources/list', cursor === undefined ? undefined : { cursor });
      assert.ok(page.resources.length <= 2);
      uris.push(...page.resources.map((r: { uri: string }) => r.uri));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    assert.deepEqual(uris, ['r://1', 'u://a', 'u://b', 'u://c', 'r://2']);
    assert.equal(pages, 3);

    assert.deepEqual(await client.result('resources/templates/list'), {
      resourceTemplates: [{ uriTemplate: 'u://{id}', name: 'users', description: 'Users' }],
    });
  });

  test('a resource change sends one resources/list_changed', async () => {
    const server = new Server({ name: 's', version: '1' });
    const r = server.resource({ uri: 'r://1', name: 'one' }, (uri) => text(uri, ''));
    const client = await connected(server);
    r.update({ name: 'uno' });
    server.resourceTemplate({ uriTemplate: 'x://{y}', name: 'x' }, { read: (uri) => text(uri, '') });
    await settle();
    assert.equal(client.notifications('notifications/resources/list_changed').length, 1);
    assert.equal((await client.result('resources/list')).resources[0].name, 'uno');
  });
});

describe('subscriptions', () => {
  test('resourceUpdated reaches only the sessions subscribed to that URI', async () => {
    const server = new Server({ name: 's', version: '1' });
    server.resource({ uri: 'r://watched', name: 'w' }, (uri) => text(uri, ''));
    const subscriber = await connected(server);
    const bystander = await connected(server);
    assert.deepEqual(await subscriber.result('resources/subscribe', { uri: 'r://watched' }), {});
    await bystander.result('resources/subscribe', { uri: 'r://other' });

    server.resourceUpdated('r://watched');
    await settle();
    assert.deepEqual(
      subscriber.notifications('notifications/resources/updated').map((s) => s.message.params),
      [{ uri: 'r://watched' }],
    );
    assert.equal(bystander.notifications('notifications/resources/updated').length, 0);

    await subscriber.result('resources/unsubscribe', { uri: 'r://watched' });
    server.resourceUpdated('r://watched');
    await settle();
    assert.equal(subscriber.notifications('notifications/resources/updated').length, 1);
  });

  test('the resources capability declares subscribe and listChanged', async () => {
    const server = new Server({ name: 's', version: '1' });
    server.resourceTemplate({ uriTemplate: 'x://{y}', name: 'x' }, { read: (uri) => text(uri, '') });
    const client = new FakeClient(server);
    const init = await client.initialize();
    assert.deepEqual(init.capabilities.resources, { subscribe: true, listChanged: true });
  });
});
