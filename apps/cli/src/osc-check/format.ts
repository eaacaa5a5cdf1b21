// What `paneflow osc check` prints: each finding with its section, then the verdict.
import type { ConformanceReport, Finding } from '@paneflow/osc7501';
import { displayText } from '@paneflow/view';
import { paint } from '../output';
import type { CheckRun } from './run';

const VERDICT: Record<ConformanceReport['verdict'], { text: string; color: string }> = {
  conformant: { text: 'conformant', color: '32;1' },
  conformant_with_warnings: { text: 'conformant, with warnings', color: '33;1' },
  not_conformant: { text: 'not conformant', color: '31;1' },
  silent: { text: 'declared nothing: not an OSC 7501 program (no query, no report)', color: '2' },
};

function findingLine(finding: Finding): string {
  const mark = finding.severity === 'violation' ? paint('31;1', 'violation') : paint('33', 'warning  ');
  const where = finding.sequence === null ? 'at exit' : `#${finding.sequence + 1}`;
  // The excerpt is the program's own bytes, already escaped by the checker; cleaned again all the same.
  const excerpt = finding.excerpt === null ? '' : `\n           ${paint('2', displayText(finding.excerpt))}`;
  return `${mark}  ${finding.section.padEnd(6)} ${where.padEnd(7)} ${displayText(finding.message)} [${finding.rule}]${excerpt}`;
}

function endedLine(run: CheckRun): string {
  if (run.ended.by === 'itself') return run.ended.signal ? `the program ended by signal ${run.ended.signal}` : `the program exited with ${run.ended.code}`;
  return run.ended.why === 'script done' ? 'the script is done; the program was hung up' : 'the program was hung up at the timeout';
}

export function printRun(run: CheckRun): void {
  const { report } = run;
  const lines = report.findings.map(findingLine);
  const { sequences, reports, clears, queries, discarded } = report.counts;
  lines.push(`${sequences} sequence(s): ${reports} report(s), ${clears} clear(s), ${queries} quer${queries === 1 ? 'y' : 'ies'}, ${discarded} discarded; ${endedLine(run)}`);
  if (run.unmet) lines.push(paint('31;1', `input line ${run.unmet.line}: the program never declared ${run.unmet.state} (it last declared ${run.unmet.current ?? 'nothing'})`));
  const verdict = VERDICT[report.verdict];
  const violations = report.findings.filter((f) => f.severity === 'violation').length;
  const warnings = report.findings.length - violations;
  lines.push(`${paint(verdict.color, verdict.text)}${report.findings.length ? ` (${violations} violation(s), ${warnings} warning(s))` : ''}`);
  process.stdout.write(lines.join('\n') + '\n');
}
