import { test, type TestContext } from 'node:test';
import { compilersFactory } from '../../src/http/compilers.ts';

const { buildValidator, buildSerializer } = compilersFactory as unknown as {
  buildValidator: (
    externals: object,
    options: object,
  ) => (route: object) => ((data: unknown) => boolean) & {
    errors?: unknown;
  };
  buildSerializer: (externals: object, options: object) => (route: object) => (data: unknown) => string;
};

const Player = { $id: 'Player', type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
const route = (schema: object) => ({ schema, method: 'GET', url: '/x', httpStatus: '200' });

test('a serializer built for one app serves another with the same schemas, and is built only when first used', (t: TestContext) => {
  const options = {};
  const first = buildSerializer({ Player }, options)(route({ $ref: 'Player#' }));
  // Another app: its own externals object and route schema, the same shared schema and options objects.
  const second = buildSerializer({ Player }, options)(route({ $ref: 'Player#' }));
  t.assert.equal(second, first);
  // Fastify hands each app its own copies of the shared schemas and of the serializer's options: still the same.
  t.assert.equal(
    buildSerializer({ Player: structuredClone(Player) }, { ...options })(route({ $ref: 'Player#' })),
    first,
  );
  t.assert.equal(second({ id: 'p1', extra: 1 }), '{"id":"p1"}');

  // Another shared schema under the same id is not the same schema: its own serializer.
  const OtherPlayer = { ...Player, properties: { id: { type: 'string' }, name: { type: 'string' } } };
  const other = buildSerializer({ Player: OtherPlayer }, options)(route({ $ref: 'Player#' }));
  t.assert.notEqual(other, first);
  t.assert.equal(other({ id: 'p1', name: 'Ann' }), '{"id":"p1","name":"Ann"}');
  // Nor are other options, nor options naming another function.
  const rounded = buildSerializer({ Player }, { rounding: 'floor' })(route({ $ref: 'Player#' }));
  t.assert.notEqual(rounded, first);
  const format = (check: (text: string) => boolean) => ({
    ajv: { formats: { named: { type: 'string', validate: check } } },
  });
  const byOne = buildSerializer(
    { Player },
    format(() => true),
  )(route({ $ref: 'Player#' }));
  t.assert.notEqual(
    buildSerializer(
      { Player },
      format(() => false),
    )(route({ $ref: 'Player#' })),
    byOne,
  );

  // A schema that cannot be built fails when it is first used, not when the app starts.
  const broken = buildSerializer({ Player }, options)(route({ $ref: 'Missing#' }));
  t.assert.throws(() => broken({}), /Missing/);
});

test('a validator is built at once and shared the same way; its errors are its own call', (t: TestContext) => {
  const options = { customOptions: { coerceTypes: false } };
  const body = { httpPart: 'body', method: 'POST', url: '/x' };
  const first = buildValidator({ Player }, options)({ ...body, schema: { $ref: 'Player#' } });
  const second = buildValidator({ Player }, options)({ ...body, schema: { $ref: 'Player#' } });
  t.assert.equal(second, first);
  t.assert.equal(first({ id: 'p1' }), true);
  t.assert.equal(first({}), false);
  t.assert.match(JSON.stringify(first.errors), /required/);
  t.assert.throws(() => buildValidator({ Player }, options)({ ...body, schema: { $ref: 'Missing#' } }), /Missing/);
  // The same schema for another part of a request is built for it.
  t.assert.notEqual(
    buildValidator({ Player }, options)({ ...body, httpPart: 'querystring', schema: { $ref: 'Player#' } }),
    first,
  );
});
