// The verbs about panes and workspaces: list, read, search, select, split, focus, close, type, press, queue.
import { displayText } from '@paneflow/view';
import { CliError } from '../errors';
import { request } from '../instance';
import { printJson, surfaceTable } from '../output';
import { callerWorkspaceFor, localPane, resolveOne, targetOf } from '../select';
import { wholeNumber } from '../usage';
import { restart, restore } from '../restarts';
import { send } from '../send';
import { queue } from '../queue';
import { close } from '../close';
import { callerWorkspace, flag, machineOf, scopeOf, str, whereOf, type Run } from './common';

export const run: Record<string, Run> = {
  restart: (p) => restart(str(p, 'target'), { fresh: !!flag(p, 'fresh'), json: !!flag(p, 'json'), where: whereOf(p) }),
  restore: (p) => restore({ workspace: flag(p, 'workspace'), json: !!flag(p, 'json') }),
  async ls(p) {
    const scope = scopeOf(p);
    const narrow = machineOf(p);
    const result = await request('surface.list', scope === 'all' || narrow.machine ? { scope, ...narrow } : { scope, ...callerWorkspace() });
    if (!flag(p, 'human')) printJson(result);
    else {
      // Other machines' links, for how old their rows are: asked only when some are shown.
      const machines = result.surfaces.some((s) => s.machine) ? (await request('machine.list', {})).machines : [];
      process.stdout.write(surfaceTable(result.surfaces, machines) + '\n');
    }
    return 0;
  },
  async read(p) {
    const target = await resolveOne(str(p, 'target'), whereOf(p));
    const result = await request('surface.read', {
      ...targetOf(target),
      ...(flag<number>(p, 'lines') !== undefined ? { lines: flag<number>(p, 'lines') } : {}),
      ...(flag<number>(p, 'offset') !== undefined ? { offset: flag<number>(p, 'offset') } : {}),
      ...(flag(p, 'raw') ? { fenced: false } : {}),
      scope: scopeOf(p),
    });
    if (flag(p, 'json')) printJson(result);
    else process.stdout.write(result.text + '\n');
    return 0;
  },
  async search(p) {
    const target = await resolveOne(str(p, 'target'), whereOf(p));
    const result = await request('surface.search', {
      ...targetOf(target),
      pattern: str(p, 'pattern'),
      ...(flag<number>(p, 'max') !== undefined ? { max_matches: flag<number>(p, 'max') } : {}),
      scope: scopeOf(p),
    });
    if (!flag(p, 'human')) printJson(result);
    else {
      for (const m of result.matches) process.stdout.write(`line ${m.line}: ${m.text}\n`);
      if (result.matches.length === 0) process.stdout.write('(no matches)\n');
      if (result.truncated) process.stdout.write('(more matches not shown)\n');
    }
    return 0;
  },
  async select(p) {
    printJson(await request('workspace.select', { index: wholeNumber('<index> (zero-based)', str(p, 'index')) }));
    return 0;
  },
  async split(p) {
    const direction = str(p, 'direction');
    if (!['h', 'horizontal', 'v', 'vertical'].includes(direction)) throw new CliError(`<direction> is h, horizontal, v or vertical, not '${displayText(direction)}'`, 2);
    const target = flag(p, 'target') !== undefined ? localPane(await resolveOne(flag(p, 'target')!, { scope: 'workspace' }), 'split') : null;
    printJson(await request('surface.split', { direction: direction as 'h', ...(target !== null ? { surface_id: target } : {}) }));
    return 0;
  },
  async focus(p) {
    const target = await resolveOne(str(p, 'target'), whereOf(p));
    printJson(await request('surface.focus', targetOf(target)));
    return 0;
  },
  close: (p) =>
    close(p.args.target as string | undefined, {
      workspace: !!flag(p, 'workspace'),
      force: !!flag(p, 'force') || !!flag(p, 'yes'),
      forceWorktree: !!flag(p, 'force-worktree'),
      where: whereOf(p),
    }),
  send: (p) =>
    send(str(p, 'target'), str(p, 'text'), {
      submit: !!flag(p, 'submit'),
      paste: !!flag(p, 'paste'),
      broadcast: !!flag(p, 'broadcast'),
      force: !!flag(p, 'force'),
      reportFile: flag(p, 'report-file'),
      queue: !!flag(p, 'queue'),
      where: whereOf(p),
    }),
  queue: (p) => queue(p.args.target as string | undefined, p.args.id as string | undefined, p.args.position as string | undefined, { json: !!flag(p, 'json'), force: !!flag(p, 'force'), scope: scopeOf(p) }),
  async key(p) {
    const target = await resolveOne(str(p, 'target'), whereOf(p));
    const force = flag(p, 'force') ? { force: true } : {};
    printJson(await request('surface.send_keystroke', { ...targetOf(target), keystroke: str(p, 'keystroke'), ...force, scope: scopeOf(p), ...callerWorkspaceFor(target) }));
    return 0;
  },
};
