/**
 * Challenges (DECISIONS §16), in lichess's shapes: `POST /api/challenge/{playerId}` and `/api/challenge/open` make
 * one, `/accept`, `/decline` and `/cancel` answer it, `GET /api/challenge` lists a player's pending ones and
 * `GET /api/challenge/{id}/show` shows one. Bodies come as JSON or as forms (`application/x-www-form-urlencoded`,
 * what lichess clients send): the form parser is this plugin's own, so that no other route takes forms. Every
 * operation needs a player token: 401 without a token when authentication is on, 403 FORBIDDEN for a service token
 * or with authentication off.
 */
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ChallengeJson, ChallengeList, ChallengeRequest, DeclineRequest } from '../../contract/challenges.ts';
import { ref } from '../../contract/shapes.ts';
import type { ChallengeService } from '../../service/challenges.ts';
import { operation } from '../schemas.ts';
import { OK, okAction } from '../okAction.ts';
import { withOrigin } from '../../service/challengeViews.ts';

export interface ChallengeRoutesOptions {
  challenges: ChallengeService;
}

const PlayerParams = Type.Object({
  playerId: Type.String({ minLength: 1, maxLength: 64, description: 'the id of the player challenged' }),
});
const ChallengeParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: "the challenge's id" }),
});

const tag = { tag: 'challenges' } as const;
/** The request's own origin: a challenge's url is absolute under it when PUBLIC_URL is not set (DECISIONS §17). */
const originOf = (request: { protocol: string; host: string }) => `${request.protocol}://${request.host}`;
const body = { body: Type.Optional(ref(ChallengeRequest)) };
const viewerOf = (actor: { kind: string; player?: { id: string } }) =>
  actor.kind === 'player' ? actor.player?.id : undefined;

/**
 * Lets the plugin's routes take forms (`application/x-www-form-urlencoded`, what lichess clients send) beside JSON:
 * a form's fields as an object of strings (a key sent twice: its last value). Every field of these bodies is
 * optional, and so is the body: none is an empty one. A JSON `null` is an absent field (DECISIONS §16a: berserk
 * sends `null` for every parameter not given), at any depth.
 */
export function acceptForms(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, text, done) => {
    const fields = Object.fromEntries(new URLSearchParams(text as string));
    done(null, Object.keys(fields).length === 0 ? undefined : fields);
  });
  app.addHook('preValidation', async request => {
    request.body = withoutNulls(request.body) ?? {};
  });
}

/** A body with its `null` fields left out, in nested objects too; `null` itself is no body. */
function withoutNulls(value: unknown): unknown {
  if (value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) return value;
  const kept: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) if (field !== null) kept[key] = withoutNulls(field);
  return kept;
}

export const challengeRoutes: FastifyPluginAsync<ChallengeRoutesOptions> = async (fastify, { challenges }) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  acceptForms(app);

  app.post(
    '/challenge/open',
    {
      schema: operation(
        'createOpenChallenge',
        'Make an open challenge, which any other player may accept by its id',
        body,
        { 200: ref(ChallengeJson) },
        [400, 401, 403, 429],
        tag,
      ),
    },
    async request => {
      const made = await challenges.create(request.actor, null, request.body);
      return withOrigin(challenges.view(made, viewerOf(request.actor)), originOf(request));
    },
  );

  app.post(
    '/challenge/:playerId',
    {
      schema: operation(
        'createChallenge',
        'Challenge a player',
        { params: PlayerParams, ...body },
        { 200: ref(ChallengeJson) },
        [400, 401, 403, 404, 429],
        tag,
      ),
    },
    async request => {
      const made = await challenges.create(request.actor, request.params.playerId, request.body);
      return withOrigin(challenges.view(made, viewerOf(request.actor)), originOf(request));
    },
  );

  app.get(
    '/challenge',
    {
      schema: operation(
        'listChallenges',
        "The player's pending challenges, received and made",
        {},
        { 200: ref(ChallengeList) },
        [401, 403, 429],
        tag,
      ),
    },
    async request => {
      const viewer = viewerOf(request.actor);
      const pending = await challenges.list(request.actor);
      return {
        in: pending.in.map(challenge => withOrigin(challenges.view(challenge, viewer), originOf(request))),
        out: pending.out.map(challenge => withOrigin(challenges.view(challenge, viewer), originOf(request))),
      };
    },
  );

  app.get(
    '/challenge/:id/show',
    {
      schema: operation(
        'showChallenge',
        'Show a challenge',
        { params: ChallengeParams },
        { 200: ref(ChallengeJson) },
        [400, 401, 403, 404, 429],
        tag,
      ),
    },
    async request => {
      const challenge = await challenges.show(request.actor, request.params.id);
      return withOrigin(challenges.view(challenge, viewerOf(request.actor)), originOf(request));
    },
  );

  // The answers to a challenge: alike but for the path, the operation and the service's call.
  okAction(app, {
    method: 'POST',
    url: '/challenge/:id/accept',
    schema: operation(
      'acceptChallenge',
      'Accept a challenge: the game starts (gameStart to both players)',
      { params: ChallengeParams },
      OK,
      [401, 403, 404, 429],
      tag,
    ),
    act: request => challenges.accept(request.actor, request.params.id),
  });
  okAction(app, {
    method: 'POST',
    url: '/challenge/:id/decline',
    schema: operation(
      'declineChallenge',
      'Decline a challenge (the challenged player), with an optional reason',
      { params: ChallengeParams, body: Type.Optional(ref(DeclineRequest)) },
      OK,
      [400, 401, 403, 404, 429],
      tag,
    ),
    act: request => challenges.decline(request.actor, request.params.id, request.body.reason),
  });
  okAction(app, {
    method: 'POST',
    url: '/challenge/:id/cancel',
    schema: operation(
      'cancelChallenge',
      "Cancel a challenge (the challenger); the challenged player's cancel declines it",
      { params: ChallengeParams },
      OK,
      [401, 403, 404, 429],
      tag,
    ),
    act: request => challenges.cancel(request.actor, request.params.id),
  });
};
