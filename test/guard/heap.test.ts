/**
 * The heap setting the server gives V8 at start (src/server.ts): its own unless node's command line has one.
 */
import { test } from 'node:test';
import { HEAP_GROWING_PERCENT, heapGrowingFlag } from '../../src/server.ts';

test('the server sets how far the heap grows past its live size', t => {
  t.assert.equal(heapGrowingFlag([]), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  t.assert.equal(heapGrowingFlag(['--enable-source-maps', '--max-old-space-size=512']), '--heap-growing-percent=100');
});

test("node's own heap growing flag, in either spelling, is left as it is", t => {
  for (const own of ['--heap-growing-percent=50', '--heap_growing_percent=50', '--heap-growing-percent']) {
    t.assert.equal(heapGrowingFlag(['--trace-gc', own]), undefined, own);
  }
  t.assert.equal(heapGrowingFlag(['--heap-growing-percentage-of-nothing']), '--heap-growing-percent=100');
});
