// Lints several texts, each as if it were the file it names, with the workspace's own ESLint config.
// stdin: [{filePath, code}]; stdout: [[ruleId, …], …] in the same order. Used by boundaries.test.ts.
import { ESLint } from 'eslint';

const probes = JSON.parse(await new Response(process.stdin).text());
const eslint = new ESLint({ cwd: process.cwd() });
const results = [];
for (const { filePath, code } of probes) {
  const [result] = await eslint.lintText(code, { filePath });
  results.push(result.messages.map((m) => m.ruleId ?? `fatal: ${m.message}`));
}
process.stdout.write(JSON.stringify(results));
