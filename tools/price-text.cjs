// The text of runtimes/prices.toml: esbuild inlines it as the module 'virtual:paneflow-prices'
// (tools/esbuild-runtimes.mjs); jest maps that module here.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

module.exports = readFileSync(join(__dirname, '..', 'runtimes', 'prices.toml'), 'utf8');
