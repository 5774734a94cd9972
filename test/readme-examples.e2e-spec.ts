import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');

/** Blocks of one fenced language in a markdown file, in order. */
function fencedBlocks(markdown: string, language: string): string[] {
  const fence = new RegExp('^```' + language + '\\n([\\s\\S]*?)^```$', 'gm');
  return [...markdown.matchAll(fence)].map((match) => match[1]);
}

/**
 * The README shows the HAProxy configuration the soak runs: the file under examples/ is the one
 * source, and the README's copy must be that file (without its header comment), not a version
 * of it that has drifted.
 */
describe('the README’s HAProxy configuration', () => {
  it('is examples/haproxy/haproxy.cfg from its global section on', () => {
    const file = readFileSync(join(ROOT, 'examples', 'haproxy', 'haproxy.cfg'), 'utf8');
    const shown = fencedBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'), 'haproxy');
    expect(shown).toEqual([file.slice(file.indexOf('\nglobal\n') + 1)]);
  });
});
