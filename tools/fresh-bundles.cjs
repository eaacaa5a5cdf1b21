// jest's globalSetup for every project: the tests of a project whose test target depends on app
// builds (`build`, `serve:build`, … in its project.json) run those apps' bundles as real processes,
// so a bundle older than a file it was built from would test other code. Such a run is refused with
// one line naming the bundle, the newer file and the build to run. `npx nx test <project>` builds
// first, so only a bare `jest` run meets it.
const { existsSync, readdirSync, readFileSync, statSync } = require('node:fs');
const path = require('node:path');

const workspaceRoot = path.join(__dirname, '..');

/** Each project's name → its directory, from every project.json of the workspace. */
function projectRoots(root) {
  const roots = new Map();
  for (const group of ['apps', 'libs']) {
    const dir = path.join(root, group);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name, 'project.json');
      if (existsSync(file)) roots.set(JSON.parse(readFileSync(file, 'utf8')).name, path.join(dir, name));
    }
  }
  return roots;
}

/** The apps whose bundles a project's tests run: the builds its test target depends on. */
function builtApps(root, projectDir) {
  const project = JSON.parse(readFileSync(path.join(projectDir, 'project.json'), 'utf8'));
  const roots = projectRoots(root);
  const names = (project.targets?.test?.dependsOn ?? [])
    .map((dep) => (typeof dep === 'string' ? dep : `${dep.projects ?? ''}:${dep.target}`))
    .map((dep) => (dep === 'build' ? project.name : dep.endsWith(':build') ? dep.slice(0, -':build'.length) : null))
    .filter((name) => name !== null);
  return [...new Set(names)].map((name) => ({ name, dir: roots.get(name) })).filter(({ dir }) => dir?.startsWith(path.join(root, 'apps')));
}

function inputsFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.inputs.json')).map((name) => path.join(dir, name));
}

/** Why the bundles a project's tests run cannot be trusted, or null when each is newer than all it was built from. */
function staleBundle(root, projectDir) {
  for (const { name, dir } of builtApps(root, projectDir)) {
    const records = inputsFiles(path.join(dir, 'dist'));
    if (records.length === 0) return `${path.relative(root, dir)}/dist has no bundle built by this workspace: run \`npx nx build ${name}\``;
    for (const record of records) {
      const { bundle, inputs } = JSON.parse(readFileSync(record, 'utf8'));
      const bundlePath = path.join(root, bundle);
      if (!existsSync(bundlePath)) return `${bundle} is missing: run \`npx nx build ${name}\``;
      const builtAt = statSync(bundlePath).mtimeMs;
      for (const input of inputs) {
        const file = path.join(root, input);
        if (!existsSync(file)) return `${bundle} was built from ${input}, which is gone: run \`npx nx build ${name}\``;
        if (statSync(file).mtimeMs > builtAt) return `${bundle} is older than ${input}: run \`npx nx build ${name}\``;
      }
    }
  }
  return null;
}

module.exports = async function freshBundles(globalConfig) {
  const stale = staleBundle(workspaceRoot, globalConfig.rootDir);
  if (stale) throw new Error(`stale bundle: ${stale}`);
};
module.exports.staleBundle = staleBundle;
