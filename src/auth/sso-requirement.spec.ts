import { AppException } from '../common/errors/app.exception';
import { IdentityProvider } from '../config/config.sections';
import { SsoRequirement } from './sso-requirement';

describe('a domain that signs in through its provider only', () => {
  const provider = (id: string, domain: string, ssoRequired: boolean) =>
    ({ id, domains: [domain], ssoRequired }) as unknown as IdentityProvider;
  const sso = new SsoRequirement({
    providers: [
      provider('strict', 'strict.example', true),
      provider('strict-eu', 'strict.eu.example', true),
      provider('acme', 'acme.example', false),
    ],
  });
  const codeOf = (work: () => void) => {
    try {
      work();
      return 'allowed';
    } catch (error) {
      return error instanceof AppException ? `${error.status} ${error.code}` : String(error);
    }
  };

  it('refuses its addresses every other way in, however the domain is spelled', () => {
    expect(codeOf(() => sso.refuse('bo@STRICT.example'))).toBe('403 SSO_REQUIRED');
    expect(codeOf(() => sso.refuse('bo@acme.example'))).toBe('allowed');
  });

  it('keeps an account on its provider: another address of it, never one outside', () => {
    const leave = (from: string, to: string) => codeOf(() => sso.refuseLeaving(from, to));
    expect(leave('bo@strict.example', 'bo.lee@Strict.Example')).toBe('allowed');
    expect(leave('bo@strict.example', 'bo@gmail.example')).toBe('403 SSO_REQUIRED');
    expect(leave('bo@strict.example', 'bo@acme.example')).toBe('403 SSO_REQUIRED');
    expect(leave('bo@strict.example', 'bo@strict.eu.example')).toBe('403 SSO_REQUIRED');
    expect(leave('bo@acme.example', 'bo@gmail.example')).toBe('allowed');
    expect(leave('bo@gmail.example', 'bo@strict.example')).toBe('allowed');
  });
});
