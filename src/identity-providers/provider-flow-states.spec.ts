import { Repository } from 'typeorm';
import { JwtConfig } from '../config/config.sections';
import { Database } from '../database/database.service';
import { FLOW_TTL_SECONDS, ProviderFlowStates, NewFlow } from './provider-flow-states.service';
import { FinishedFlow } from './finished-flow.entity';

const SECRET = 'a-refresh-secret-0123456789-abcdefghijklmnop';
const BROWSER = 'b'.repeat(43);
const FLOW: NewFlow = {
  provider: 'corp',
  purpose: 'link',
  userId: 'user_1',
  tokenVersion: 3,
  sessionId: null,
  redirectTo: 'http://localhost:5173/?linked=corp',
  browser: BROWSER,
};

/** An instance's flows over a table of finished ids (shared by instances when given). */
function statesOver(secret = SECRET, ids = new Set<string>()) {
  const table = {
    existsBy: ({ id }: { id: string }) => Promise.resolve(ids.has(id)),
    insert: (row: { id: string }) => {
      if (ids.has(row.id)) {
        return Promise.reject(
          Object.assign(new Error('Duplicate entry'), { code: 'ER_DUP_ENTRY' }),
        );
      }
      ids.add(row.id);
      return Promise.resolve();
    },
  };
  const database = {
    run: (work: (manager: unknown) => unknown) => work({ withRepository: () => table }),
  } as unknown as Database;
  const states = new ProviderFlowStates(table as unknown as Repository<FinishedFlow>, database, {
    refreshSecret: secret,
  } as JwtConfig);
  return { states, ids };
}

describe('identity-provider flows carried sealed in their state', () => {
  it('writes nothing to start; the browser that began it takes it, on any instance, until finished', async () => {
    const { states, ids } = statesOver();
    const opened = states.open(FLOW);
    expect(ids.size).toBe(0);
    // Sealed: nothing of the flow reads in the state, the PKCE verifier least of all.
    const plain = Buffer.from(opened.state, 'base64url').toString('latin1');
    for (const secret of [opened.codeVerifier, opened.nonce, 'user_1', 'localhost']) {
      expect(plain.includes(secret)).toBe(false);
    }
    const other = statesOver(SECRET, ids).states;
    const flow = await other.take(opened.state, BROWSER);
    expect(flow).toMatchObject({
      provider: 'corp',
      purpose: 'link',
      userId: 'user_1',
      tokenVersion: 3,
      codeVerifier: opened.codeVerifier,
      nonce: opened.nonce,
      redirectTo: FLOW.redirectTo,
    });
    expect(await states.take(opened.state, 'c'.repeat(43))).toBeNull();
    expect(await states.take(opened.state, undefined)).toBeNull();
    expect(await states.redirectOf(opened.state)).toBe(FLOW.redirectTo);

    expect(await states.finish(opened.state, flow!)).toBe(true);
    expect(await other.finish(opened.state, flow!)).toBe(false);
    expect(await states.take(opened.state, BROWSER)).toBeNull();
    expect(await other.redirectOf(opened.state)).toBeUndefined();
  });

  it('opens nothing altered, expired, respelled or sealed by another secret', async () => {
    const { states } = statesOver();
    const { state } = states.open(FLOW);
    const altered = Buffer.from(state, 'base64url');
    altered[20] ^= 1;
    expect(await states.take(altered.toString('base64url'), BROWSER)).toBeNull();
    expect(await states.redirectOf(altered.toString('base64url'))).toBeUndefined();
    const respelled = `${state}=`;
    expect(Buffer.from(respelled, 'base64url')).toEqual(Buffer.from(state, 'base64url'));
    expect(await states.take(respelled, BROWSER)).toBeNull();
    const elsewhere = statesOver('another-services-secret-0123456789-abcdefgh').states;
    expect(await elsewhere.take(state, BROWSER)).toBeNull();

    // Late: no flow, but the person may still be sent back to the app it named.
    const late = states.open(FLOW, new Date(Date.now() - FLOW_TTL_SECONDS * 1000));
    expect(await states.take(late.state, BROWSER)).toBeNull();
    expect(await states.redirectOf(late.state)).toBe(FLOW.redirectTo);
  });
});
