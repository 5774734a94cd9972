import { isIP } from 'node:net';
import { domainToUnicode } from 'node:url';

/**
 * The app name shown in an email, from the application URL (decisions.md): the host without a
 * leading `www.`, its first label, `-` and `_` read as spaces, each word capitalised.
 * `https://www.acme-shop.example.com/x` gives `Acme Shop`. No usable host gives the fallback.
 */
export function appNameFrom(applicationUrl: string | undefined, fallback: string): string {
  if (!applicationUrl) return fallback;
  let host: string;
  try {
    host = new URL(applicationUrl).hostname.toLowerCase();
  } catch {
    return fallback;
  }
  const bare = host.replace(/^\[|\]$/g, '');
  if (!bare || bare === 'localhost' || bare.endsWith('.localhost') || isIP(bare) !== 0) {
    return fallback;
  }
  // The URL parser gives an internationalised host in punycode (`xn--bcher-kva`); users read
  // `bücher`. A label that does not decode stays as it was written.
  const words = (domainToUnicode(bare) || bare)
    .replace(/^www\./, '')
    .split('.')[0]
    .split(/[-_]+/)
    .filter(Boolean);
  if (words.length === 0) return fallback;
  return words
    .map((word) => {
      const [first, ...rest] = word;
      return first.toUpperCase() + rest.join('');
    })
    .join(' ');
}
