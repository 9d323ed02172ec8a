import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fc, fuzzRuns } from '../test-support/fuzz.js';
import { UriTemplate, type UriTemplateVariables } from './uri-template.js';

// The variables of RFC 6570 section 3.2.1. The associative arrays (`keys`, `empty_keys`) are left out:
// this implementation supports strings and lists only.
const RFC_VARS: UriTemplateVariables = {
  count: ['one', 'two', 'three'],
  dom: ['example', 'com'],
  dub: 'me/too',
  hello: 'Hello World!',
  half: '50%',
  var: 'value',
  who: 'fred',
  base: 'http://example.com/home/',
  path: '/foo/bar',
  list: ['red', 'green', 'blue'],
  v: '6',
  x: '1024',
  y: '768',
  empty: '',
  undef: undefined,
};

// RFC 6570 sections 3.2.1 to 3.2.9, without the rows that use associative arrays.
const RFC_EXPANSIONS: [string, string][] = [
  // 3.2.1 variable expansion
  ['{count}', 'one,two,three'],
  ['{count*}', 'one,two,three'],
  ['{/count}', '/one,two,three'],
  ['{/count*}', '/one/two/three'],
  ['{;count}', ';count=one,two,three'],
  ['{;count*}', ';count=one;count=two;count=three'],
  ['{?count}', '?count=one,two,three'],
  ['{?count*}', '?count=one&count=two&count=three'],
  ['{&count*}', '&count=one&count=two&count=three'],
  // 3.2.2 simple string expansion
  ['{var}', 'value'],
  ['{hello}', 'Hello%20World%21'],
  ['{half}', '50%25'],
  ['O{empty}X', 'OX'],
  ['O{undef}X', 'OX'],
  ['{x,y}', '1024,768'],
  ['{x,hello,y}', '1024,Hello%20World%21,768'],
  ['?{x,empty}', '?1024,'],
  ['?{x,undef}', '?1024'],
  ['?{undef,y}', '?768'],
  ['{var:3}', 'val'],
  ['{var:30}', 'value'],
  ['{list}', 'red,green,blue'],
  ['{list*}', 'red,green,blue'],
  // 3.2.3 reserved expansion
  ['{+var}', 'value'],
  ['{+hello}', 'Hello%20World!'],
  ['{+half}', '50%25'],
  ['{base}index', 'http%3A%2F%2Fexample.com%2Fhome%2Findex'],
  ['{+base}index', 'http://example.com/home/index'],
  ['O{+empty}X', 'OX'],
  ['O{+undef}X', 'OX'],
  ['{+path}/here', '/foo/bar/here'],
  ['here?ref={+path}', 'here?ref=/foo/bar'],
  ['up{+path}{var}/here', 'up/foo/barvalue/here'],
  ['{+x,hello,y}', '1024,Hello%20World!,768'],
  ['{+path,x}/here', '/foo/bar,1024/here'],
  ['{+path:6}/here', '/foo/b/here'],
  ['{+list}', 'red,green,blue'],
  ['{+list*}', 'red,green,blue'],
  // 3.2.4 fragment expansion
  ['{#var}', '#value'],
  ['{#hello}', '#Hello%20World!'],
  ['{#half}', '#50%25'],
  ['foo{#empty}', 'foo#'],
  ['foo{#undef}', 'foo'],
  ['{#x,hello,y}', '#1024,Hello%20World!,768'],
  ['{#path,x}/here', '#/foo/bar,1024/here'],
  ['{#path:6}/here', '#/foo/b/here'],
  ['{#list}', '#red,green,blue'],
  ['{#list*}', '#red,green,blue'],
  // 3.2.5 label expansion with dot-prefix
  ['{.who}', '.fred'],
  ['{.who,who}', '.fred.fred'],
  ['{.half,who}', '.50%25.fred'],
  ['www{.dom*}', 'www.example.com'],
  ['X{.var}', 'X.value'],
  ['X{.empty}', 'X.'],
  ['X{.undef}', 'X'],
  ['X{.var:3}', 'X.val'],
  ['X{.list}', 'X.red,green,blue'],
  ['X{.list*}', 'X.red.green.blue'],
  // 3.2.6 path segment expansion
  ['{/who}', '/fred'],
  ['{/who,who}', '/fred/fred'],
  ['{/half,who}', '/50%25/fred'],
  ['{/who,dub}', '/fred/me%2Ftoo'],
  ['{/var}', '/value'],
  ['{/var,empty}', '/value/'],
  ['{/var,undef}', '/value'],
  ['{/var,x}/here', '/value/1024/here'],
  ['{/var:1,var}', '/v/value'],
  ['{/list}', '/red,green,blue'],
  ['{/list*}', '/red/green/blue'],
  ['{/list*,path:4}', '/red/green/blue/%2Ffoo'],
  // 3.2.7 path-style parameter expansion
  ['{;who}', ';who=fred'],
  ['{;half}', ';half=50%25'],
  ['{;empty}', ';empty'],
  ['{;v,empty,who}', ';v=6;empty;who=fred'],
  ['{;v,bar,who}', ';v=6;who=fred'],
  ['{;x,y}', ';x=1024;y=768'],
  ['{;x,y,empty}', ';x=1024;y=768;empty'],
  ['{;x,y,undef}', ';x=1024;y=768'],
  ['{;hello:5}', ';hello=Hello'],
  ['{;list}', ';list=red,green,blue'],
  ['{;list*}', ';list=red;list=green;list=blue'],
  // 3.2.8 form-style query expansion
  ['{?who}', '?who=fred'],
  ['{?half}', '?half=50%25'],
  ['{?x,y}', '?x=1024&y=768'],
  ['{?x,y,empty}', '?x=1024&y=768&empty='],
  ['{?x,y,undef}', '?x=1024&y=768'],
  ['{?var:3}', '?var=val'],
  ['{?list}', '?list=red,green,blue'],
  ['{?list*}', '?list=red&list=green&list=blue'],
  // 3.2.9 form-style query continuation
  ['{&who}', '&who=fred'],
  ['{&half}', '&half=50%25'],
  ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
  ['{&x,y,empty}', '&x=1024&y=768&empty='],
  ['{&var:3}', '&var=val'],
  ['{&list}', '&list=red,green,blue'],
  ['{&list*}', '&list=red&list=green&list=blue'],
];

describe('UriTemplate.expand', () => {
  for (const [template, expected] of RFC_EXPANSIONS) {
    test(`RFC 6570: ${template}`, () => {
      assert.equal(new UriTemplate(template).expand(RFC_VARS), expected);
    });
  }

  test('encodes non-ASCII as UTF-8 and a lone surrogate as U+FFFD', () => {
    assert.equal(new UriTemplate('{v}').expand({ v: 'é😀' }), '%C3%A9%F0%9F%98%80');
    assert.equal(new UriTemplate('{+v}').expand({ v: 'a\ud800b' }), 'a%EF%BF%BDb');
  });

  test('keeps pct-encoded triplets in reserved expansion only', () => {
    assert.equal(new UriTemplate('{+v}').expand({ v: '%41%zz' }), '%41%25zz');
    assert.equal(new UriTemplate('{v}').expand({ v: '%41' }), '%2541');
  });

  test('a prefix counts characters, not UTF-16 units', () => {
    assert.equal(new UriTemplate('{v:2}').expand({ v: '😀😀😀' }), '%F0%9F%98%80%F0%9F%98%80');
  });

  test('encodes literal characters that are not allowed in a URI', () => {
    assert.equal(new UriTemplate('a b/{v}').expand({ v: 'x' }), 'a%20b/x');
  });

  test('rejects a prefix modifier on a list value', () => {
    assert.throws(() => new UriTemplate('{list:3}').expand({ list: ['a'] }), /prefix modifier ':3'.*'list'/);
  });
});

describe('UriTemplate parsing', () => {
  const malformed: [string, RegExp][] = [
    ['x://{a', /at index 4: unclosed '\{'/],
    ['x://{a{b}', /at index 4: unclosed '\{'/],
    ['x://a}', /at index 5: unmatched '\}'/],
    ['x://{}', /at index 4: empty expression/],
    ['x://{!a}', /at index 5: operator '!' is reserved/],
    ['x://{=a}', /operator '=' is reserved/],
    ['x://{a b}', /bad variable name 'a b'/],
    ['x://{a-b}', /bad variable name 'a-b'/],
    ['x://{.a.}', /bad variable name 'a\.'/],
    ['x://{a%4}', /bad variable name 'a%4'/],
    ['x://{a,}', /at index 7: empty variable name/],
    ['x://{+}', /empty variable name/],
    ['x://{a:0}', /at index 6: bad prefix modifier ':0'/],
    ['x://{a:10000}', /bad prefix modifier ':10000'/],
    ['x://{a:}', /bad prefix modifier ':'/],
    ['x://{a:3*}', /bad prefix modifier ':3\*'/],
  ];
  for (const [template, message] of malformed) {
    test(`rejects ${template}`, () => {
      assert.throws(() => new UriTemplate(template), message);
    });
  }

  test('rejects a template past the length limit', () => {
    assert.throws(() => new UriTemplate('x'.repeat(9000)), /limit is 8192/);
    assert.doesNotThrow(() => new UriTemplate('x'.repeat(9000), { maxTemplateLength: 10000 }));
  });

  test('lists each variable name once, in order', () => {
    const t = new UriTemplate('x://{a}/{+b,c*}{?a,d:3}{#e}');
    assert.deepEqual(t.variableNames, ['a', 'b', 'c', 'd', 'e']);
    assert.equal(t.toString(), 'x://{a}/{+b,c*}{?a,d:3}{#e}');
  });

  test('accepts dotted and pct-encoded variable names', () => {
    const t = new UriTemplate('{a.b}/{%41_1}');
    assert.deepEqual(t.variableNames, ['a.b', '%41_1']);
    assert.equal(t.expand({ 'a.b': 'x', '%41_1': 'y' }), 'x/y');
  });
});

describe('UriTemplate.match', () => {
  const matches: [string, string, Record<string, string | string[]>][] = [
    ['demo://items/{id}', 'demo://items/42', { id: '42' }],
    ['demo://items/{id}/meta', 'demo://items/a.b~c_d/meta', { id: 'a.b~c_d' }],
    ['x://{a}-{b}', 'x://p-q', { a: 'p', b: 'q' }],
    ['x://{a}-{b}', 'x://p-q-r', { a: 'p', b: 'q-r' }],
    ['x://{a}.{b}/{c}', 'x://1.2/3', { a: '1', b: '2', c: '3' }],
    ['x://{a}{b}', 'x://pq', { a: 'pq' }],
    ['file:///{+path}', 'file:///a/b/c.txt', { path: 'a/b/c.txt' }],
    ['file:///{+path}/raw', 'file:///a/b/raw', { path: 'a/b' }],
    ['x://{+a}/{+b}', 'x://p/q/r', { a: 'p', b: 'q/r' }],
    ['x://r{/a*}', 'x://r/a/b/c', { a: ['a', 'b', 'c'] }],
    ['x://r{/a*}', 'x://r/a', { a: ['a'] }],
    ['x://r{/a*}', 'x://r', {}],
    ['x://r{/a,b}', 'x://r/p/q', { a: 'p', b: 'q' }],
    ['x://r{/a}{/b}', 'x://r/p/q', { a: 'p', b: 'q' }],
    ['x://r{/a*}{?q}', 'x://r/p/q?q=1', { a: ['p', 'q'], q: '1' }],
    ['x://r{/list}', 'x://r/red,green', { list: ['red', 'green'] }],
    ['api://search{?q,limit}', 'api://search?q=cats&limit=10', { q: 'cats', limit: '10' }],
    ['api://search{?q,limit}', 'api://search?limit=10&q=cats', { q: 'cats', limit: '10' }],
    ['api://search{?q,limit}', 'api://search?limit=10', { limit: '10' }],
    ['api://search{?q,limit}', 'api://search', {}],
    ['api://search{?q,limit}', 'api://search?q=', { q: '' }],
    ['api://search{?q}{&limit}', 'api://search?limit=1&q=x', { q: 'x', limit: '1' }],
    ['api://search?fixed=1{&q}', 'api://search?fixed=1&q=x', { q: 'x' }],
    ['api://search{?tag*}', 'api://search?tag=a&tag=b', { tag: ['a', 'b'] }],
    ['api://search{?tag}', 'api://search?tag=a,b', { tag: ['a', 'b'] }],
    ['x://m{;a,b}', 'x://m;b=2;a', { a: '', b: '2' }],
    ['x://page{#frag}', 'x://page#sec/1,2', { frag: 'sec/1,2' }],
    ['x://page{#frag}', 'x://page#', { frag: '' }],
    ['x://page{#frag}', 'x://page', {}],
    ['x://{+base}{#frag}', 'x://a/b#c', { base: 'a/b', frag: 'c' }],
    ['x://{name}', 'x://Hello%20World%21', { name: 'Hello World!' }],
    ['x://{name}', 'x://caf%C3%A9', { name: 'café' }],
    ['x://{name}', 'x://café', { name: 'café' }],
    ['file:///{+path}', 'file:///a%20b/c%2Fd', { path: 'a b/c/d' }],
    ['x://{a}/{a}', 'x://p/q', { a: 'p' }],
    ['x://{a:2}/{a}', 'x://va/value', { a: 'value' }],
    ['x://{a:2}', 'x://va', { a: 'va' }],
    ['x://items/{id}', 'x://items/', {}],
    ['x://{__proto__}', 'x://p', { ['__proto__']: 'p' }],
  ];
  for (const [template, uri, expected] of matches) {
    test(`${template} matches ${uri}`, () => {
      assert.deepEqual(new UriTemplate(template).match(uri), expected);
    });
  }

  test('a __proto__ variable is an own property, not the prototype', () => {
    const vars = new UriTemplate('x://{__proto__}').match('x://p')!;
    assert.equal(Object.getPrototypeOf(vars), Object.prototype);
    assert.ok(Object.hasOwn(vars, '__proto__'));
  });

  const mismatches: [string, string][] = [
    ['demo://items/{id}', 'demo://other/42'],
    ['demo://items/{id}', 'demo://items/4/2'],
    ['demo://items/{id}', 'demo://items/a?b'],
    ['demo://items/{id}', 'demo://items/a#b'],
    ['demo://items/{id}', 'demo://items/a b'],
    ['demo://items/{id}/meta', 'demo://items/42/other'],
    ['x://{a}.json', 'x://a/b.json'],
    ['x://{a}', 'x://%zz'],
    ['x://{a}', 'x://%4'],
    ['x://{a}', 'x://%FF'],
    ['api://search{?q,limit}', 'api://search?q=a&other=b'],
    ['api://search{?q,limit}', 'api://search?q=a&q=b'],
    ['api://search{?q}', 'api://search?q=a?b'],
    ['x://r{/a,b}', 'x://r/p/q/r'],
    // Shortest extent, never revisited: `a` stops before the first '/x', which leaves '/x' over.
    ['x://{/a}/x', 'x:///x/x'],
    ['x://page{#frag}', 'x://page#a b'],
    ['x://{a}', 'x://'.padEnd(70_000, 'a')],
  ];
  for (const [template, uri] of mismatches) {
    test(`${template} does not match ${uri.length > 60 ? `a ${uri.length}-character URI` : uri}`, () => {
      assert.equal(new UriTemplate(template).match(uri), undefined);
    });
  }

  test('the URI length limit is an option', () => {
    const uri = 'x://'.padEnd(70_000, 'a');
    assert.equal(new UriTemplate('x://{a}', { maxUriLength: 100_000 }).match(uri)?.a, uri.slice(4));
  });
});

describe('UriTemplate round trip', () => {
  // Arbitrary text, ASCII-heavy but with any code point (no lone surrogates: those are encoded as U+FFFD).
  const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }));
  const nonEmpty = fc.oneof(fc.string({ minLength: 1 }), fc.string({ unit: 'binary', minLength: 1 }));
  // Reserved expansion leaves existing pct-triplets as they are, so '%' cannot round-trip there.
  const noPercent = (s: string) => !s.includes('%');
  const list = fc.array(text, { minLength: 2, maxLength: 5 });

  const cases: [string, fc.Arbitrary<UriTemplateVariables>][] = [
    ['x://items/{a}/{b}', fc.record({ a: nonEmpty, b: nonEmpty })],
    ['x://{a}', fc.record({ a: fc.oneof(nonEmpty, list) })],
    ['file:///{+path}', fc.record({ path: nonEmpty.filter(noPercent) })],
    ['x://r{/seg*}', fc.record({ seg: fc.array(text, { minLength: 1, maxLength: 5 }) })],
    ['x://r{/seg*}{?q,limit}', fc.record({ seg: fc.array(text, { minLength: 1 }), q: text, limit: text })],
    ['api://search{?q,limit}', fc.record({ q: text, limit: text }, { requiredKeys: [] })],
    ['api://search{?tag*}', fc.record({ tag: fc.array(text, { minLength: 1, maxLength: 5 }) })],
    ['x://m{;a,b}', fc.record({ a: text, b: fc.oneof(text, list) }, { requiredKeys: [] })],
    ['x://page{#frag}', fc.record({ frag: text.filter(noPercent) })],
  ];
  for (const [template, values] of cases) {
    test(`match(expand(v)) gives v back for ${template}`, () => {
      const t = new UriTemplate(template);
      fc.assert(
        fc.property(values, (v) => {
          // fast-check builds records without a prototype; match returns plain objects.
          assert.deepEqual(t.match(t.expand(v)), { ...v });
        }),
        fuzzRuns(300),
      );
    });
  }
});

describe('UriTemplate.match runs in linear time', () => {
  const n = 100_000;
  const options = { maxUriLength: 1 << 20 };
  // Each row would make a regex built from the template backtrack catastrophically.
  const adversarial: [string, string, boolean][] = [
    ['x://{a}{b}{c}', 'x://' + 'a'.repeat(n) + '/', false],
    ['x://{a}{b}{c}', 'x://' + ','.repeat(n), true],
    ['{+a}/{+b}/{+c}/z', '/'.repeat(n), false],
    ['{+a}/{+b}/{+c}/z', 'x/'.repeat(n / 2) + 'z', true],
    ['x://{a}-{b}-{c}-{d}.json', 'x://' + '-'.repeat(n) + '.jso', false],
    ['x://{+a}{/b*}{?q,r}{#f}', 'x://' + '/?&=#'.repeat(n / 5) + '\u0000', false],
    ['x://r{/a*}{?q}', 'x://r' + '/a'.repeat(n / 2), true],
    ['api://s{?q,limit}', 'api://s?' + '&'.repeat(n) + 'q=1', true],
  ];
  for (const [template, uri, fits] of adversarial) {
    test(`${template} on ${uri.length} adversarial characters`, () => {
      const t = new UriTemplate(template, options);
      const started = performance.now();
      const result = t.match(uri);
      const elapsed = performance.now() - started;
      assert.equal(result !== undefined, fits);
      assert.ok(elapsed < 2000, `took ${elapsed} ms`);
    });
  }
});
