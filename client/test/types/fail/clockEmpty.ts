// A clock needs one of its two forms: {initial, increment} or {daysPerMove}; an empty one is no clock.
import { createChessClient } from '../../../src/index.ts';

const client = createChessClient({ baseUrl: 'http://localhost:3000' });
export const created = client.api.POST('/api/board/game', { body: { clock: {} } }); // error: expected
