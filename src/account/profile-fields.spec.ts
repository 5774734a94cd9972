import { MAX_PICTURE_LENGTH, cleanName, nameProblem, normalizePicture } from './profile-fields';

describe('display names', () => {
  it('are stored trimmed and in NFC, and empty clears them', () => {
    expect(cleanName('  Ann  ')).toBe('Ann');
    expect(cleanName('Jose\u0301')).toBe('José');
    expect(cleanName('   ')).toBeNull();
    expect(cleanName('')).toBeNull();
    expect(cleanName(null)).toBeNull();
  });

  it('count characters, not UTF-16 units, after trimming', () => {
    expect(nameProblem('😀'.repeat(100))).toBeUndefined();
    expect(nameProblem(`  ${'a'.repeat(100)}  `)).toBeUndefined();
    expect(nameProblem('a'.repeat(101))).toMatch(/at most 100 characters/);
    // 100 characters once composed, 200 code points before.
    expect(nameProblem('e\u0301'.repeat(100))).toBeUndefined();
  });

  it('refuse control characters and other types', () => {
    expect(nameProblem('Ann\nBcc: x')).toMatch(/control characters/);
    expect(nameProblem('Ann\u0000')).toMatch(/control characters/);
    expect(nameProblem(42)).toMatch(/string or null/);
    expect(nameProblem(null)).toBeUndefined();
  });
});

describe('picture URLs', () => {
  it('accept https URLs in their normal form', () => {
    expect(normalizePicture('https://cdn.example.com/a.png')).toBe('https://cdn.example.com/a.png');
    expect(normalizePicture('HTTPS://CDN.Example.com')).toBe('https://cdn.example.com/');
    expect(normalizePicture('https://bücher.example/ä.png')).toBe(
      'https://xn--bcher-kva.example/%C3%A4.png',
    );
  });

  it('refuse every other scheme', () => {
    for (const url of [
      'http://cdn.example.com/a.png',
      'javascript:alert(1)',
      'data:image/png;base64,AAAA',
      'ftp://example.com/a.png',
      'file:///etc/passwd',
      '//cdn.example.com/a.png',
      '/a.png',
      'not a url',
    ]) {
      expect({ url, result: normalizePicture(url) }).toEqual({ url, result: undefined });
    }
  });

  it('refuse credentials, white space, control characters and other types', () => {
    expect(normalizePicture('https://user:pass@cdn.example.com/a.png')).toBeUndefined();
    expect(normalizePicture('https://user@cdn.example.com/a.png')).toBeUndefined();
    expect(normalizePicture('https://cdn.example.com/a b.png')).toBeUndefined();
    expect(normalizePicture(' https://cdn.example.com/a.png')).toBeUndefined();
    expect(normalizePicture('https://cdn.example.com/a\u0007.png')).toBeUndefined();
    expect(normalizePicture(42)).toBeUndefined();
    expect(normalizePicture(null)).toBeUndefined();
  });

  it('refuse more than 2048 characters, as typed and as stored', () => {
    const base = 'https://cdn.example.com/';
    const longest = base + 'a'.repeat(MAX_PICTURE_LENGTH - base.length);
    expect(normalizePicture(longest)).toBe(longest);
    expect(normalizePicture(`${longest}a`)).toBeUndefined();
    // Short as typed, longer once percent-encoded.
    const grows = base + 'é'.repeat(700);
    expect(grows.length).toBeLessThan(MAX_PICTURE_LENGTH);
    expect(normalizePicture(grows)).toBeUndefined();
  });
});
