import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { makeHome, Tmux, tmuxSocketPath, until } from '../src';

// The tests' outer terminal: a private tmux server, which leaves neither its process nor its
// socket file behind once killed (tmux 3.3a itself keeps the file).
test('a window runs its program at its size; kill() ends the server and removes its socket', async () => {
  const home = makeHome();
  const tmux = new Tmux();
  try {
    const window = tmux.window(['sh', '-c', 'stty size; exec sleep 60'], { env: home.env, dir: home.dir, cols: 70, rows: 20 });
    await until(() => window.capture().some((line) => line.trim() === '20 70') || null, 'the size, said by the program');
    const socketPath = tmux.run('display-message', '-p', '#{socket_path}').trim();
    expect(socketPath).toBe(tmuxSocketPath(tmux.socket));
    expect(existsSync(socketPath)).toBe(true);
    tmux.kill();
    expect(spawnSync('tmux', ['-L', tmux.socket, 'list-sessions'], { encoding: 'utf8' }).status).not.toBe(0);
    expect(existsSync(socketPath)).toBe(false);
  } finally {
    tmux.kill();
    home.cleanup();
  }
});
