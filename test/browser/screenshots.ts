import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { Page } from 'playwright-core';

/**
 * The pictures of the example app on the SDK's page (docs/sdk.md), taken by its browser suite in
 * the states they show.
 * `npm run screenshots` writes them (SCREENSHOTS=write) with a manifest naming the app's sources
 * they were taken of; every other run takes them all the same and checks that the committed ones
 * are still of the current app.
 */
export const SCREENSHOTS = [
  'signed-out',
  'create-account',
  'field-error',
  'signed-in',
  'rate-limited',
  'unavailable',
  'account',
  'two-step-enrol',
  'two-step-codes',
  'second-step',
  'passkeys',
  'step-up-without-password',
] as const;
export type Screenshot = (typeof SCREENSHOTS)[number];

const ROOT = join(__dirname, '..', '..');
const APP = join(ROOT, 'examples', 'spa', 'public');
const IMAGES = join(ROOT, 'docs', 'images');
const MANIFEST = join(IMAGES, 'example-spa.json');
/** The page that shows them, each linked relative to it. */
const PAGE = join(ROOT, 'docs', 'sdk.md');
const WRITE = process.env.SCREENSHOTS === 'write';
const taken = new Set<Screenshot>();

/** Each picture at both sizes people use: a desktop window and a phone. */
const SIZES = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;
type Size = keyof typeof SIZES;

export const screenshotFile = (name: Screenshot, size: Size) =>
  `docs/images/example-spa-${name}-${size}.png`;

/**
 * What the person sees at each size, scrolled as the page leaves it: the focused element (the
 * result just said, or the heading of what just opened) in view. The window's size is restored.
 */
export async function screenshot(page: Page, name: Screenshot): Promise<void> {
  const before = page.viewportSize();
  for (const [size, viewport] of Object.entries(SIZES) as Array<[Size, (typeof SIZES)[Size]]>) {
    await page.setViewportSize(viewport);
    await page.evaluate(() => document.activeElement?.scrollIntoView({ block: 'center' }));
    const image = await page.screenshot({ animations: 'disabled', caret: 'initial' });
    if (image.length === 0) throw new Error(`The ${name} screenshot is empty`);
    if (WRITE) writeFileSync(join(ROOT, screenshotFile(name, size)), image);
  }
  if (before) await page.setViewportSize(before);
  taken.add(name);
}

/** What is wrong with the committed screenshots, and which of `names` this run took. */
export function checkScreenshots(names: readonly Screenshot[]): {
  stale: string[];
  missing: string[];
  taken: Screenshot[];
} {
  const app = appHash();
  if (WRITE) writeFileSync(MANIFEST, `${JSON.stringify({ app, screenshots: SCREENSHOTS })}\n`);
  const manifest = existsSync(MANIFEST)
    ? (JSON.parse(readFileSync(MANIFEST, 'utf8')) as { app?: string })
    : {};
  const page = readFileSync(PAGE, 'utf8');
  const linked = (file: string) => page.includes(`(${relative(dirname(PAGE), join(ROOT, file))})`);
  return {
    stale:
      manifest.app === app
        ? []
        : ['examples/spa/public changed since the screenshots were taken: run npm run screenshots'],
    missing: SCREENSHOTS.flatMap((name) => [
      screenshotFile(name, 'desktop'),
      screenshotFile(name, 'phone'),
    ]).filter((file) => !existsSync(join(ROOT, file)) || !linked(file)),
    taken: names.filter((name) => taken.has(name)),
  };
}

/** The app's own files, names and contents: what the pictures show. */
function appHash(): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(APP).sort()) {
    hash.update(`${name}\n`);
    hash.update(readFileSync(join(APP, name)));
  }
  return hash.digest('hex');
}
