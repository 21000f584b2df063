import { MemoryGameStore } from '../../src/store/memory.ts';
import { runGameStoreContract } from './gameStore.contract.ts';

runGameStoreContract('MemoryGameStore', async () => new MemoryGameStore());
import { runChallengeStoreContract } from './challengeStore.contract.ts';
import { runSeekStoreContract } from './seekStore.contract.ts';
import { runChatStoreContract } from './chatStore.contract.ts';
import { runHistoryStoreContract } from './historyStore.contract.ts';
import { runAccountStoreContract } from './accountStore.contract.ts';

runChallengeStoreContract('MemoryGameStore', async () => new MemoryGameStore());
runSeekStoreContract('MemoryGameStore', async () => new MemoryGameStore());
runChatStoreContract('MemoryGameStore', async () => new MemoryGameStore());
runHistoryStoreContract('MemoryGameStore', async () => new MemoryGameStore());
import { runRatingStoreContract } from './ratingStore.contract.ts';

runRatingStoreContract('MemoryGameStore', async () => new MemoryGameStore());
runAccountStoreContract('MemoryGameStore', async () => new MemoryGameStore());
