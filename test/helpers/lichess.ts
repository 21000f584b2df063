/**
 * lichess's own JSON schemas (test/fixtures/lichess: its published API description, AGPL-3.0), for the tests of the
 * lichess dialect (DECISIONS §17): every answer and every stream line of the lichess paths is validated against
 * the schema lichess gives it.
 *
 * ```ts
 * assertLichess('GameFullEvent', line); // fails with Ajv's errors and the value
 * ```
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';

const DIR = fileURLToPath(new URL('../fixtures/lichess/schemas', import.meta.url));

// lichess's schemas are OpenAPI 3.1 flavoured JSON Schema: `format: int64`, `const`, `type: "null"`; formats are
// not what is tested, and unknown keywords are documentation.
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
for (const file of readdirSync(DIR).filter(name => name.endsWith('.json'))) {
  ajv.addSchema(JSON.parse(readFileSync(join(DIR, file), 'utf8')) as object);
}

const validators = new Map<string, ValidateFunction>();

/** The errors of `value` against lichess's schema `name` (e.g. 'GameStateEvent'), or undefined when it is valid. */
export function lichessErrors(name: string, value: unknown): string | undefined {
  let validate = validators.get(name);
  if (!validate) {
    validate = ajv.getSchema(`${name}.json`);
    assert.ok(validate, `no lichess schema ${name}`);
    validators.set(name, validate);
  }
  return validate(value) ? undefined : ajv.errorsText(validate.errors);
}

/** Asserts that `value` validates against lichess's schema `name`. */
export function assertLichess(name: string, value: unknown): void {
  const errors = lichessErrors(name, value);
  assert.equal(errors, undefined, `not lichess's ${name}: ${errors}\n${JSON.stringify(value)}`);
}
