import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface CommandRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Node with `args` in `cwd`, as an operator runs a command beside the service: nothing of the
 * developer's environment but PATH (and the project's tsconfig for ts-node), then `env`.
 */
export function runCommand(
  cwd: string,
  args: string[],
  env: Record<string, string>,
): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: {
        PATH: process.env.PATH,
        TS_NODE_PROJECT: join(__dirname, '..', '..', 'tsconfig.json'),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
