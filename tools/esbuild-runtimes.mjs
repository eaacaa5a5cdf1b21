import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const require = createRequire(import.meta.url);
const runtimes = resolve(import.meta.dirname, '../runtimes');

// runtimes/<slug>/runtime.toml and runtimes/prices.toml, read at build time: the bundle carries
// the catalog and the price table, not the files.
export const runtimeCatalog = {
  name: 'paneflow-runtimes',
  setup(b) {
    b.onResolve({ filter: /^virtual:paneflow-(runtimes|prices)$/ }, (args) => ({ path: args.path.slice('virtual:paneflow-'.length), namespace: 'paneflow-runtimes' }));
    b.onLoad({ filter: /.*/, namespace: 'paneflow-runtimes' }, (args) => ({
      contents: `export default ${JSON.stringify(require(args.path === 'prices' ? './price-text.cjs' : './runtime-texts.cjs'))};`,
      loader: 'js',
      watchDirs: [runtimes],
    }));
  },
};
