/**
 * The heap setting the server gives V8 at start (src/server.ts): its own, unless node is given a heap growing
 * factor or a heap limit, on its command line or in NODE_OPTIONS.
 */
import { test } from 'node:test';
import { HEAP_GROWING_PERCENT, heapGrowingFlag } from '../../src/server.ts';

test('the server sets how far the heap grows past its live size', t => {
  t.assert.equal(heapGrowingFlag([]), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  t.assert.equal(
    heapGrowingFlag(['--enable-source-maps', '--stack-size=2000'], '--enable-source-maps'),
    '--heap-growing-percent=100',
  );
  t.assert.equal(heapGrowingFlag(['--heap-growing-percentage-of-nothing']), '--heap-growing-percent=100');
});

test("node's own heap growing factor or heap limit, in either spelling and either place, is left as it is", t => {
  const own = [
    '--heap-growing-percent=50',
    '--heap_growing_percent=50',
    '--max-old-space-size=256',
    '--max_old_space_size=256',
    '--max-heap-size=300',
  ];
  for (const flag of own) {
    t.assert.equal(heapGrowingFlag(['--trace-gc', flag]), undefined, `command line: ${flag}`);
    t.assert.equal(heapGrowingFlag([], ` --trace-warnings  ${flag}`), undefined, `NODE_OPTIONS: ${flag}`);
  }
});
