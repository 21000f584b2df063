/**
 * The guard-rail settings (README §Settings): API_TOKENS, API_TOKENS_FILE, RATE_LIMIT_MAX,
 * RATE_LIMIT_WINDOW_MS and CORS_ORIGINS are read and checked at start, with messages that name the setting
 * and never print a token.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'chess-config-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The ConfigError that `env` causes; fails when there is none. */
function problemOf(t: TestContext, env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    t.assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error.message;
  }
  t.assert.fail(`no ConfigError for ${JSON.stringify(env)}`);
}

test('defaults: no tokens, 300 requests per 60 s, no CORS origins', (t: TestContext) => {
  const config = loadConfig({});
  t.assert.deepEqual(config.apiTokens, []);
  t.assert.equal(config.rateLimitMax, 300);
  t.assert.equal(config.rateLimitWindowMs, 60_000);
  t.assert.deepEqual(config.corsOrigins, []);
});

test('API_TOKENS: comma-separated, trimmed, empty entries and duplicates dropped; empty means off', (t: TestContext) => {
  t.assert.deepEqual(loadConfig({ API_TOKENS: ' alpha-token-1 , beta.token_2,,alpha-token-1, ' }).apiTokens, [
    'alpha-token-1',
    'beta.token_2',
  ]);
  t.assert.deepEqual(loadConfig({ API_TOKENS: '  ' }).apiTokens, []);
  t.assert.deepEqual(loadConfig({ API_TOKENS: ',' }).apiTokens, []);
  t.assert.deepEqual(loadConfig({ API_TOKENS: 'a+b/c~d==' }).apiTokens, ['a+b/c~d==']);
});

test('API_TOKENS: a token a bearer header cannot carry is refused without printing it', (t: TestContext) => {
  for (const bad of ['has space', 'quote"d', 'semi;colon', 'eq=uals', 'ümlaut', 'x'.repeat(4097)]) {
    const message = problemOf(t, { API_TOKENS: `good-token,${bad}` });
    t.assert.match(message, /API_TOKENS entry 2/);
    t.assert.ok(!message.includes(bad), `the message prints the token: ${message}`);
  }
});

test('API_TOKENS_FILE: one token a line, # comments and blank lines ignored, merged with API_TOKENS', (t: TestContext) => {
  const dir = tempDir(t);
  const file = join(dir, 'tokens');
  writeFileSync(
    file,
    '# tokens of the service\n\nfile-token-1\n  file-token-2   # the board page\r\n#file-token-3\n\n',
  );
  const config = loadConfig({ API_TOKENS_FILE: file, API_TOKENS: 'env-token-1' });
  t.assert.deepEqual([...config.apiTokens].sort(), ['env-token-1', 'file-token-1', 'file-token-2']);
});

test('API_TOKENS_FILE: missing, unreadable or without a token is a ConfigError', (t: TestContext) => {
  const dir = tempDir(t);
  t.assert.match(
    problemOf(t, { API_TOKENS_FILE: join(dir, 'missing') }),
    /API_TOKENS_FILE '.*missing' cannot be read \(ENOENT\)/,
  );
  t.assert.match(problemOf(t, { API_TOKENS_FILE: dir }), /API_TOKENS_FILE .* cannot be read \(EISDIR\)/);
  const empty = join(dir, 'empty');
  writeFileSync(empty, '# nothing yet\n\n   \n');
  t.assert.match(problemOf(t, { API_TOKENS_FILE: empty }), /API_TOKENS_FILE .* holds no token/);
  const bad = join(dir, 'bad');
  writeFileSync(bad, 'good-token\nsecret with space\n');
  const message = problemOf(t, { API_TOKENS_FILE: bad });
  t.assert.match(message, /API_TOKENS_FILE line 2 is not a bearer token/);
  t.assert.ok(!message.includes('secret with space'));
  if (process.getuid?.() !== 0) {
    // Root reads any file, so this case only means something for other users.
    const locked = join(dir, 'locked');
    writeFileSync(locked, 'locked-token\n');
    chmodSync(locked, 0o000);
    t.assert.match(problemOf(t, { API_TOKENS_FILE: locked }), /cannot be read \(EACCES\)/);
  }
});

test('RATE_LIMIT_MAX and RATE_LIMIT_WINDOW_MS: integers; 0 turns the limit off; a zero window is refused', (t: TestContext) => {
  const config = loadConfig({ RATE_LIMIT_MAX: '0', RATE_LIMIT_WINDOW_MS: '250' });
  t.assert.deepEqual([config.rateLimitMax, config.rateLimitWindowMs], [0, 250]);
  t.assert.match(problemOf(t, { RATE_LIMIT_MAX: '-1' }), /RATE_LIMIT_MAX must be an integer/);
  t.assert.match(problemOf(t, { RATE_LIMIT_MAX: 'lots' }), /RATE_LIMIT_MAX must be an integer/);
  t.assert.match(problemOf(t, { RATE_LIMIT_WINDOW_MS: '0' }), /RATE_LIMIT_WINDOW_MS must be an integer from 1/);
  t.assert.match(problemOf(t, { RATE_LIMIT_WINDOW_MS: '1.5' }), /RATE_LIMIT_WINDOW_MS/);
});

test('CHALLENGE_TTL_S: 3600 by default; whole seconds from 1 to 7 days', (t: TestContext) => {
  t.assert.equal(loadConfig({}).challengeTtlS, 3600);
  t.assert.equal(loadConfig({ CHALLENGE_TTL_S: '120' }).challengeTtlS, 120);
  t.assert.equal(loadConfig({ CHALLENGE_TTL_S: '604800' }).challengeTtlS, 604_800);
  for (const bad of ['0', '604801', '1.5', 'an hour']) {
    t.assert.match(problemOf(t, { CHALLENGE_TTL_S: bad }), /CHALLENGE_TTL_S must be an integer from 1 to 604800/);
  }
});

test('ENGINE_PATH: any path, not checked at start; ENGINE_WORKERS: 1 by default, 1 to 256', (t: TestContext) => {
  t.assert.equal(loadConfig({}).enginePath, undefined);
  t.assert.equal(loadConfig({ ENGINE_PATH: ' ' }).enginePath, undefined);
  t.assert.equal(loadConfig({ ENGINE_PATH: '/nonexistent/stockfish' }).enginePath, '/nonexistent/stockfish');
  t.assert.equal(loadConfig({}).engineWorkers, 1);
  t.assert.equal(loadConfig({ ENGINE_WORKERS: '4' }).engineWorkers, 4);
  for (const bad of ['0', '257', '1.5', 'two']) {
    t.assert.match(problemOf(t, { ENGINE_WORKERS: bad }), /ENGINE_WORKERS must be an integer from 1 to 256/);
  }
});

test('SIGNUP: open by default, or closed; anything else is refused', (t: TestContext) => {
  t.assert.equal(loadConfig({}).signup, 'open');
  t.assert.equal(loadConfig({ SIGNUP: 'closed' }).signup, 'closed');
  t.assert.equal(loadConfig({ SIGNUP: ' open ' }).signup, 'open');
  for (const bad of ['no', 'Closed', 'off']) {
    t.assert.match(problemOf(t, { SIGNUP: bad }), /SIGNUP must be open or closed/);
  }
});

test('CORS_ORIGINS: comma-separated origins, normalized; paths, wildcards and other schemes are refused', (t: TestContext) => {
  t.assert.deepEqual(
    loadConfig({ CORS_ORIGINS: 'https://Chess.Example.org/, http://localhost:5173 ,https://a.example:443' })
      .corsOrigins,
    ['https://chess.example.org', 'http://localhost:5173', 'https://a.example'],
  );
  for (const bad of ['*', 'chess.example.org', 'https://a.example/app', 'ftp://a.example', 'https://u@a.example']) {
    t.assert.match(problemOf(t, { CORS_ORIGINS: bad }), /CORS_ORIGINS entries must be origins/, bad);
  }
});

test('TRUST_PROXY: off by default; true, a hop count, or proxy addresses and ranges', (t: TestContext) => {
  t.assert.equal(loadConfig({}).trustProxy, false);
  t.assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
  t.assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
  t.assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
  t.assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,::1,loopback' }).trustProxy, [
    '10.0.0.1',
    '192.168.0.0/16',
    '::1',
    'loopback',
  ]);
  for (const bad of [
    'yes',
    '0',
    '11',
    '10.0.0.300',
    '10.0.0.0/33',
    'fe80::/129',
    'proxy.example.org',
    '10.0.0.1/8/1',
  ]) {
    t.assert.match(problemOf(t, { TRUST_PROXY: bad }), /TRUST_PROXY must be/, bad);
  }
});

test('every problem is listed at once', (t: TestContext) => {
  const message = problemOf(t, { RATE_LIMIT_MAX: 'x', CORS_ORIGINS: '*', API_TOKENS: 'a b' });
  for (const name of ['RATE_LIMIT_MAX', 'CORS_ORIGINS', 'API_TOKENS entry 1'])
    t.assert.match(message, new RegExp(name));
});
