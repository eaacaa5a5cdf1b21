// `paneflow web`: the desktop's renderer in a browser. The server is the desktop's (it runs the
// renderer's calls through the desktop's dispatch), a bundle of its own loaded only here.
import { webFacePath, type WebFace } from '@paneflow/instance/programs';
import { displayText } from '@paneflow/view';
import { isIP } from 'node:net';
import { CliError } from '../errors';
import { ensureInstance, instanceEndpoints } from '../instance';
import { flag, type Run } from './common';

/** The web server's bundle (`@paneflow/instance`'s layout: the desktop's build in a checkout, `desktop/` once installed). */
function webModule(): WebFace {
  const path = webFacePath();
  if (!path) throw new CliError('the web face is not built (npx nx build desktop)', 1);
  return require(path) as WebFace;
}

async function web(bind: string, port: number): Promise<number> {
  const { startWeb } = webModule();
  await ensureInstance();
  let server: Awaited<ReturnType<WebFace['startWeb']>>;
  try {
    server = await startWeb({ endpoints: instanceEndpoints(), bind, port });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new CliError(`cannot listen on ${bind} port ${port}: it is in use`, 1);
    if (code === 'EADDRNOTAVAIL') throw new CliError(`cannot listen on ${bind}: no interface of this machine has that address`, 1);
    throw new CliError(`cannot serve the web face: ${(error as Error).message}`, 1);
  }
  process.stdout.write(`${server.url}\n`);
  process.stderr.write(
    `paneflow web: the instance of ${displayText(instanceEndpoints().home)}, until Ctrl-C. Open the URL above (it holds the token).\n` +
      `From another machine: ssh -L ${server.port}:127.0.0.1:${server.port} <this host>, then open it there.\n`,
  );
  if (!/^127\.|^::1$/.test(bind)) {
    process.stderr.write(`paneflow web: ${bind} is reachable from other machines, over plain HTTP: the token is all that keeps them out, and it is not encrypted. Prefer the default and ssh -L.\n`);
  }
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => resolve());
  });
  await server.close();
  return 0;
}

export const run: Record<string, Run> = {
  web(p) {
    const bind = flag(p, 'bind') ?? '127.0.0.1';
    // An address, not a name: the server checks that a request names it by address (DNS rebinding).
    if (isIP(bind) === 0) throw new CliError(`--bind needs an IP address (such as 127.0.0.1 or ::1), not '${displayText(bind)}'`, 2);
    const port = flag<number>(p, 'port') ?? 0;
    return web(bind, port);
  },
};
