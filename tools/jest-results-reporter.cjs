// Writes each jest run's counts to $PANEFLOW_TEST_RESULTS/<nx project>.json, so that .ci/run can print
// one "N passed, N failed" line for the whole workspace. A suite that fails to load counts as failed.
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
    };
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${project}.json`);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(counts) + '\n');
    fs.renameSync(`${file}.tmp`, file);
  }
}

module.exports = ResultsReporter;
