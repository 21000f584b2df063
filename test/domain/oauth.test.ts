/**
 * OAuth requests judged (DECISIONS §20; RFC 6749 4.1.2.1, RFC 7636 4.4.1), as tables: every parameter of an
 * authorization request missing or wrong, and the answer: shown on the page (never redirected) or sent back to the
 * app with the RFC's error; and every field of a token request.
 */
import { test, type TestContext } from 'node:test';
import { judgeAuthorization, judgeTokenRequest, OAuthError, usableRedirect } from '../../src/domain/oauth.ts';

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const GOOD = {
  response_type: 'code',
  client_id: 'example.org',
  redirect_uri: 'https://example.org/callback',
  code_challenge_method: 'S256',
  code_challenge: CHALLENGE,
  scope: 'board:play challenge:read',
  state: 'xyz',
};

type Expected = { show: RegExp } | { error: string };

test('authorization requests: each parameter missing or wrong gets the RFC answer', (t: TestContext) => {
  const cases: Array<[string, Record<string, unknown>, Expected]> = [
    ['client_id missing', { client_id: undefined }, { show: /no client_id/ }],
    ['client_id empty', { client_id: '' }, { show: /no client_id/ }],
    ['client_id repeated', { client_id: ['a', 'b'] }, { show: /more than once/ }],
    ['client_id too long', { client_id: 'x'.repeat(201) }, { show: /not a name/ }],
    ['client_id with a control character', { client_id: 'a\u0000b' }, { show: /not a name/ }],
    ['redirect_uri missing', { redirect_uri: undefined }, { show: /no redirect_uri/ }],
    [
      'redirect_uri repeated',
      { redirect_uri: ['https://a.example/', 'https://b.example/'] },
      { show: /more than once/ },
    ],
    ['redirect_uri relative', { redirect_uri: '/callback' }, { show: /cannot be sent back/ }],
    ['redirect_uri with a fragment', { redirect_uri: 'https://example.org/cb#x' }, { show: /cannot be sent back/ }],
    ['redirect_uri javascript:', { redirect_uri: 'javascript:alert(1)' }, { show: /cannot be sent back/ }],
    ['redirect_uri data:', { redirect_uri: 'data:text/html,hi' }, { show: /cannot be sent back/ }],
    ['redirect_uri with a user', { redirect_uri: 'https://me@example.org/' }, { show: /cannot be sent back/ }],
    ['response_type missing', { response_type: undefined }, { error: 'invalid_request' }],
    ['response_type token', { response_type: 'token' }, { error: 'unsupported_response_type' }],
    ['code_challenge_method missing', { code_challenge_method: undefined }, { error: 'invalid_request' }],
    ['code_challenge_method plain', { code_challenge_method: 'plain' }, { error: 'invalid_request' }],
    ['code_challenge_method s256 (case)', { code_challenge_method: 's256' }, { error: 'invalid_request' }],
    ['code_challenge missing', { code_challenge: undefined }, { error: 'invalid_request' }],
    ['code_challenge too short', { code_challenge: 'abc' }, { error: 'invalid_request' }],
    ['code_challenge not base64url', { code_challenge: `${CHALLENGE.slice(0, 42)}+` }, { error: 'invalid_request' }],
    ['code_challenge repeated', { code_challenge: [CHALLENGE, CHALLENGE] }, { error: 'invalid_request' }],
    ['scope unknown', { scope: 'board:play email:read' }, { error: 'invalid_scope' }],
    ['state repeated', { state: ['a', 'b'] }, { error: 'invalid_request' }],
    ['state too long', { state: 'x'.repeat(1001) }, { error: 'invalid_request' }],
  ];
  for (const [name, change, expected] of cases) {
    const query: Record<string, unknown> = { ...GOOD, ...change };
    for (const key of Object.keys(query)) if (query[key] === undefined) delete query[key];
    const judged = judgeAuthorization(query);
    if ('show' in expected) {
      t.assert.equal(judged.kind, 'show', name);
      if (judged.kind === 'show') t.assert.match(judged.message, expected.show, name);
    } else {
      t.assert.equal(judged.kind, 'redirect', name);
      if (judged.kind === 'redirect') {
        t.assert.equal(judged.error, expected.error, name);
        t.assert.equal(judged.redirectUri, GOOD.redirect_uri, name);
        t.assert.equal(judged.state, name.startsWith('state') ? undefined : 'xyz', `${name}: the state goes back`);
      }
    }
  }
});

test('a good authorization request asks for consent, with its scopes; no scope asks only who the person is', (t: TestContext) => {
  t.assert.deepEqual(judgeAuthorization(GOOD), {
    kind: 'consent',
    request: {
      clientId: 'example.org',
      redirectUri: 'https://example.org/callback',
      challenge: CHALLENGE,
      scopes: ['board:play', 'challenge:read'],
      state: 'xyz',
    },
  });
  const { scope: _scope, state: _state, ...bare } = GOOD;
  t.assert.deepEqual(judgeAuthorization(bare), {
    kind: 'consent',
    request: {
      clientId: 'example.org',
      redirectUri: GOOD.redirect_uri,
      challenge: CHALLENGE,
      scopes: [],
      state: undefined,
    },
  });
  t.assert.equal(usableRedirect('http://127.0.0.1:8000/cb'), true);
  t.assert.equal(usableRedirect('org.example.app:/cb'), true, 'a native app’s own scheme (RFC 8252)');
  t.assert.equal(usableRedirect('myapp:/cb'), false, 'a scheme without a dot could be anyone’s');
});

test('token requests: each field missing or wrong is RFC 6749 5.2’s error', (t: TestContext) => {
  const good = {
    grant_type: 'authorization_code',
    code: 'liu_abc',
    code_verifier: 'v'.repeat(43),
    redirect_uri: 'https://example.org/callback',
    client_id: 'example.org',
  };
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['grant_type missing', { grant_type: undefined }, 'invalid_request'],
    ['grant_type password', { grant_type: 'password' }, 'unsupported_grant_type'],
    ['code missing', { code: undefined }, 'invalid_request'],
    ['code_verifier missing', { code_verifier: undefined }, 'invalid_request'],
    ['code_verifier too short', { code_verifier: 'v'.repeat(42) }, 'invalid_request'],
    ['code_verifier too long', { code_verifier: 'v'.repeat(129) }, 'invalid_request'],
    ['code_verifier bad character', { code_verifier: `${'v'.repeat(42)}!` }, 'invalid_request'],
    ['redirect_uri missing', { redirect_uri: undefined }, 'invalid_request'],
    ['client_id missing', { client_id: undefined }, 'invalid_request'],
    ['code repeated', { code: ['a', 'b'] }, 'invalid_request'],
  ];
  for (const [name, change, error] of cases) {
    const body: Record<string, unknown> = { ...good, ...change };
    for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
    t.assert.throws(
      () => judgeTokenRequest(body),
      (thrown: unknown) => thrown instanceof OAuthError && thrown.error === error,
      name,
    );
  }
  t.assert.deepEqual(judgeTokenRequest(good), {
    code: 'liu_abc',
    verifier: 'v'.repeat(43),
    redirectUri: good.redirect_uri,
    clientId: 'example.org',
  });
});
