import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The core's layout as docs/features.md describes it: one folder per feature, no feature folder
 * importing another, the contract's own paths and what they stand on importing no feature, and
 * the main entry free of Node's modules.
 */
const src = resolve(dirname(fileURLToPath(import.meta.url)), '../../packages/core/src');
const FEATURES = ['inbox', 'push', 'request-log', 'webhooks', 'transactions'];
const BASE = ['delivery', 'pipeline', 'shared'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The specifiers a module imports (statically, types included). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)[^'"]*?from\s+'([^']+)'/gm)].map((match) => match[1]!);
}

/** The top folder of `src` a relative import of `file` lands in, or null outside `src`'s folders. */
function folderOf(file: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const target = relative(src, resolve(dirname(file), specifier));
  return target.includes('/') ? target.split('/')[0]! : null;
}

describe('the core’s layout', () => {
  it('has a folder per feature, and no feature folder imports another', () => {
    const crossings: string[] = [];
    for (const feature of FEATURES) {
      for (const file of sources(join(src, feature))) {
        for (const specifier of importsOf(file)) {
          const folder = folderOf(file, specifier);
          if (folder !== null && folder !== feature && FEATURES.includes(folder)) {
            crossings.push(`${relative(src, file)} → ${specifier}`);
          }
        }
      }
    }
    expect(crossings).toEqual([]);
  });

  it('keeps the contract’s own paths, the pipeline and the shared parts free of every feature', () => {
    const reaching: string[] = [];
    for (const base of BASE) {
      for (const file of sources(join(src, base))) {
        for (const specifier of importsOf(file)) {
          const folder = folderOf(file, specifier);
          if (folder !== null && FEATURES.includes(folder)) reaching.push(`${relative(src, file)} → ${specifier}`);
        }
      }
    }
    expect(reaching).toEqual([]);
  });

  it('keeps the main entry free of Node’s modules: only @tidings/core/node reaches them', () => {
    const seen = new Set<string>();
    const nodeOnly: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const specifier of importsOf(file)) {
        if (specifier.startsWith('node:') || specifier === 'web-push')
          nodeOnly.push(`${relative(src, file)} → ${specifier}`);
        if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier).replace(/\.js$/, '.ts'));
      }
    };
    visit(join(src, 'index.ts'));
    expect(seen.size).toBeGreaterThan(50);
    expect(nodeOnly).toEqual([]);
  });
});
