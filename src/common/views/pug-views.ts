import { join } from 'node:path';
import { compileTemplate } from 'pug';

/** `views/` at the project root, from both `src` and `dist`. */
export const VIEWS_DIR = join(__dirname, '..', '..', '..', 'views');

const compiled = new Map<string, compileTemplate>();

/**
 * Renders `views/<name>.pug` (e.g. `pages/verify-email`). Pug and its compiler are loaded, and
 * each template compiled, on first use: they weigh tens of megabytes, and most processes send
 * no mail and serve no page for a long while, if ever.
 */
export async function renderView(name: string, locals: Record<string, unknown>): Promise<string> {
  let template = compiled.get(name);
  if (!template) {
    const { compileFile } = await import('pug');
    template = compileFile(join(VIEWS_DIR, `${name}.pug`), { compileDebug: false, self: false });
    compiled.set(name, template);
  }
  return template(locals);
}
