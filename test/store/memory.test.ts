import { MemoryGameStore } from '../../src/store/memory.ts';
import { runGameStoreContract } from './gameStore.contract.ts';

runGameStoreContract('MemoryGameStore', async () => new MemoryGameStore());
import { runChallengeStoreContract } from './challengeStore.contract.ts';

runChallengeStoreContract('MemoryGameStore', async () => new MemoryGameStore());
