import { readFileSync } from 'node:fs';
import {
  CONFIG_REFERENCE,
  exampleVariables,
  loaderReads,
  renderConfigReference,
} from './config-reference';

describe('the configuration reference', () => {
  it('is what npm run docs:config writes from the loader and .env.example', () => {
    const written = readFileSync(CONFIG_REFERENCE, 'utf8');
    const hint = 'docs/configuration.md is stale: run npm run docs:config and commit it';
    expect({ hint, page: written }).toEqual({ hint, page: renderConfigReference() });
  });
});

describe('.env.example', () => {
  const reads = loaderReads();
  const variables = exampleVariables();

  it('lists every variable the config loader reads, once, and no other', () => {
    const listed = variables.map((variable) => variable.name);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual([...reads.keys()].sort());
  });

  it('gives the default the loader falls back to, wherever it gives one', () => {
    const given = variables.filter(({ name, value }) => value && reads.get(name)?.fallback);
    expect(given.length).toBeGreaterThan(30);
    expect(Object.fromEntries(given.map(({ name, value }) => [name, value]))).toEqual(
      Object.fromEntries(given.map(({ name }) => [name, reads.get(name)?.fallback])),
    );
  });

  it('describes every variable, under a section', () => {
    const bare = variables.filter((variable) => !variable.description || !variable.section);
    expect(bare.map((variable) => variable.name)).toEqual([]);
  });
});
