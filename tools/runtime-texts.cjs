// The texts of runtimes/<slug>/runtime.toml by slug: the one list of agents. esbuild inlines it as
// the module 'virtual:paneflow-runtimes' (tools/build-app.mjs); jest maps that module here.
const { readdirSync, readFileSync, existsSync } = require('node:fs');
const { join } = require('node:path');

const dir = join(__dirname, '..', 'runtimes');
const texts = {};
for (const slug of readdirSync(dir).sort()) {
  const file = join(dir, slug, 'runtime.toml');
  if (existsSync(file)) texts[slug] = readFileSync(file, 'utf8');
}
module.exports = texts;
