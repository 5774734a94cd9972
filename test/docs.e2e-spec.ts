import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = join(__dirname, '..');
const README = join(ROOT, 'README.md');
const DOCS = join(ROOT, 'docs');
const read = (file: string) => readFileSync(file, 'utf8');
const pages = () =>
  [README, ...readdirSync(DOCS).filter((name) => name.endsWith('.md'))].map((name) =>
    name === README ? README : join(DOCS, name),
  );

/** Blocks of one fenced language in a markdown file, in order. */
function fencedBlocks(markdown: string, language: string): string[] {
  const fence = new RegExp('^```' + language + '\\n([\\s\\S]*?)^```$', 'gm');
  return [...markdown.matchAll(fence)].map((match) => match[1]);
}

/** The markdown without its fenced blocks and inline code, where links are not links. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces as dashes. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, text] of prose(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = markdownText(text)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

const markdownText = (heading: string) =>
  heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '');

function links(markdown: string): string[] {
  const found = [...prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]);
  return found.filter((target) => !/^[a-z]+:/.test(target));
}

describe('the README, a front door', () => {
  const readme = read(README);

  it('is at most 300 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('opens with the two commands, which are npm scripts', () => {
    const first = fencedBlocks(readme, 'bash')[0].split('\n').filter(Boolean);
    expect(first.map((line) => line.replace(/\s+#.*$/, ''))).toEqual([
      'npm ci && npm start',
      'npm ci && npm test',
    ]);
    expect(readme.indexOf('```bash')).toBeLessThan(readme.indexOf('\n## '));
    const scripts = (JSON.parse(read(join(ROOT, 'package.json'))) as { scripts: object }).scripts;
    expect(Object.keys(scripts)).toEqual(expect.arrayContaining(['start', 'test']));
  });

  it('names every folder of src/ in its Layout, and none that does not exist', () => {
    const layout = readme.slice(readme.indexOf('\n## Layout\n'));
    const tree = fencedBlocks(layout, '')[0];
    const src = tree.slice(tree.indexOf('src/\n'));
    const block = src.slice(0, src.search(/\n\S/));
    const named = [...block.matchAll(/^ {2}([a-z0-9-]+)\/\s/gm)].map((match) => match[1]);
    const folders = readdirSync(join(ROOT, 'src')).filter((name) =>
      statSync(join(ROOT, 'src', name)).isDirectory(),
    );
    expect([...named].sort()).toEqual([...folders].sort());
  });

  it('links every page of docs/', () => {
    const linked = new Set(links(readme).map((target) => resolve(ROOT, target.split('#')[0])));
    const unlinked = pages()
      .filter((page) => page !== README && !linked.has(page))
      .map((page) => relative(ROOT, page));
    expect(unlinked).toEqual([]);
  });
});

describe('the README and docs/', () => {
  it('link only files that exist, and headings that exist', () => {
    const broken: string[] = [];
    for (const page of pages()) {
      for (const target of links(read(page))) {
        const [path, anchor] = target.split('#');
        const file = path ? resolve(dirname(page), decodeURI(path)) : page;
        const where = `${relative(ROOT, page)}: ${target}`;
        if (!existsSync(file)) broken.push(`${where} (no such file)`);
        else if (anchor && file.endsWith('.md') && !anchors(read(file)).has(anchor)) {
          broken.push(`${where} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});

/**
 * The docs show the HAProxy configuration the soak runs: the file under examples/ is the one
 * source, and the page's copy must be that file (without its header comment), not a version of it
 * that has drifted.
 */
describe('the HAProxy configuration in Running several instances', () => {
  it('is examples/haproxy/haproxy.cfg from its global section on', () => {
    const file = read(join(ROOT, 'examples', 'haproxy', 'haproxy.cfg'));
    const shown = fencedBlocks(read(join(DOCS, 'several-instances.md')), 'haproxy');
    expect(shown).toEqual([file.slice(file.indexOf('\nglobal\n') + 1)]);
  });
});
