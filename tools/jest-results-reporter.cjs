// Writes each jest run's counts to $PANEFLOW_TEST_RESULTS/<nx project>.json, so that .ci/run can print
// one "N passed, N failed" line for the whole workspace. A suite that fails to load counts as failed;
// skipped tests are listed by name, and CI counts them as failed (see sum-test-results.mjs).
// Each failure's name and the head of its message go along, so the end of a CI log says what failed.
const fs = require('node:fs');
const path = require('node:path');

class ResultsReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const dir = process.env.PANEFLOW_TEST_RESULTS;
    if (!dir) return;
    const project = JSON.parse(fs.readFileSync(path.join(this.rootDir, 'project.json'), 'utf8')).name;
    const counts = {
      project,
      passed: results.numPassedTests,
      failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
      skipped: results.numPendingTests + results.numTodoTests,
      failures: failuresOf(results, this.rootDir),
      skips: skipsOf(results, this.rootDir),
    };
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${project}.json`);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(counts) + '\n');
    fs.renameSync(`${file}.tmp`, file);
  }
}

function failuresOf(results, rootDir) {
  const failures = [];
  for (const suite of results.testResults) {
    const file = path.relative(rootDir, suite.testFilePath);
    if (suite.testExecError) failures.push({ file, name: '(suite did not load)', message: head(suite.testExecError.message) });
    for (const test of suite.testResults) {
      if (test.status === 'failed') failures.push({ file, name: test.fullName, message: head(test.failureMessages.join('\n')) });
    }
  }
  return failures;
}

// Skipped tests by name: a test skips itself where the machine lacks what it needs (root, sshd).
function skipsOf(results, rootDir) {
  const skips = [];
  for (const suite of results.testResults) {
    for (const test of suite.testResults) {
      if (test.status === 'pending' || test.status === 'todo' || test.status === 'skipped') skips.push({ file: path.relative(rootDir, suite.testFilePath), name: test.fullName });
    }
  }
  return skips;
}

// The first lines of a failure, without colour codes: enough to tell a timeout from a wrong value.
function head(message) {
  const plain = String(message).replace(/\x1b\[[0-9;]*m/g, '');
  return plain.split('\n').filter((line) => line.trim() !== '').slice(0, 6).join('\n');
}

module.exports = ResultsReporter;
