// Only the operations that answer NDJSON are streams: a game's JSON is not.
import { createChessClient } from '../../../src/index.ts';

const client = createChessClient({ baseUrl: 'http://localhost:3000' });
export const events = client.stream('/api/board/game/{gameId}', { params: { path: { gameId: 'abcdefgh' } } }); // error: expected
