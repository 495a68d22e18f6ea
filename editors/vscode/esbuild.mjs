// Bundles the extension (Node, CommonJS), the webview script (browser IIFE), the unit tests
// and the in-editor test suite into out/. `--production` minifies and drops source maps.
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';

const production = process.argv.includes('--production');
const common = {
  bundle: true,
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  target: 'es2022',
};

const unitTests = readdirSync('src/unit')
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => `src/unit/${f}`);

await Promise.all([
  build({
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'out/extension.js',
    platform: 'node',
    format: 'cjs',
    external: ['vscode'],
  }),
  build({
    ...common,
    entryPoints: ['src/webview/main.ts'],
    outfile: 'out/webview.js',
    platform: 'browser',
    format: 'iife',
  }),
  production
    ? Promise.resolve()
    : build({
        ...common,
        entryPoints: unitTests,
        outdir: 'out/unit',
        platform: 'node',
        format: 'cjs',
      }),
  production
    ? Promise.resolve()
    : build({
        ...common,
        entryPoints: ['e2e/suite/index.ts'],
        outfile: 'out/test/suite.js',
        platform: 'node',
        format: 'cjs',
        external: ['vscode'],
      }),
]);
