import { defineConfig } from 'vite';

// React's automatic JSX runtime through Vite's own transform: no plugin needed to build.
export default defineConfig({
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: { outDir: 'dist', emptyOutDir: true },
});
