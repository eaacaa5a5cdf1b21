// Other machines for the CLI's tests (issue 32): an `ssh` on this home's PATH — the one its serve
// runs for a link — that runs the remote command on this machine, in another Paneflow home's
// environment, as sshd would run it there. So a "far machine" is a second real instance, reached
// over a real child process and pipes, exactly as serve reaches one over OpenSSH.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, type Home } from '@paneflow/testing';

const quoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

function script(path: string, body: string) {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}

/**
 * Installs the fake `ssh` in `near`'s bin (so near's serve must be started after this). It takes
 * ssh's words as a link gives them (`-o OPT`…, `-T`, the destination, the remote command), looks
 * the destination up among those added here, and runs the command there. A destination it does
 * not know fails as ssh does: exit 255, its words on stderr.
 */
export function fakeSsh(near: Home) {
  const hosts = join(near.dir, 'ssh-hosts');
  mkdirSync(hosts, { recursive: true });
  script(
    join(near.dir, 'bin/ssh'),
    [
      'while [ $# -gt 0 ]; do',
      '  case "$1" in',
      '    -o) shift 2 ;;',
      '    -T) shift ;;',
      '    *) break ;;',
      '  esac',
      'done',
      `host=${quoted(hosts)}/"$1"`,
      'if [ ! -x "$host" ]; then',
      '  echo "ssh: Could not resolve hostname $1: Name or service not known" >&2',
      '  exit 255',
      'fi',
      'shift',
      'exec "$host" "$*"',
    ].join('\n'),
  );
  return {
    /**
     * `destination` reaches `far`: the command runs in far's environment alone (as a login there
     * would), with `paneflow` on its PATH.
     */
    reach(destination: string, far: Home) {
      script(join(far.dir, 'bin/paneflow'), `exec ${quoted(process.execPath)} ${quoted(CLI)} "$@"`);
      const env = Object.entries(far.env).flatMap(([key, value]) => (value === undefined ? [] : [quoted(`${key}=${value}`)]));
      script(join(hosts, destination), `exec env -i ${env.join(' ')} /bin/sh -c "exec $1"`);
    },
    /** `destination` connects, and then nothing ever comes from it (a host that accepts and hangs). */
    hang(destination: string) {
      script(join(hosts, destination), 'exec sleep 100000');
    },
    /** `destination` refuses: ssh's exit 255 with `words` on stderr, as the far side said them. */
    refuse(destination: string, words: string) {
      script(join(hosts, destination), `printf '%s\\n' ${quoted(words)} >&2\nexit 255`);
    },
  };
}
export type FakeSsh = ReturnType<typeof fakeSsh>;
