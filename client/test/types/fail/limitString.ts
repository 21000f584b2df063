// The listing's limit is an integer, not a string.
import { createChessClient } from '../../../src/index.ts';

const client = createChessClient({ baseUrl: 'http://localhost:3000' });
export const page = client.api.GET('/api/board/game', { params: { query: { limit: 'ten' } } }); // error: expected
