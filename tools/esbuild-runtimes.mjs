import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const require = createRequire(import.meta.url);

// runtimes/<slug>/runtime.toml, read at build time: the bundle carries the catalog, not the files.
export const runtimeCatalog = {
  name: 'paneflow-runtimes',
  setup(b) {
    b.onResolve({ filter: /^virtual:paneflow-runtimes$/ }, () => ({ path: 'runtimes', namespace: 'paneflow-runtimes' }));
    b.onLoad({ filter: /.*/, namespace: 'paneflow-runtimes' }, () => ({
      contents: `export default ${JSON.stringify(require('./runtime-texts.cjs'))};`,
      loader: 'js',
      watchDirs: [resolve(import.meta.dirname, '../runtimes')],
    }));
  },
};

