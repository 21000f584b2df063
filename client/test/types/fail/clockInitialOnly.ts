// A real-time clock needs its increment too: {initial} alone is neither form of a clock.
import { createChessClient } from '../../../src/index.ts';

const client = createChessClient({ baseUrl: 'http://localhost:3000' });
export const created = client.api.POST('/api/board/game', { body: { clock: { initial: 300000 } } }); // error: expected
