/**
 * The client's generated files (client/openapi.json, client/src/schema.ts, client/src/streams.ts) are those the
 * served document gives now: regenerated in memory, they must equal the committed ones.
 */
import { test } from 'node:test';
import { staleClientFiles } from '../../scripts/client.ts';

test('client/ is generated from the served document', async t => {
  const stale = await staleClientFiles();
  t.assert.deepEqual(stale, [], `client/ is stale: run npm run client:generate (${stale.join(', ')} differ)`);
});
