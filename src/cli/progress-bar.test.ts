import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type BarStream, ProgressBar, renderProgress } from './progress-bar.js';

function stream(isTTY: boolean, columns?: number): BarStream & { written: string } {
  const s = {
    isTTY,
    columns,
    written: '',
    write(text: string) {
      s.written += text;
      return true;
    },
  };
  return s;
}

test('the bar shows the share done, the count and the message, cut to the width', () => {
  assert.equal(
    renderProgress({ progress: 1, total: 4, message: 'step 1' }, 80),
    '[######------------------] 25% 1/4 step 1',
  );
  assert.equal(renderProgress({ progress: 7, total: 4 }, 80), '[########################] 100% 7/4');
  assert.equal(renderProgress({ progress: 3 }, 80), 'progress 3');
  assert.equal(renderProgress({ progress: 1, total: 4, message: 'a long message' }, 10), '[######---');
});

test('on a terminal: redrawn in place, log lines above it, cleared at the end', () => {
  const out = stream(true, 40);
  const bar = new ProgressBar(out);
  bar.print('before\n');
  bar.update({ progress: 1, total: 2 });
  bar.print('[info] log\n');
  bar.clear();
  bar.clear();
  const line = '[############------------] 50% 1/2';
  assert.equal(out.written, `before\n\r\x1b[K${line}\r\x1b[K[info] log\n${line}\r\x1b[K`);
});

test('off a terminal nothing is drawn; printed lines pass through unchanged', () => {
  const out = stream(false);
  const bar = new ProgressBar(out);
  bar.update({ progress: 1, total: 2 });
  bar.print('[info] log\n');
  bar.clear();
  assert.equal(out.written, '[info] log\n');
});

test('a terminal that reports no width gets 80 columns', () => {
  const out = stream(true, 0);
  new ProgressBar(out).update({ progress: 1, total: 1, message: 'done' });
  assert.match(out.written, /100% 1\/1 done$/);
});

test('a status: drawn in place on a terminal, cut to the width; a line of its own elsewhere', () => {
  const tty = stream(true, 12);
  const bar = new ProgressBar(tty);
  bar.status('task working: a long message');
  bar.print('log\n');
  assert.equal(tty.written, '\r\x1b[Ktask workin\r\x1b[Klog\ntask workin');
  const pipe = stream(false);
  new ProgressBar(pipe).status('task working');
  assert.equal(pipe.written, 'task working\n');
});
