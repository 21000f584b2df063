// A stream's events are a union told apart by `type`: only a gameFull event has `game`.
import { createChessClient } from '../../../src/index.ts';

const client = createChessClient({ baseUrl: 'http://localhost:3000' });

export async function gameIds(gameId: string): Promise<string[]> {
  const ids: string[] = [];
  const events = await client.stream('/api/board/game/{gameId}/stream', { params: { path: { gameId } } });
  for await (const event of events) {
    ids.push(event.game.gameId); // error: expected
  }
  return ids;
}
