// Sums the per-project counts written by jest-results-reporter.cjs into the line CI ends with.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const expected = process.argv.slice(3);
let passed = 0;
let failed = 0;
const seen = new Set();
const failures = [];
const skips = [];
for (const name of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
  const counts = JSON.parse(readFileSync(join(dir, name), 'utf8'));
  seen.add(counts.project);
  passed += counts.passed;
  failed += counts.failed;
  for (const failure of counts.failures ?? []) failures.push({ project: counts.project, ...failure });
  for (const skip of counts.skips ?? []) skips.push({ project: counts.project, ...skip });
  console.log(`${counts.project}: ${counts.passed} passed, ${counts.failed} failed${counts.skips?.length ? `, ${counts.skips.length} skipped` : ''}`);
}
// A project whose tests never ran (a build or lint step stopped it) counts as one failure.
for (const project of expected.filter((p) => !seen.has(p))) {
  console.log(`${project}: did not run`);
  failed += 1;
}
for (const { project, file, name, message } of failures) {
  console.log(`FAILED ${project} ${file}: ${name}`);
  for (const line of message.split('\n')) console.log(`    ${line}`);
}
// A machine of CI's kind has everything every test needs (root, sshd, chromium, tmux): a test that
// skipped itself there did not check what the README promises, so it is not counted as passed.
for (const { project, file, name } of skips) console.log(`SKIPPED (counted as failed) ${project} ${file}: ${name}`);
failed += skips.length;
console.log(`${passed} passed, ${failed} failed`);
